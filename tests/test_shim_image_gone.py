"""A toolchain's image removed behind moatbridge's back (`docker rmi`, a prune): a shim run
outside the warm container's roots (a one-shot `docker run`) says the one sentence of
errors.ImageGone and exits 2, as the warm path (toolchain-warm) does, instead of docker's own
"No such image" or an attempt to pull the reference from a registry.

Against the live engine, with a tiny imported image (tests/support/tiny_shell.py) the test
removes, in dash and bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from moatbridge.core.shims import ToolchainRuntime, render_runner, render_toolchain_env
from moatbridge.errors import ImageGone

from support.environ import paths_for
from support.tiny_shell import imported_shell_image

pytestmark = pytest.mark.engine

TEST_LABEL = "io.moatbridge.test-image-gone=1"


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def tiny_image(tmp_path: Path, engine_version: str) -> Iterator[tuple[str, str]]:
    with imported_shell_image(tmp_path, "moatbridge-test/image-gone", TEST_LABEL) as image:
        yield image


def _runner_home(mbhome: Path, name: str, image: str) -> None:
    """A MOATBRIDGE_HOME with the runner and one toolchain with no warm container roots:
    every call is a one-shot `docker run`."""
    runtime = ToolchainRuntime(
        name=name, image=image, target="gfx1030", activate=". /opt/moatbridge/bin/activate",
        uid=os.getuid(), gid=os.getgid(), group_adds=(), devices=(), roots=(), licence=None,
        licence_records="/nowhere", licence_env=(), home_key=paths_for(mbhome).engine_key, home=str(mbhome),
    )  # fmt: skip
    (mbhome / "libexec").mkdir(parents=True)
    (mbhome / "libexec" / "moatbridge-exec").write_text(render_runner(str(mbhome), "/bin/false"))
    (mbhome / "toolchains" / name).mkdir(parents=True)
    (mbhome / "toolchains" / name / "toolchain.env").write_text(render_toolchain_env(runtime))


@pytest.mark.parametrize("shell", ["dash", "bash"])
@pytest.mark.parametrize("recorded", ["image-id", "reference"])
def test_a_one_shot_shim_says_the_image_is_gone(
    tmp_path: Path, tiny_image: tuple[str, str], shell: str, recorded: str
) -> None:
    reference, image_id = tiny_image
    image = image_id if recorded == "image-id" else reference
    name = f"mbt-gone-{uuid.uuid4().hex[:6]}"
    mbhome, project = tmp_path / "mbhome", tmp_path / "project"
    _runner_home(mbhome, name, image)
    project.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(mbhome),
           "MOATBRIDGE_TOOLCHAIN": name}  # fmt: skip
    argv = [shutil.which(shell) or shell, str(mbhome / "libexec" / "moatbridge-exec"), "nvcc", "--version"]

    def shim() -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, capture_output=True, text=True, cwd=project, env=env, timeout=120,
                              stdin=subprocess.DEVNULL)  # fmt: skip

    ran = shim()
    assert ran.returncode == 0 and "tiny stand-in" in ran.stdout, ran.stderr  # the image works
    removed = docker("rmi", "-f", image_id)
    assert removed.returncode == 0, removed.stderr

    gone = shim()
    expected = ImageGone(name, image)
    assert gone.returncode == 2, (gone.returncode, gone.stderr)
    assert gone.stderr == f"moatbridge: {expected.message}\nhint: {expected.hint}\n"
    assert not gone.stdout
