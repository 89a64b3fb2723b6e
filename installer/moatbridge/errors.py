"""User-facing errors: one sentence, one hint, one exit status.

Only ``cli.main`` catches these and prints them; everything below raises.
"""

from __future__ import annotations


class MoatbridgeError(Exception):
    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(MoatbridgeError):
    """The command line itself is wrong."""

    exit_code = 2


class InputError(MoatbridgeError):
    """A path, file or value the user gave cannot be used."""

    exit_code = 2


class EngineUnavailable(MoatbridgeError):
    """The container engine cannot be reached or used."""

    exit_code = 3


# ImageGone's words as templates, also said by the shims' sh runner (core.shims): plain text
# with no sh quoting characters, so the runner can fill in "$name" and the image.
IMAGE_GONE = (
    "The image of toolchain {toolchain} ({image}) is gone from the container engine "
    "(removed outside moatbridge)."
)
IMAGE_GONE_HINT = "run 'moatbridge upgrade {toolchain}' to build or pull it again (or load its bundle again)"
IMAGE_SHOWN = 19  # characters of the image shown: "sha256:" and 12 of the ID, or a reference's start


class ImageGone(MoatbridgeError):
    """A toolchain's recorded image was removed from the engine behind moatbridge's back
    (`docker rmi`, a prune, another engine): the toolchain is unusable until it is made again."""

    exit_code = 2

    def __init__(self, toolchain: str, image: str) -> None:
        super().__init__(
            IMAGE_GONE.format(toolchain=toolchain, image=image[:IMAGE_SHOWN]),
            IMAGE_GONE_HINT.format(toolchain=toolchain),
        )
