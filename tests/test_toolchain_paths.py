"""Paths a user takes after setup, each run for real against the engine on a throwaway HOME:
`default`, `shell` on a terminal, a pin file through a real shim, Ctrl-C typed at a shim on a
terminal, `upgrade` onto a really new image, fish's rc block on uninstall, `image remove --force`.

Toolchains get names unique to this test run, so their warm containers
(moatbridge-NAME-UID-HOMEKEY) never meet another test's or another session's.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, fresh_home, mb
from support.pty_session import PtySession
from support.toolchains import warm_container

pytestmark = pytest.mark.engine

RUN = uuid.uuid4().hex[:6]
TEST_LABEL = f"io.moatbridge.test-run={RUN}"


def data_dir(home: Path) -> Path:
    return home / ".local" / "share" / "moatbridge"


def container(name: str) -> str:
    return warm_container(name, os.environ["HOME"])


def setup(name: str, *extra: str) -> None:
    result = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--name", name, *extra)
    assert result.returncode == 0, result.stderr


def host_shell(home: Path, script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A host bash with moatbridge's env sourced: cmake, make, nvcc ... are the shims."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'. "{data_dir(home)}/env"\n{script}'],
        capture_output=True, text=True, cwd=cwd, timeout=600,
    )  # fmt: skip


def which_toolchain(home: Path, cwd: Path, shim: str = "cmake") -> str:
    """Which toolchain's warm container a shim ran in, by the name `warm` left in its /tmp
    (containers run on the host network: their hostname is the host's)."""
    result = host_shell(home, f'"{shim}" -E cat /tmp/moatbridge-test-toolchain', cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def warm(home: Path, *names: str) -> None:
    """Start each toolchain's warm container and leave its name in the container's own /tmp."""
    for name in names:
        started = mb("run", "-t", name, "--", "true", cwd=home)
        assert started.returncode == 0, started.stderr
        subprocess.run(
            ["docker", "exec", container(name), "sh", "-c", f"echo {name} > /tmp/moatbridge-test-toolchain"],
            check=True, timeout=60,
        )  # fmt: skip


@pytest.fixture
def home(
    tmp_path: Path, open_devel_gfx1030: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = fresh_home(tmp_path / "home", monkeypatch)
    for key in ("ZDOTDIR", "MOATBRIDGE_TOOLCHAIN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SHELL", "/bin/bash")
    monkeypatch.setenv("MOATBRIDGE_BASE_SOURCE", "bootstrap")
    yield home
    names = [t["name"] for t in json.loads(mb("list", "--json").stdout or '{"toolchains": []}')["toolchains"]]
    mb("uninstall", "--all", "--keep-images")
    for name in names:
        subprocess.run(["docker", "rm", "-f", container(name)], capture_output=True, check=False)


@pytest.fixture
def two(home: Path) -> tuple[str, str]:
    """Two toolchains on the same image: the first is the default."""
    first, second = f"mb-{RUN}-a", f"mb-{RUN}-b"
    setup(first, "--no-modify-rc")
    setup(second, "--no-modify-rc")
    return first, second


class Terminal(PtySession):
    """A command on a real pseudo-terminal (its controlling terminal), with this test's
    environment (its HOME), read as it writes."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        super().__init__(argv, dict(os.environ), cwd)

    def send(self, keys: str, settle: float = 0) -> None:
        """Type at once: a shell and the docker CLI keep what is typed ahead."""
        super().send(keys, settle)

    def finish(self, timeout: float = 120, *, until_eof: bool = True) -> int | None:
        """Read until the terminal closes (docker exec's last output included), then reap."""
        return super().finish(timeout, until_eof=until_eof)


# --- default --------------------------------------------------------------------------------


def test_default_moves_the_dynamic_shims(home: Path, two: tuple[str, str]) -> None:
    first, second = two
    work = home / "work"
    work.mkdir()

    def defaults() -> list[tuple[str, bool]]:
        return [(t["name"], t["default"]) for t in json.loads(mb("list", "--json").stdout)["toolchains"]]

    assert defaults() == [(first, True), (second, False)]
    warm(home, first, second)
    assert which_toolchain(home, work) == first

    dry = mb("default", second, "--dry-run")
    assert (dry.returncode, dry.stdout) == (0, f"Would make {second}.\n"), dry.stderr
    assert defaults() == [(first, True), (second, False)]

    switched = mb("default", second)
    assert (switched.returncode, switched.stdout) == (0, f"Default toolchain is now {second}.\n")
    assert defaults() == [(first, False), (second, True)]
    assert (data_dir(home) / "default").read_text().splitlines()[0] == second
    assert which_toolchain(home, work) == second

    unknown = mb("default", "no-such-toolchain")
    assert unknown.returncode == 2
    assert "There is no toolchain 'no-such-toolchain'." in unknown.stderr
    assert f"installed: {first}, {second}" in unknown.stderr
    assert defaults() == [(first, False), (second, True)]  # nothing changed

    # Uninstalling the default makes the other one the default, for the shims too.
    removed = mb("uninstall", second, "--keep-images")
    assert removed.returncode == 0, removed.stderr
    assert defaults() == [(first, True)]
    assert which_toolchain(home, work) == first


# --- shell ----------------------------------------------------------------------------------


def test_shell_is_a_terminal_in_the_toolchain(home: Path, two: tuple[str, str]) -> None:
    _, second = two
    work = home / "project dir"
    work.mkdir()
    warm(home, second)
    term = Terminal([sys.executable, "-m", "moatbridge", "shell", "-t", second], work)
    term.wait_for("project dir# " if os.getuid() == 0 else "project dir$ ")  # bash's prompt, here
    term.send(
        "test -t 0 && echo stdin-is-a-tty; echo at=$PWD id=$(id -u) in=$(cat /tmp/moatbridge-test-toolchain)\r"
    )
    term.send("exit 7\r")
    term.wait_for("in=")
    code = term.finish()
    assert code == 7, term.screen[-2000:]
    assert "stdin-is-a-tty" in term.screen
    assert f"at={work} id={os.getuid()} in={second}" in term.screen


# --- pin files ------------------------------------------------------------------------------


@pytest.mark.parametrize("pin", ["{name}\n", "\n  {name}\t\r\n"])
def test_a_pin_file_selects_the_toolchain_through_a_real_shim(
    home: Path, two: tuple[str, str], pin: str
) -> None:
    first, second = two  # first is the default
    project = home / "src" / "pinned"
    deeper = project / "a" / "b"
    deeper.mkdir(parents=True)
    (project / ".moatbridge-toolchain").write_bytes(pin.format(name=second).encode())
    elsewhere = home / "src" / "unpinned"
    elsewhere.mkdir()

    warm(home, first, second)
    assert which_toolchain(home, deeper) == second
    assert which_toolchain(home, elsewhere) == first
    ran = mb("run", "--", "cat", "/tmp/moatbridge-test-toolchain", cwd=deeper)  # moatbridge's own reading
    assert (ran.returncode, ran.stdout) == (0, f"{second}\n"), ran.stderr
    # An explicit shim ignores the pin.
    assert which_toolchain(home, deeper, f"{data_dir(home)}/toolchains/{first}/bin/cmake") == first

    (project / ".moatbridge-toolchain").write_text("not-installed\n")
    refused = host_shell(home, "cmake --version", deeper)
    assert refused.returncode == 127
    assert "moatbridge: toolchain 'not-installed' is not installed." in refused.stderr
    run_refused = mb("run", "--", "true", cwd=deeper)
    assert run_refused.returncode == 2 and "There is no toolchain 'not-installed'." in run_refused.stderr


# --- Ctrl-C on a terminal ---------------------------------------------------------------------

MAKEFILE = """\
all:
\t@trap 'echo "$$(date +%s) SIGINT" > got-signal; exit 130' INT; \\
\t trap 'echo TERM > got-signal; exit 143' TERM; \\
\t echo READY; while :; do sleep 0.2; done
"""


def test_ctrl_c_typed_at_a_shim_on_a_terminal_interrupts_the_command(
    home: Path, two: tuple[str, str]
) -> None:
    first, _ = two
    project = home / "interrupt me"
    project.mkdir()
    (project / "Makefile").write_text(MAKEFILE)
    make = data_dir(home) / "cuda" / "bin" / "make"
    term = Terminal([str(make)], project)
    term.wait_for("READY")  # the recipe runs in the container; the docker CLI owns the terminal
    top = subprocess.run(["docker", "top", container(first)], capture_output=True, text=True).stdout
    assert "sleep 0.2" in top or "make" in top, top
    sent = time.monotonic()
    term.send("\x03")
    code = term.finish(timeout=30)
    assert time.monotonic() - sent < 10
    # make reports the interrupt and dies of SIGINT itself: 128 + 2 through docker exec.
    assert code == 130, (code, term.screen[-2000:])
    assert (project / "got-signal").read_text().split()[1] == "SIGINT"
    assert "^C" in term.screen  # echoed by the container's terminal: the host's is raw
    time.sleep(0.5)
    top = subprocess.run(["docker", "top", container(first)], capture_output=True, text=True).stdout
    assert "sleep 0.2" not in top, top  # nothing left running in the warm container


# --- upgrade --------------------------------------------------------------------------------


def test_upgrade_moves_the_toolchain_to_a_new_image(home: Path, tmp_path: Path) -> None:
    """Set up on the current image, then a new release of the recipe (a file added to the
    recipe directory: a new recipe digest, the engine's layer cache still good) under its own
    repository: `upgrade` builds that really different image, checks it, and switches."""
    name = f"mb-{RUN}-up"
    setup(name, "--no-modify-rc")
    before = json.loads(mb("list", "--json").stdout)["toolchains"][0]
    old_image = before["image_id"]
    work = home / "w"
    work.mkdir()
    assert mb("run", "--", "true", cwd=work).returncode == 0  # the warm container, on the old image
    assert _container_image(name) == old_image

    dangling_before = _dangling_images()
    catalog_dir = tmp_path / "catalog"
    catalog_dir.mkdir()
    shutil.copytree(REPO / "images" / "open", catalog_dir / "open")
    (catalog_dir / "open" / "RELEASE-NOTE.txt").write_text(f"upgrade {RUN}\n")  # not copied into the image
    text = (REPO / "images" / "catalog.yaml").read_text()
    repository = f"mb-upgrade-{RUN}"
    assert text.count("local_repository: moatbridge\n") == 1
    (catalog_dir / "catalog.yaml").write_text(
        text.replace("local_repository: moatbridge\n", f"local_repository: {repository}\n")
    )
    env = dict(os.environ, MOATBRIDGE_CATALOG=str(catalog_dir / "catalog.yaml"))
    new_reference = f"{repository}/open:12.4-devel-trixie-gfx1030"
    try:
        upgraded = subprocess.run(
            [sys.executable, "-m", "moatbridge", "upgrade"],
            capture_output=True,
            text=True,
            env=env,
            timeout=1800,
        )
        assert upgraded.returncode == 0, upgraded.stderr[-3000:]
        new_image = _image_id(new_reference)
        assert new_image != old_image
        assert f"{name}: upgraded to {new_reference} ({new_image[7:19]}, built)" in upgraded.stdout

        after = json.loads(mb("list", "--json").stdout)["toolchains"][0]
        assert (after["name"], after["image"], after["image_id"]) == (name, new_reference, new_image)
        env_file = (data_dir(home) / "toolchains" / name / "toolchain.env").read_text()
        assert f"MB_IMAGE='{new_image}'" in env_file
        # The next shim call replaces the warm container with one on the new image.
        assert mb("run", "--", "true", cwd=work).returncode == 0
        assert _container_image(name) == new_image
        assert _image_id("moatbridge/open:12.4-devel-trixie-gfx1030") == old_image  # still tagged, kept

        again = subprocess.run(
            [sys.executable, "-m", "moatbridge", "upgrade"],
            capture_output=True,
            text=True,
            env=env,
            timeout=1800,
        )
        assert (again.returncode, again.stdout) == (0, f"{name}: already up to date with {new_reference}\n")
    finally:
        subprocess.run(["docker", "rm", "-f", container(name)], capture_output=True, check=False)
        subprocess.run(["docker", "rmi", new_reference], capture_output=True, check=False)
        # The classic builder keeps the new build's intermediate stages as untagged images
        # (about 17 GB a run): they go with it.
        left = sorted(_dangling_images() - dangling_before)
        if left:
            subprocess.run(["docker", "rmi", *left], capture_output=True, check=False)


def _dangling_images() -> set[str]:
    listed = subprocess.run(["docker", "images", "-q", "--no-trunc", "--filter", "dangling=true"],
                            capture_output=True, text=True, check=False).stdout.split()  # fmt: skip
    return set(listed)


def _image_id(reference: str) -> str:
    result = subprocess.run(
        ["docker", "image", "inspect", "-f", "{{.Id}}", reference], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _container_image(name: str) -> str:
    result = subprocess.run(
        ["docker", "inspect", "-f", "{{.Image}}", container(name)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# --- fish -----------------------------------------------------------------------------------

BEGIN, END = b"# >>> moatbridge >>>", b"# <<< moatbridge <<<"


def _fish(script: str) -> list[str]:
    """What a fresh fish (reading ~/.config/fish, conf.d included) prints for ``script``."""
    result = subprocess.run(["fish", "-c", script], capture_output=True, text=True, timeout=60)
    return result.stdout.splitlines()


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (.ci/run installs it)")
@pytest.mark.parametrize("user_lines", [False, True])
def test_uninstall_removes_fish_activation(home: Path, user_lines: bool) -> None:
    """fish gets a conf.d file of moatbridge's own; the user's config.fish is never touched."""
    fish_dir = home / ".config" / "fish"
    (fish_dir / "conf.d").mkdir(parents=True)
    config = fish_dir / "config.fish"
    original = b"# my fish config\r\nset -gx EDITOR vim\r\nfish_add_path ~/bin"  # CRLF, no final newline
    config.write_bytes(original)
    (fish_dir / "conf.d" / "mine.fish").write_bytes(b"set -gx MINE 1\n")
    ours = fish_dir / "conf.d" / "moatbridge.fish"
    probe = 'command -s nvcc; echo "cuda=$CUDA_HOME"'
    before = _fish(probe)
    assert before[-1] == "cuda="

    setup(f"mb-{RUN}-fish", "--shell", "fish")
    block = ours.read_bytes()
    assert block.startswith(BEGIN) and block.count(BEGIN) == 1 and block.count(END) == 1
    assert config.read_bytes() == original
    shims = data_dir(home) / "cuda"
    assert _fish(probe) == [f"{shims}/bin/nvcc", f"cuda={shims}"]
    if user_lines:  # the user adds a line of their own to moatbridge's file
        ours.write_bytes(block + b"set -gx ALSO_MINE 1\n")

    gone = mb("uninstall", "--all", "--keep-images")
    assert gone.returncode == 0, gone.stderr
    assert f"{ours} (moatbridge block)" in gone.stdout
    if user_lines:
        assert ours.read_bytes() == b"set -gx ALSO_MINE 1\n"  # the block out, their line kept
    else:
        assert not ours.exists()  # created for the block alone: removed with it
    assert config.read_bytes() == original  # byte for byte, CRLFs and all
    assert (fish_dir / "conf.d" / "mine.fish").read_bytes() == b"set -gx MINE 1\n"
    assert _fish(probe) == before
    assert not data_dir(home).exists()


# --- image remove --force -------------------------------------------------------------------


@pytest.fixture
def images(engine_version: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A moatbridge-labelled image and a foreign one (tiny, imported), unique to this test."""
    created = {}
    for kind, labels in (("managed", ["io.moatbridge.managed=1"]), ("foreign", [])):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            payload = f"{kind} {RUN} {tmp_path}\n".encode()
            info = tarfile.TarInfo("data/file.txt")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
        reference = f"moatbridge-test/remove-{kind}:{RUN}"
        change = [arg for label in [*labels, TEST_LABEL] for arg in ("--change", f"LABEL {label}")]
        result = subprocess.run(
            ["docker", "import", *change, "-", reference],
            input=buffer.getvalue(),
            capture_output=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        created[kind] = reference
    yield created
    for kind, listing in (("container", ["ps", "-aq"]), ("image", ["images", "-q"])):
        found = subprocess.run(
            ["docker", *listing, "--filter", f"label={TEST_LABEL}"], capture_output=True, text=True
        ).stdout.split()
        for item in found:  # containers first: then the images they held can go too
            subprocess.run(["docker", kind, "rm", "-f", item], capture_output=True, check=False)


def _exists(reference: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", reference], capture_output=True).returncode == 0


def test_image_remove_force(images: dict[str, str]) -> None:
    managed, foreign = images["managed"], images["foreign"]
    # A stopped container still uses the managed image: the engine refuses a plain remove.
    used = subprocess.run(
        ["docker", "create", "--label", TEST_LABEL, managed, "/nothing"], capture_output=True, text=True
    )
    assert used.returncode == 0, used.stderr
    refused = mb("image", "remove", managed)
    assert refused.returncode == 1, refused.stderr
    assert f"moatbridge: The engine refused to remove {managed}:" in refused.stderr
    assert "hint: stop containers using it, or pass --force" in refused.stderr
    assert _exists(managed)

    forced = mb("image", "remove", "--force", managed, "--json")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout) == {"removed": [managed], "dry_run": False}
    assert not _exists(managed)

    # A foreign image is left alone without --force, and removed with it.
    left = mb("image", "remove", foreign)
    assert left.returncode == 1 and f"{foreign} was not made by moatbridge; it is left alone." in left.stderr
    assert _exists(foreign)
    dry = mb("image", "remove", "--force", "--dry-run", foreign)
    assert (dry.returncode, dry.stdout) == (0, f"Would remove {foreign}\n")
    assert _exists(foreign)
    removed = mb("image", "remove", "--force", foreign)
    assert (removed.returncode, removed.stdout) == (0, f"Removed {foreign}\n"), removed.stderr
    assert not _exists(foreign)
