"""One module per verb. Each exposes ``run(args, out) -> int`` and imports heavy
libraries (rich, docker) inside, so only the verb that runs pays for them."""
