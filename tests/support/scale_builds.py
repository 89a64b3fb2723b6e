"""Building and running images of images/scale/Dockerfile.apt through `moatbridge image build`,
for the recipe tests (test_scale_recipe.py): the build log, the layers a build made and a
janitor that removes them afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.repo_proxy import Credentials

from support.consent import accepting_env
from support.scale_standin import StandinRepo

CUDA_VERSION = "12.1.0"  # not the recipe's default, so the tests prove the arg is wired through
# The recipe always installs ca-certificates and wget (it needs them); the vendor's
# compilers (clang, gcc, cmake ...) are left out to keep the stand-in builds fast.
MINIMAL_PREREQS = ""
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


class ImageBuildError(RuntimeError):
    """The engine reported an in-band error while building."""

    def __init__(self, message: str, log: str, layer_ids: list[str]) -> None:
        super().__init__(message)
        self.log = log
        self.layer_ids = layer_ids


@dataclass(frozen=True)
class ImageBuild:
    image_id: str
    log: str  # everything the engine streamed back, as text
    layer_ids: list[str]  # intermediate images named in the stream (" ---> <id>")


def unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def docker_cli(
    *args: str, input: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, input=input, timeout=timeout)


def api_client() -> Any:
    import docker

    return docker.APIClient(base_url=os.environ.get("DOCKER_HOST"), version="auto", timeout=600)


@dataclass
class Janitor:
    """Removes the images the tests built, and the intermediate images only they use."""

    base: str
    workdir: Path
    images: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)

    def track(self, build: ImageBuild | ImageBuildError) -> None:
        self.layers += build.layer_ids
        if isinstance(build, ImageBuild):
            self.images.append(build.image_id)

    def cleanup(self) -> None:
        import docker

        api = api_client()
        try:
            for image in reversed(self.images):
                with contextlib.suppress(docker.errors.NotFound):
                    api.remove_image(image, force=True)
            for layer in reversed(dict.fromkeys(self.layers)):
                try:
                    if api.inspect_image(layer).get("RepoTags"):
                        continue  # the base image, or anything someone tagged: never ours to remove
                    api.remove_image(layer)  # no force: still in use by other images -> left alone
                except docker.errors.APIError:
                    pass
        finally:
            api.close()


LAYER = re.compile(r"^\s* ---> ([0-9a-f]{12,64})\s*$", re.MULTILINE)


def build_image(
    janitor: Janitor,
    repo_url: str,
    standin: StandinRepo,
    credentials: Credentials | None = None,
    **extra: str,
) -> ImageBuild:
    """`moatbridge image build --flavour scale` against the stand-in; its stderr is the build log."""
    argv = [
        sys.executable, "-m", "moatbridge", "image", "build", "--flavour", "scale", "--distro", "ubuntu24.04",
        "--base-image", janitor.base, "--repo-url", repo_url, "--cuda-version", CUDA_VERSION,
        "--build-arg", f"SCALE_PREREQS={MINIMAL_PREREQS}", "--no-space-check", "--verbose", "--json",
        # The stand-in's scale-repos names its own vendor host, not pkgs.scale-lang.com.
        "--build-arg", f"SCALE_VENDOR_HOSTS={standin.vendor_host}",
    ]  # fmt: skip
    for name, value in extra.items():
        argv += ["--build-arg", f"{name}={value}"]
    if credentials is not None:
        secret_file = janitor.workdir / f"credentials-{secrets.token_hex(4)}.json"
        secret_file.write_text(
            json.dumps({"username": credentials.username, "password": credentials.password})
        )
        secret_file.chmod(0o600)
        argv += ["--credentials-file", str(secret_file)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=accepting_env(argv))
    log = result.stdout + result.stderr
    if result.returncode != 0:
        error = ImageBuildError(result.stderr.strip()[-3000:], log, LAYER.findall(log))
        janitor.track(error)
        raise error
    built = ImageBuild(image_id=json.loads(result.stdout)["id"], log=log, layer_ids=LAYER.findall(log))
    janitor.track(built)
    return built


def run_in_image(
    image: str, *command: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    flags = ["run", "--rm", "--network", "host", "--label", "io.moatbridge.test=1"]
    if stdin is not None:
        flags.append("-i")
    for key, value in (env or {}).items():
        flags += ["-e", f"{key}={value}"]
    return docker_cli(*flags, image, *command, input=stdin)
