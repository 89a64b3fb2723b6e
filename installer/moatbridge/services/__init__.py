"""The use cases: typed in, typed out, the only floor that joins adapters to core.

Verbs (moatbridge.commands) parse arguments, call one of these and print what they return;
services never import a verb, the parser or the CLI.
"""
