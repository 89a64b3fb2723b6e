"""Measure what SCALE's `scaleenv <target>` sets, by running it once in the toolchain's image.

The generated files (devcontainer, Kubernetes, CI, Apptainer) spell the activation out.
SCALE's script is not public, so when the image is here its real effect is used; when it
is not (or the engine cannot be reached to ask), core.toolkit_env's documented layout is,
which refuses NVIDIA targets rather than guess them. When the image is here and running
scaleenv in it fails, that is an error (ProbeFailed), never a silent fall back.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from moatbridge.adapters import faults
from moatbridge.adapters.containers import transient_labels
from moatbridge.core.scale_env import SEPARATOR, measured_env, split_dumps
from moatbridge.core.textsafe import printable
from moatbridge.core.toolkit_env import SCALE_TOOLS_DIR, ToolkitEnv, toolkit_env
from moatbridge.errors import EngineUnavailable, MoatbridgeError

if TYPE_CHECKING:
    from moatbridge.core.toolchains import Toolchain

# "$0" is the target. The licence gate is the image's entrypoint, replaced here; the
# variable is still set, as in every container moatbridge starts with recorded consent.
_SCRIPT = (
    "env -0; printf '\\0%s\\0' " + SEPARATOR.decode() + "; "
    f'. {SCALE_TOOLS_DIR}/scaleenv "$0" >/dev/null 2>/tmp/scaleenv.err || '
    "{ tail -n 3 /tmp/scaleenv.err >&2; exit 3; }; env -0"
)
_TIMEOUT_S = 120


class ProbeFailed(MoatbridgeError):
    pass


def measure(client: Any, image: str, target: str) -> ToolkitEnv | None:
    """The measured environment, or None when the image is not in the engine."""
    import docker

    from moatbridge.adapters.docker_api import inspect_image

    if inspect_image(client, image) is None:
        return None
    # The image is here: from now on a failure (an engine error, a read timeout while waiting)
    # is an error, never a silent fall back to the documented layout.
    container: dict[str, Any] = {}
    try:
        container = client.create_container(
            image=image, entrypoint=["bash"], command=["--noprofile", "--norc", "-c", _SCRIPT, target],
            environment=["SCALE_LICENSE_ACCEPT=1"], network_disabled=True,
            labels=transient_labels(),
        )  # fmt: skip
        faults.point("engine.container-created", str(container["Id"]))
        client.start(container["Id"])
        status = client.wait(container["Id"], timeout=_TIMEOUT_S).get("StatusCode")
        output = bytes(client.logs(container["Id"], stdout=True, stderr=False))
        errors = bytes(client.logs(container["Id"], stdout=False, stderr=True))
    except (docker.errors.DockerException, OSError) as exc:  # requests' errors are OSError
        raise ProbeFailed(
            f"Running scaleenv in {printable(image, newlines=False)} to measure SCALE's environment "
            f"failed: {printable(str(exc) or type(exc).__name__)}.",
            "check the engine ('moatbridge doctor') and generate the file again",
        ) from None
    finally:
        if container:  # best effort: the first error is the one to tell
            with contextlib.suppress(docker.errors.DockerException, OSError):
                client.remove_container(container["Id"], force=True)
    if status != 0:
        said = printable(errors.decode("utf-8", "replace").strip()[-300:] or f"exit status {status}")
        raise ProbeFailed(
            f"SCALE's scaleenv in {printable(image, newlines=False)} did not activate {target} ({said}).",
            f"check that this SCALE version supports {target} ('scaleinfo' lists the GPUs it sees)",
        )
    before, after = split_dumps(output, image)
    return measured_env(before, after, image)


def toolchain_environment(flavour: str, target: str, image: str, distro: str | None = None) -> ToolkitEnv:
    """What a generated file spells out for a toolchain: for SCALE, scaleenv measured in
    the local image when the engine has it, else the documented layout; for the open
    flavour its activate script's variables, with the stack's clang (``distro``)."""
    if flavour != "scale":
        return toolkit_env(flavour, target, stack_clang(flavour, distro))
    import docker

    from moatbridge.adapters import docker_api

    try:
        client = docker_api.connect()
    except EngineUnavailable:
        return toolkit_env(flavour, target)
    try:
        measured = measure(client, image, target)  # ProbeFailed once the image is known to be here
    except (docker.errors.DockerException, OSError):  # no engine answering the image inspection
        measured = None
    finally:
        client.close()
    return measured if measured is not None else toolkit_env(flavour, target)


def environment_of(toolchain: Toolchain) -> ToolkitEnv:
    """toolchain_environment for an installed toolchain: its recorded image, by ID when known."""
    image = toolchain.image_id or toolchain.image
    return toolchain_environment(toolchain.flavour, toolchain.target, image, toolchain.spec.distro)


def stack_clang(flavour: str, distro: str | None) -> str | None:
    """The clang major version of a toolchain's stack, from the catalog; None when the
    catalog does not say (then trixie's is assumed, as the activate script does)."""
    from moatbridge.adapters.records import load_catalog

    try:
        return load_catalog().flavour(flavour).distro(distro).clang
    except MoatbridgeError:  # a stack the catalog no longer lists
        return None
