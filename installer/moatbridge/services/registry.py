"""Moving images to and from registries: live progress, retries with backoff, the digest
verified and recorded."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.clock import now_stamp
from moatbridge.adapters.filesystem import atomic_write_json, read_json
from moatbridge.adapters.progress import TransferView
from moatbridge.core.references import Reference, backoff_delays, parse_reference
from moatbridge.core.textsafe import printable
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths

PULL_MINIMUM_GB = 3


def _with_retries(action: Any, attempts: int, say: Any) -> Any:
    delays = backoff_delays(attempts)
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except docker_api.TransferFailed as exc:
            if not exc.transient or attempt == attempts:
                if attempt > 1:
                    exc.message = f"{exc.message} (after {attempt} attempts)"
                raise
            wait = delays[attempt - 1]
            say(f"attempt {attempt}/{attempts} failed: {exc.message} - retrying in {wait:.0f} s")
            time.sleep(wait)
    raise AssertionError("unreachable")


def record_image(paths: Paths, reference: str, digest: str, image_id: str, how: str) -> None:
    """Remember what moatbridge fetched, by digest (state written atomically under a lock)."""
    from filelock import FileLock

    state = paths.images_state
    state.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(state) + ".lock", timeout=30):
        data = read_json(state, {"version": 1, "images": {}})
        data.setdefault("images", {})[reference] = {
            "digest": digest,
            "id": image_id,
            "how": how,
            "at": now_stamp(),
        }
        atomic_write_json(state, data)


def _repo_digest(image: dict[str, Any], ref: Reference, resolved: str | None = None) -> str | None:
    """The registry digest the image has for ``ref``'s repository. One image can have several
    (the same content under more than one manifest; the engine lists them sorted): the one
    this pull resolved (the pinned digest, or what the tag resolved to) when the engine has
    it, never merely the first listed."""
    digests = []
    for repo_digest in image.get("RepoDigests") or []:
        repository, _, digest = str(repo_digest).partition("@")
        if repository == ref.repository:
            digests.append(digest)
    for wanted in (ref.digest, resolved):
        if wanted is not None and wanted in digests:
            return wanted
    return digests[0] if digests else None


def pull_image(
    client: Any, text: str, retries: int, stall_timeout: int, quiet: bool, space_check: bool = True
) -> tuple[str, str]:
    """Pull with progress and retries; verify and record the digest. Returns (image ID, digest)."""
    ref = parse_reference(text)
    if space_check:
        from moatbridge.services.image_builds import GB, check_space

        # Layer sizes are unknown before the pull; toolchain images are several GB.
        check_space(client, PULL_MINIMUM_GB * GB, f"Pulling {ref}")
    resolved: list[str] = []  # the engine's "Digest: sha256:..." line: what the registry served

    with TransferView(f"Pulling {ref}") if not quiet else _Quiet() as view:

        def listen(event: Any) -> None:
            if event.kind == "status" and event.text.startswith("Digest: sha256:"):
                resolved.append(event.text.removeprefix("Digest: ").strip())
            view(event)

        _with_retries(
            lambda: docker_api.pull(client, ref.repository, ref.pull_tag, listen, stall_s=stall_timeout),
            retries, _say,
        )  # fmt: skip
    image = docker_api.inspect_image(client, str(ref))
    if image is None:
        raise MoatbridgeError(f"The engine reported success but has no image {ref}.", "retry the pull")
    digest = _repo_digest(image, ref, resolved[-1] if resolved else None)
    if digest is None:
        raise MoatbridgeError(f"The engine recorded no registry digest for {ref}.", "retry the pull")
    if ref.digest is not None and digest != ref.digest:
        raise MoatbridgeError(f"{ref} resolved to {digest}, not the digest asked for.", "check the registry")
    record_image(Paths.from_environ(os.environ), str(ref), digest, str(image["Id"]), "pull")
    return str(image["Id"]), digest


def push_target(text: str) -> Reference:
    """What ``image push`` pushes: a tag (checked before the engine is asked)."""
    ref = parse_reference(text)
    if ref.digest is not None:
        raise MoatbridgeError("Push a tag, not a digest.", f"moatbridge image push {ref.repository}:<tag>")
    return ref


def push_image(
    client: Any, ref: Reference, source: str | None, retries: int, stall_timeout: int, quiet: bool
) -> str:
    """Push ``ref`` (``source``, a local image, tagged so first) with progress and retries;
    record and return the registry's digest."""
    tag = ref.tag or "latest"
    if source:
        local = docker_api.inspect_image(client, source)
        if local is None:
            raise MoatbridgeError(f"There is no local image {source}.", "see 'moatbridge image list'")
        docker_api.tag_image(client, local["Id"], ref.repository, tag)
    if docker_api.inspect_image(client, f"{ref.repository}:{tag}") is None:
        raise MoatbridgeError(
            f"There is no local image {ref.repository}:{tag} to push.", "build or tag it first (--from)"
        )
    with TransferView(f"Pushing {ref.repository}:{tag}") if not quiet else _Quiet() as view:
        digest: str = _with_retries(
            lambda: docker_api.push(client, ref.repository, tag, view, stall_s=stall_timeout), retries, _say
        )
    image = docker_api.inspect_image(client, f"{ref.repository}:{tag}") or {}
    reference = f"{ref.repository}:{tag}"
    record_image(Paths.from_environ(os.environ), reference, digest, str(image.get("Id")), "push")
    return digest


def _say(text: str) -> None:
    sys.stderr.write(f"moatbridge: {printable(text)}\n")  # registry and engine words


class _Quiet:
    def __enter__(self) -> Any:
        return lambda event: None

    def __exit__(self, *exc: object) -> None:
        return None
