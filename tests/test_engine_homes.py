"""Engine objects are per account, state is per MOATBRIDGE_HOME: two homes of one account
(CI jobs, two checkouts, sudo -H) must neither share a warm container nor remove an image
the other's toolchain records; and no container outlives the command that made it (a kill
between create and remove leaves one the next command sweeps).

Against the live engine with tiny imported images (tests/support/tiny_shell.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from moatbridge.paths import Paths
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import state_store

from support.environ import environ_without, paths_for
from support.tiny_shell import imported_shell_image
from support.toolchains import make_toolchain

pytestmark = pytest.mark.engine

TEST_LABEL = "io.moatbridge.test-homes=1"


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def tiny_image(tmp_path: Path, engine_version: str) -> Iterator[tuple[str, str]]:
    labels = (TEST_LABEL, "io.moatbridge.managed=1")
    with imported_shell_image(tmp_path, "moatbridge-test/homes", *labels) as image:
        yield image


def _home(tmp_path: Path, label: str, reference: str, image_id: str, name: str) -> Paths:
    paths = Paths.from_environ(
        {"MOATBRIDGE_HOME": str(tmp_path / label), "MOATBRIDGE_HOMES_DIR": os.environ["MOATBRIDGE_HOMES_DIR"]}
    )
    toolchain = make_toolchain(
        name, "open", "devel", ("gfx1030",), "12.4", reference, image_id, "open-components"
    )
    state_store(paths).write(state_store(paths).read().with_toolchain(toolchain, True))
    return paths


def _mb(paths: Paths, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = environ_without("MOATBRIDGE_", "DOCKER_")
    environ.update(MOATBRIDGE_HOME=paths.home, MOATBRIDGE_HOMES_DIR=os.environ["MOATBRIDGE_HOMES_DIR"], **env)
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          env=environ, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip


def test_two_homes_of_one_account_get_their_own_warm_container(
    tmp_path: Path, tiny_image: tuple[str, str]
) -> None:
    reference, image_id = tiny_image
    name = f"homes-{uuid.uuid4().hex[:6]}"
    first, second = (_home(tmp_path, label, reference, image_id, name) for label in ("first", "second"))
    toolchain = state_store(first).read().toolchain(name)
    ours, theirs = (runtime_for(toolchain, paths, False).container for paths in (first, second))
    assert ours != theirs
    try:
        for paths, container in ((first, ours), (second, theirs)):
            made = docker("create", "--name", container, "--label", f"io.moatbridge.toolchain={name}",
                          "--label", "io.moatbridge.managed=1", "--label", f"io.moatbridge.home={paths.engine_key}",
                          image_id, "true")  # fmt: skip
            assert made.returncode == 0, made.stderr
        gone = _mb(first, "uninstall", name, "--keep-images")
        assert gone.returncode == 0, gone.stderr
        left = docker("ps", "-a", "--format", "{{.Names}}").stdout.split()
        assert theirs in left and ours not in left, gone.stdout
    finally:
        docker("rm", "-f", ours, theirs)
        _mb(second, "uninstall", "--all", "--keep-images")


def test_uninstall_keeps_an_image_another_home_records(tmp_path: Path, tiny_image: tuple[str, str]) -> None:
    reference, image_id = tiny_image
    name = f"homes-{uuid.uuid4().hex[:6]}"
    first, second = (_home(tmp_path, label, reference, image_id, name) for label in ("first", "second"))
    gone = _mb(first, "uninstall", name, "--yes")
    assert gone.returncode == 0, gone.stderr
    assert docker("image", "inspect", image_id).returncode == 0, "the other home's image was removed"
    said = [line for line in gone.stderr.splitlines() if line.startswith("moatbridge: ")]
    assert said == [f"moatbridge: kept image {reference}: toolchain {name} of {second.home} uses it"], (
        gone.stderr
    )
    assert not Path(first.home, "state.json").exists()
    # The last home to record it removes it.
    last = _mb(second, "uninstall", name, "--yes")
    assert last.returncode == 0, last.stderr
    assert docker("image", "inspect", image_id).returncode != 0, last.stdout + last.stderr


def test_a_container_left_by_a_kill_is_swept_by_the_next_command(
    tmp_path: Path, tiny_image: tuple[str, str]
) -> None:
    """Killed between creating a container to read a file from an image and removing it."""
    _reference, image_id = tiny_image
    paths = paths_for(tmp_path / "home")
    script = ("from moatbridge.adapters import docker_api; "
              f"docker_api.read_file_from_image(docker_api.connect(), {image_id!r}, '/opt/moatbridge/bin/activate')")  # fmt: skip
    env = environ_without("MOATBRIDGE_", "DOCKER_")
    env.update(MOATBRIDGE_FAULT_AT="engine.container-created")
    killed = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = docker("ps", "-aq", "--filter", f"ancestor={image_id}").stdout.split()
    assert len(left) == 1, left
    labels = json.loads(docker("inspect", "--format", "{{json .Config.Labels}}", left[0]).stdout)
    assert labels.get("io.moatbridge.transient") == "1", labels
    listed = _mb(paths, "image", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert docker("ps", "-aq", "--filter", f"ancestor={image_id}").stdout.split() == []


def test_the_sweep_leaves_a_live_commands_container(tmp_path: Path, tiny_image: tuple[str, str]) -> None:
    """A command still working in its container (owner alive) keeps it."""
    from moatbridge.adapters import containers, docker_api

    _reference, image_id = tiny_image
    client = docker_api.connect()
    made = client.create_container(image=image_id, command=["true"], labels=containers.transient_labels())
    try:
        paths = paths_for(tmp_path / "home")
        assert _mb(paths, "image", "list", "--json").returncode == 0
        assert containers.inspect_container(client, made["Id"]) is not None
    finally:
        containers.remove_container(client, made["Id"])


def test_image_remove_leaves_an_image_a_toolchain_records(
    tmp_path: Path, tiny_image: tuple[str, str]
) -> None:
    """Another home's toolchain (or this home's) records it: refused without --force."""
    reference, image_id = tiny_image
    name = f"homes-{uuid.uuid4().hex[:6]}"
    other = _home(tmp_path, "other", reference, image_id, name)
    here = paths_for(tmp_path / "here")
    try:
        refused = _mb(here, "image", "remove", reference)
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.splitlines()[0] == (
            f"moatbridge: {reference} is still in use (toolchain {name} of {other.home} uses it); it is left alone."
        )
        assert docker("image", "inspect", image_id).returncode == 0
        mine = _mb(other, "image", "remove", reference)
        assert mine.returncode == 1 and f"(toolchain {name} uses it)" in mine.stderr, mine.stderr
        forced = _mb(here, "image", "remove", reference, "--force")
        assert forced.returncode == 0, forced.stderr
    finally:
        _mb(other, "uninstall", "--all", "--keep-images")


def test_the_sweep_leaves_containers_of_an_image_that_carries_its_labels(
    tmp_path: Path, tiny_image: tuple[str, str]
) -> None:
    """A bundle's image may carry moatbridge's transient labels itself: a container the user
    runs from it inherits them and is still the user's."""
    import socket

    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    owner = f"{socket.gethostname()}/{boot}/999999999/1"  # a process that cannot exist
    labels = (TEST_LABEL, "io.moatbridge.transient=1", f"io.moatbridge.owner={owner}")
    with imported_shell_image(tmp_path, "moatbridge-test/homes-labelled", *labels) as (_reference, image_id):
        container = docker("create", image_id, "true").stdout.strip()
        paths = paths_for(tmp_path / "home")
        assert _mb(paths, "image", "list", "--json").returncode == 0
        assert docker("inspect", container).returncode == 0, "the user's container was swept"
