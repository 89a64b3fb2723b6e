"""The fault matrix: each fault injected for real, the same invariants checked after it.

Faults: kill -9 at named points of setup, upgrade, uninstall and bundle load (the points
are in the code: `faults.point(...)`, listed by a run with MOATBRIDGE_FAULT_LIST) and between
an engine object's creation and its completion; a second engine stopped mid-pull and
mid-build, then restarted, and restarted under a running warm container; a registry
answering 5xx, resetting connections and stalling; a full disk under the data directory and
under the engine; damaged state, answers and toolchain files; races (two setups, setup
against uninstall, two shims starting the warm container, two HOMEs of one account at once);
Ctrl-C on a real pty (every wizard step, after Proceed, a shim running make with and without
a TTY, image build, bundle load).

Invariants after each fault: `list` and `doctor` answer without a traceback, the state is
readable JSON (never set aside), every rc file is byte-identical or carries exactly one
intact block, no container is left for a toolchain the state does not know, no crash
report; and the next setup or uninstall completes, leaving no temp file, no container and
rc files byte-identical. Every fault is counted; the totals go to $MOATBRIDGE_FAULT_SUMMARY
(default .pytest_cache/fault-matrix.json), which .ci/run prints.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from moatbridge.core import rc_block
from moatbridge.paths import Paths

from support.environ import environ_without
from support.pty_session import PtySession
from support.registry import Misbehaviour, misbehaving_proxy, run_registry
from support.tiny_shell import shell_rootfs
from support.toolchains import make_toolchain, warm_container

pytestmark = pytest.mark.engine

REPO = Path(__file__).resolve().parent.parent
TEST_LABEL = "io.moatbridge.test-fault=1"
BASHRC = b"# my bashrc\nexport A=1"  # no final newline
ZSHRC = b"export Z=1\r\nalias ll='ls -l'\r\n"  # CRLF
CTRL_C = "\x03"
RESULTS: list[dict[str, Any]] = []
FAULT_ENV = ("MOATBRIDGE_FAULT_AT", "MOATBRIDGE_FAULT_LIST", "MOATBRIDGE_FAULT_ACTION")


def record(family: str, fault: str, problems: list[str]) -> list[str]:
    RESULTS.append({"family": family, "fault": fault, "survived": not problems, "problems": problems})
    return [f"{family} / {fault}: {p}" for p in problems]


@pytest.fixture(scope="module", autouse=True)
def summary(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    path = Path(os.environ.get("MOATBRIDGE_FAULT_SUMMARY") or REPO / ".pytest_cache" / "fault-matrix.json")
    previous = json.loads(path.read_text())["faults"] if path.exists() else []
    faults = [f for f in previous if f["family"] not in {r["family"] for r in RESULTS}] + RESULTS
    families: dict[str, list[int]] = {}
    for fault in faults:
        counts = families.setdefault(fault["family"], [0, 0])
        counts[0] += 1
        counts[1] += bool(fault["survived"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "injected": len(faults), "survived": sum(f["survived"] for f in faults),
        "families": {k: {"injected": v[0], "survived": v[1]} for k, v in sorted(families.items())},
        "faults": faults,
    }, indent=1) + "\n")  # fmt: skip
    terminal = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if terminal is not None:
        survived = sum(r["survived"] for r in RESULTS)
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            terminal.write_line(
                f"\nfault matrix: {len(RESULTS)} faults injected, {survived} survived ({path})"
            )


def docker(*args: str, host: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("DOCKER_HOST", None)
    if host:
        env["DOCKER_HOST"] = host
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, env=env)


def clean(result: subprocess.CompletedProcess[str], what: str, codes: tuple[int, ...]) -> list[str]:
    """A command's result as problems: an unexpected exit status, a traceback, an internal error."""
    problems = []
    if result.returncode not in codes:
        problems.append(f"{what} exited {result.returncode}: {(result.stderr or '')[-600:]}")
    if "Traceback" in (result.stderr or "") or "internal error" in (result.stderr or ""):
        problems.append(f"{what} crashed: {result.stderr[-800:]}")
    return problems


class World:
    """A throwaway HOME (rc files of its own) and one uniquely named toolchain."""

    def __init__(self, root: Path, tag: str) -> None:
        self.name = f"fm-{tag}-{uuid.uuid4().hex[:6]}"
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.rcs = {self.home / ".bashrc": BASHRC, self.home / ".zshrc": ZSHRC}
        for path, data in self.rcs.items():
            path.write_bytes(data)
        self.data = self.home / ".local" / "share" / "moatbridge"
        self.state_dir = self.home / ".local" / "state" / "moatbridge"
        self.work = self.home / "work"
        self.work.mkdir()
        self.env = environ_without("MOATBRIDGE_", "XDG_")
        self.env.pop("ZDOTDIR", None)
        self.env.pop("DOCKER_HOST", None)
        self.env.update(HOME=str(self.home), SHELL="/bin/bash", COLUMNS="120")
        # The worlds of one test are homes of one account: they meet in one registry of homes.
        self.env["MOATBRIDGE_HOMES_DIR"] = str(root.parent / "account-homes")

    @property
    def container(self) -> str:
        return warm_container(self.name, self.home)

    @property
    def home_key(self) -> str:
        return Paths(str(self.data), str(self.state_dir)).engine_key

    def setup_args(self, *extra: str) -> list[str]:
        return ["setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--name", self.name,
                "--shell", "bash", "--shell", "zsh", *extra]  # fmt: skip

    def mb(
        self, *args: str, fault: str | None = None, listing: Path | None = None, timeout: float = 600,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        environ = dict(self.env, **(env or {}))
        if fault:
            environ["MOATBRIDGE_FAULT_AT"] = fault
        if listing:
            environ["MOATBRIDGE_FAULT_LIST"] = str(listing)
        return subprocess.run(
            [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, errors="replace", env=environ,
            cwd=self.work, timeout=timeout,
        )  # fmt: skip

    def shim(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.data / "cuda" / "bin" / tool), *args], capture_output=True, text=True, errors="replace",
            env=self.env, cwd=self.work, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def state(self) -> dict[str, Any] | None:
        path = self.data / "state.json"
        return json.loads(path.read_text()) if path.exists() else None

    def toolchain_names(self) -> list[str]:
        state = self.state()
        return [t["name"] for t in (state or {}).get("toolchains", [])]

    def containers(self) -> list[str]:
        """This home's containers of the toolchain (another home's of the same name are theirs)."""
        found = docker("ps", "-aq", "--filter", f"label=io.moatbridge.toolchain={self.name}",
                       "--filter", f"label=io.moatbridge.home={self.home_key}")  # fmt: skip
        return found.stdout.split()

    def temps(self) -> list[str]:
        return [str(p) for p in self.home.rglob("*moatbridge-tmp*")]

    def rc_problems(self, block_allowed: bool = True) -> list[str]:
        problems = []
        for path, before in self.rcs.items():
            data = path.read_bytes() if path.exists() else b""
            if data == before:
                continue
            if not block_allowed:
                problems.append(f"{path.name} is not byte-identical: {data!r}")
                continue
            try:
                restored = rc_block.remove(data, str(path))
            except Exception as error:  # noqa: BLE001 - any failure is the finding
                problems.append(f"{path.name} has a damaged block ({error}): {data!r}")
                continue
            if restored != before or data.count(rc_block.BEGIN) != 1:
                problems.append(f"{path.name} is not the original plus one intact block: {data!r}")
        return problems

    def invariants(self, rc_files: bool = True) -> list[str]:
        """What must hold at any moment, however the last command ended."""
        problems = []
        listed = self.mb("list", "--json", timeout=120)
        problems += clean(listed, "list", (0,))
        with contextlib.suppress(ValueError):
            json.loads(listed.stdout)
        doctor = self.mb("doctor", "--json", timeout=120)
        problems += clean(doctor, "doctor", (0, 1))
        try:
            names = self.toolchain_names()
        except ValueError as error:
            problems.append(f"state.json is not JSON: {error}")
            names = []
        for aside in [*self.data.glob("*.corrupt"), *self.data.glob("*.unreadable")]:
            problems.append(f"the state was set aside as unreadable: {aside.name}")
            aside.unlink()
        problems += self.rc_problems() if rc_files else []
        if self.containers() and self.name not in names:
            problems.append(f"orphaned container {self.container} (toolchain not recorded)")
        crashes = list(self.state_dir.glob("crash-*")) + list(self.data.rglob("crash-*"))
        problems += [f"crash report {c}: {c.read_text()[-800:]}" for c in crashes]
        for crash in crashes:  # each one reported once
            crash.unlink()
        return problems

    def uninstalled(self, codes: tuple[int, ...] = (0,), backups: int = 0) -> list[str]:
        """The next uninstall completes and leaves nothing of moatbridge's behind but the
        `backups` copies of an unusable state file it promised to keep."""
        problems = clean(self.mb("uninstall", "--all", "--keep-images"), "uninstall", codes)
        problems += self.rc_problems(block_allowed=False)
        kept_backups = sorted(self.data.glob("state.json.unreadable-*"))
        if len(kept_backups) != backups:
            problems.append(f"{len(kept_backups)} backups of the state kept, not {backups}")
        kept = {*self.rcs, self.state_dir / "state.lock", *kept_backups}  # the lock file stays, by design
        left = [
            p for p in self.home.rglob("*") if not p.is_dir() and p not in kept and self.work not in p.parents
        ]
        problems += [f"left after uninstall: {p}" for p in left]
        if self.containers():
            problems.append(f"container {self.container} left after uninstall")
            docker("rm", "-f", self.container)
        for backup in kept_backups:
            backup.unlink()
        return problems

    def set_up(self) -> list[str]:
        """The next setup completes: recorded, one block per rc file, no temp file left."""
        problems = clean(self.mb(*self.setup_args()), "setup", (0,))
        if self.name not in self.toolchain_names():
            problems.append("setup did not record the toolchain")
        problems += [f"rc file without exactly one block: {p}" for p in self.rcs
                     if p.read_bytes().count(rc_block.BEGIN) != 1]  # fmt: skip
        problems += [f"temp file left: {p}" for p in self.temps()]
        return problems

    def close(self) -> None:
        if self.containers():
            docker("rm", "-f", self.container)


@pytest.fixture
def world(
    tmp_path: Path, open_devel_gfx1030: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[World]:
    made = World(tmp_path, request.node.name[5:17].replace("_", "-").strip("-").lower())
    yield made
    made.close()


@dataclass
class Point:
    name: str
    nth: int
    detail: str

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.nth}"

    def __str__(self) -> str:
        where = self.detail.rsplit("/", 2)[-2:] if "/" in self.detail else [self.detail]
        return f"{self.spec} ({'/'.join(where)})" if self.detail else self.spec


def points_of(listing: Path) -> list[Point]:
    seen: dict[str, int] = {}
    found = []
    for line in listing.read_text().splitlines():
        name, _, detail = line.partition("\t")
        seen[name] = seen.get(name, 0) + 1
        found.append(Point(name, seen[name], detail))
    listing.unlink()
    return found


def pick(points: list[Point], writes: tuple[str, ...], renames: tuple[str, ...] = ()) -> list[Point]:
    """Every named step, plus the writes (temp complete, not yet renamed) of the files named."""
    chosen = [p for p in points if not p.name.startswith(("write.", "remove."))]
    for suffixes, kind in ((writes, "write.temp-complete"), (renames, "write.renamed")):
        for suffix in suffixes:
            match = next((p for p in points if p.name == kind and p.detail.endswith(suffix)), None)
            if match is not None:
                chosen.append(match)
    return sorted(chosen, key=points.index)


def kill_at(world: World, args: list[str], point: Point) -> list[str]:
    result = world.mb(*args, fault=point.spec)
    if result.returncode != -signal.SIGKILL:
        return [f"the point was not reached (exit {result.returncode}): {result.stderr[-400:]}"]
    return []


# --- kill -9 at every step ----------------------------------------------------------------------


def test_kill_during_setup(world: World, tmp_path: Path) -> None:
    listing = tmp_path / "points"
    assert world.mb(*world.setup_args(), listing=listing).returncode == 0
    points = pick(
        points_of(listing),
        writes=("moatbridge-exec", "toolchain.env", "cuda/bin/nvcc", "/default", "env.fish", ".bashrc", ".zshrc",
                "state.json", "answers.yaml"),
        renames=(".bashrc",),
    )  # fmt: skip
    assert len(points) >= 15, points
    assert not world.uninstalled()
    failures = []
    for index, point in enumerate(points):
        problems = kill_at(world, world.setup_args(), point)
        problems += world.invariants()
        if index % 3 == 0:  # the next setup repairs; else the next uninstall does
            problems += world.set_up()
        problems += world.uninstalled()
        failures += record("kill -9: setup", str(point), problems)
    assert not failures, "\n".join(failures)


def test_kill_during_an_in_place_rc_rewrite(world: World, tmp_path: Path) -> None:
    """A hard-linked rc file (a dotfiles checkout) is rewritten in place, not renamed over:
    killed between the write and the truncate, the next run puts the old bytes back."""
    link = world.work / "dotfiles-bashrc"
    os.link(world.home / ".bashrc", link)
    failures = []
    for command in (world.setup_args(), ["uninstall", "--all", "--keep-images"]):
        if command[0] == "uninstall":
            assert not world.set_up()
        problems = kill_at(world, command, Point("write.in-place-written", 1, ".bashrc"))
        # Shrinking (uninstall) leaves the new bytes and the old tail until the next run.
        problems += world.invariants(rc_files=command[0] == "setup")
        if command[0] == "setup":
            problems += world.set_up()
        problems += world.uninstalled()
        if link.read_bytes() != BASHRC or (world.home / ".bashrc").stat().st_nlink != 2:
            problems.append("the hard link was split or left different")
        failures += record(
            "kill -9: rc rewrite in place", f"{command[0]} at write.in-place-written", problems
        )
    assert not failures, "\n".join(failures)


def tiny_rootfs(path: Path, size: int = 64 * 1024) -> Path:
    with tarfile.open(path, "w") as tar:
        payload = os.urandom(size)  # a new image ID every time
        info = tarfile.TarInfo("data/blob.bin")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    return path


def import_tiny(
    tmp_path: Path,
    reference: str,
    *labels: str,
    host: str | None = None,
    size: int = 65536,
    shell: bool = False,
) -> str:
    """A tiny image: random bytes, or (``shell``) a shell, sleep and a stand-in nvcc, enough
    for a warm container and the shims."""
    where = tmp_path / f"rootfs-{uuid.uuid4().hex[:6]}.tar"
    rootfs = shell_rootfs(where) if shell else tiny_rootfs(where, size)
    changes = [arg for label in (TEST_LABEL, "io.moatbridge.managed=1", *labels)
               for arg in ("--change", f"LABEL {label}")]  # fmt: skip
    result = docker("import", *changes, str(rootfs), reference, host=host)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def cleanup_test_images() -> Iterator[None]:
    yield
    for image in docker("images", "-q", "--filter", f"label={TEST_LABEL}").stdout.split():
        docker("rmi", "-f", image)


def all_image_ids() -> set[str]:
    return set(docker("images", "--all", "--quiet", "--no-trunc").stdout.split())


def remove_untagged_since(before: set[str]) -> None:
    """Remove the untagged layer images an interrupted --no-cache build left. The classic builder
    takes the newest matching child as the cache, so its partial chain (the ARG steps before the
    package install) would make every later build of the suite reinstall the packages and copy
    the whole tree again (~20 GB each), instead of using the cache the suite built."""

    def untagged_since() -> list[str]:
        def untagged(image: str) -> bool:
            return docker("image", "inspect", "--format", "{{len .RepoTags}}", image).stdout.strip() == "0"

        return [image for image in all_image_ids() - before if untagged(image)]

    # rmi refuses a parent while it has a child, and removes untagged parents with the last
    # child: one pass over the new untagged images takes the whole chain
    for image in untagged_since():
        docker("rmi", image)
    left = untagged_since()
    assert not left, f"the interrupted build's layer images could not be removed: {left}"


def point_state_at(world: World, image_id: str) -> None:
    """As if the toolchain were set up from an older image: upgrade has real work to do."""
    path = world.data / "state.json"
    state = json.loads(path.read_text())
    for toolchain in state["toolchains"]:
        toolchain["image_id"] = image_id
    path.write_text(json.dumps(state))


def test_kill_during_upgrade(world: World, tmp_path: Path, cleanup_test_images: None) -> None:
    assert not world.set_up()
    current = world.state()["toolchains"][0]["image_id"]  # type: ignore[index]
    old = import_tiny(tmp_path, f"moatbridge-fault/old:{world.name}")
    point_state_at(world, old)
    listing = tmp_path / "points"
    upgraded = world.mb("upgrade", listing=listing)
    assert upgraded.returncode == 0 and "upgraded to" in upgraded.stdout, upgraded.stderr
    points = pick(points_of(listing), writes=("toolchain.env", "cuda/bin/nvcc", "state.json"))
    assert len(points) >= 6, points
    failures = []
    for point in points:
        point_state_at(world, import_tiny(tmp_path, f"moatbridge-fault/old:{world.name}"))
        problems = kill_at(world, ["upgrade"], point)
        problems += world.invariants()
        again = world.mb("upgrade")
        problems += clean(again, "the next upgrade", (0,))
        if world.state()["toolchains"][0]["image_id"] != current:  # type: ignore[index]
            problems.append("the next upgrade did not move the toolchain to the new image")
        problems += [f"temp file left: {p}" for p in world.temps()]
        failures += record("kill -9: upgrade", str(point), problems)
    failures += record("kill -9: upgrade", "(final uninstall)", world.uninstalled())
    assert not failures, "\n".join(failures)


def test_kill_during_uninstall(world: World, tmp_path: Path) -> None:
    def prepared() -> list[str]:
        problems = world.set_up()
        problems += clean(world.shim("nvcc", "--version"), "nvcc shim (warm container start)", (0,))
        if not world.containers():
            problems.append("no warm container before uninstall")
        return problems

    assert not prepared()
    listing = tmp_path / "points"
    assert world.mb("uninstall", "--all", "--keep-images", listing=listing).returncode == 0
    every = points_of(listing)
    removals = [p for p in every if p.name == "remove.before-unlink"]
    points = pick(every, writes=(".bashrc", ".zshrc"))
    points += [removals[0], removals[len(removals) // 2], removals[-1]]
    points.sort(key=every.index)
    assert len(points) >= 8, points
    failures = []
    for point in points:
        problems = prepared()
        problems += kill_at(world, ["uninstall", "--all", "--keep-images"], point)
        problems += world.invariants()
        problems += world.uninstalled()
        failures += record("kill -9: uninstall", str(point), problems)
    assert not failures, "\n".join(failures)


def tiny_bundle(
    tmp_path: Path, name: str, shell: bool = False, host: str | None = None
) -> tuple[Path, str, str]:
    """A bundle as `bundle save` writes it, of a tiny image with the open flavour's labels."""
    from moatbridge.adapters import bundle_archive
    from moatbridge.adapters.records import load_catalog, load_licences
    from moatbridge.core.bundle import build_manifest

    reference = f"moatbridge/open:fault-bundle-{name}"  # moatbridge's own repository: load tags it
    image_id = import_tiny(tmp_path, reference, "io.moatbridge.flavour=open",
                           "io.moatbridge.licence=open-components", size=3 << 20, shell=shell, host=host)  # fmt: skip
    saved = tmp_path / "image.tar"
    assert docker("save", "-o", str(saved), image_id, host=host).returncode == 0
    toolchain = make_toolchain(name, "open", "base", ("gfx1030",), "12.4", reference, image_id, "open-components",
                          None, "2026-01-01T00:00:00+00:00")  # fmt: skip
    manifest = build_manifest(toolchain, load_catalog().flavour("open"), load_licences(), "0.1.0",
                              "2026-01-01T00:00:00+00:00")  # fmt: skip

    def chunks() -> Iterator[bytes]:
        with saved.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                yield chunk

    path = tmp_path / f"{name}.bundle"
    bundle_archive.write_bundle(path, manifest.to_bytes(), chunks(), force=True)
    docker("rmi", "-f", image_id, host=host)
    return path, reference, image_id


def test_kill_during_bundle_load(world: World, tmp_path: Path, cleanup_test_images: None) -> None:
    path, _reference, image_id = tiny_bundle(tmp_path, world.name)
    listing = tmp_path / "points"
    loaded = world.mb("bundle", "load", str(path), listing=listing)
    assert loaded.returncode == 0, loaded.stderr
    points = pick(points_of(listing), writes=("toolchain.env", "cuda/bin/nvcc", "state.json"))
    assert any(p.name == "bundle.image-chunk-sent" for p in points), points
    assert len(points) >= 7, points
    assert not world.uninstalled()
    failures = []
    for point in points:
        docker("rmi", "-f", image_id)
        problems = kill_at(world, ["bundle", "load", str(path)], point)
        problems += world.invariants()
        problems += clean(world.mb("bundle", "load", str(path)), "the next bundle load", (0,))
        if world.toolchain_names() != [world.name]:
            problems.append(f"the next load did not register the toolchain: {world.toolchain_names()}")
        problems += world.uninstalled()
        failures += record("kill -9: bundle load", str(point), problems)
    assert not failures, "\n".join(failures)


def test_kill_during_each_engine_call(tmp_path: Path, engine_version: str, cleanup_test_images: None) -> None:
    """kill -9 between an engine object's creation and what completes it: the warm container
    created but not started, started but not recorded, and a look into an image (a container
    made to copy a file out) before it was removed. The next command repairs or sweeps."""
    world = World(tmp_path / "engine-calls", "engine-calls")
    path, _reference, image_id = tiny_bundle(tmp_path, world.name, shell=True)
    failures = []
    try:
        assert world.mb("bundle", "load", str(path)).returncode == 0
        for point in ("warm.created", "warm.started"):
            world.close()  # no warm container yet: the shim starts one
            killed = subprocess.run(
                [str(world.data / "cuda" / "bin" / "nvcc"), "--version"], capture_output=True, text=True,
                env=dict(world.env, MOATBRIDGE_FAULT_AT=point), cwd=world.work, timeout=300, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            problems = (
                [] if killed.returncode == 127 else [f"the point was not reached: {killed.stderr[-400:]}"]
            )
            problems += world.invariants()
            after = world.shim("nvcc", "--version")
            problems += clean(after, "the next shim", (0,))
            if "Cuda compilation tools" not in after.stdout:
                problems.append(f"the next shim did not run nvcc: {after.stdout[-300:]}")
            if len(world.containers()) != 1:
                problems.append(f"{len(world.containers())} warm containers after the kill, not 1")
            failures += record("kill -9: engine calls", f"shim's warm start at {point}", problems)
        script = ("from moatbridge.adapters import docker_api; "
                  f"docker_api.read_file_from_image(docker_api.connect(), {image_id!r}, '/opt/moatbridge/bin/activate')")  # fmt: skip
        killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                                env=dict(world.env, MOATBRIDGE_FAULT_AT="engine.container-created"))  # fmt: skip
        problems = (
            []
            if killed.returncode == -signal.SIGKILL
            else [f"the point was not reached: {killed.stderr[-400:]}"]
        )
        problems += clean(world.mb("image", "list", "--json"), "the next command", (0,))
        transient = docker(
            "ps", "-aq", "--filter", "label=io.moatbridge.transient=1", "--filter", f"ancestor={image_id}"
        )
        problems += [
            f"container left by the killed look into the image: {c}" for c in transient.stdout.split()
        ]
        problems += world.invariants()
        failures += record(
            "kill -9: engine calls", "reading a file from an image at engine.container-created", problems
        )
        failures += record("kill -9: engine calls", "(final uninstall)", world.uninstalled())
    finally:
        world.close()
    assert not failures, "\n".join(failures)


# --- races -----------------------------------------------------------------------------------------


def started(world: World, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "moatbridge", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=world.env, cwd=world.work,
    )  # fmt: skip


def finished(process: subprocess.Popen[str], what: str, codes: tuple[int, ...] = (0,)) -> list[str]:
    out, err = process.communicate(timeout=600)
    return clean(subprocess.CompletedProcess(process.args, process.returncode, out, err), what, codes)


def test_races(world: World) -> None:
    failures = []
    first, second = started(world, *world.setup_args()), started(world, *world.setup_args())
    problems = finished(first, "first setup") + finished(second, "second setup")
    problems += world.invariants()
    if world.toolchain_names() != [world.name]:
        problems.append(f"state after two setups: {world.toolchain_names()}")
    failures += record("races", "two setups at once", problems + world.uninstalled())

    lock = world.state_dir / "state.lock"
    inode = lock.stat().st_ino if lock.exists() else None
    setup, uninstall = (
        started(world, *world.setup_args()),
        started(world, "uninstall", "--all", "--keep-images"),
    )
    problems = finished(setup, "setup") + finished(uninstall, "uninstall racing it")
    problems += world.invariants()
    if inode is None or not lock.exists() or lock.stat().st_ino != inode:
        problems.append("the lock file was removed or replaced: a waiter could lock a file nobody else sees")
    failures += record("races", "setup and uninstall at once", problems + world.uninstalled())

    problems = world.set_up()
    shims = [
        subprocess.Popen(
            [str(world.data / "cuda" / "bin" / "nvcc"), "--version"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=world.env,
            cwd=world.work,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(3)
    ]
    for index, shim in enumerate(shims):
        out, err = shim.communicate(timeout=300)
        if shim.returncode != 0 or "Cuda compilation tools" not in out:
            problems.append(f"shim {index} racing the warm start exited {shim.returncode}: {err[-600:]}")
    if len(world.containers()) != 1:
        problems.append(f"{len(world.containers())} warm containers after the race, not 1")
    problems += world.invariants()
    failures += record("races", "three shims starting the warm container", problems + world.uninstalled())
    assert not failures, "\n".join(failures)


def test_two_homes_at_once(tmp_path: Path, engine_version: str, cleanup_test_images: None) -> None:
    """Two HOMEs of one account (CI jobs, two checkouts) with a toolchain of the same name on
    the same image: each keeps its own warm container, a command running in one survives the
    other's warm start, and one home's uninstall --yes leaves what the other still uses."""
    first = World(tmp_path / "first", "two-homes")
    second = World(tmp_path / "second", "two-homes")
    second.name = first.name
    path, _reference, image_id = tiny_bundle(tmp_path, first.name, shell=True)
    try:
        problems = []
        for world in (first, second):
            problems += clean(world.mb("bundle", "load", str(path)), "bundle load", (0,))
        problems += clean(second.shim("nvcc", "--version"), "the second home's shim", (0,))
        running = subprocess.Popen(
            [str(second.data / "cuda" / "bin" / "mbrun"), "sleep", "8"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=second.env, cwd=second.work, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(2)
        problems += clean(first.shim("nvcc", "--version"), "the first home's shim", (0,))
        _out, err = running.communicate(timeout=300)
        if running.returncode != 0:
            problems.append(
                f"the second home's command was cut off (exit {running.returncode}): {err[-400:]}"
            )
        for world in (first, second):
            if len(world.containers()) != 1:
                problems.append(f"{len(world.containers())} warm containers of {world.home}, not 1")
            problems += world.invariants()
        gone = first.mb("uninstall", "--all", "--yes")
        problems += clean(gone, "the first home's uninstall --yes", (0,))
        if docker("image", "inspect", image_id).returncode != 0:
            problems.append("the first home's uninstall removed the image the second home records")
        if len(second.containers()) != 1:
            problems.append("the first home's uninstall removed the second home's warm container")
        problems += first.uninstalled()
        after = second.shim("nvcc", "--version")
        problems += clean(after, "the second home's shim after the first's uninstall", (0,))
        problems += second.invariants()
        problems += second.uninstalled()
        failures = record("races", "two HOMEs of one account at once", problems)
    finally:
        first.close()
        second.close()
    assert not failures, "\n".join(failures)


# --- Ctrl-C on a real terminal -------------------------------------------------------------------------

DOWN, ENTER = "\x1b[B", "\r"


class Terminal(PtySession):
    """A command on a real pseudo-terminal (its own session: Ctrl-C reaches its process group)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(argv, dict(env, COLUMNS="120", LINES="40", TERM="xterm"), cwd, rows=40, columns=120)


def moatbridge_on_terminal(world: World, *args: str, env: dict[str, str] | None = None) -> Terminal:
    return Terminal([sys.executable, "-m", "moatbridge", *args], dict(world.env, **(env or {})), world.work)


WIZARD = [  # (prompt, keys answering it) in the order the open flavour's wizard asks
    ("Flavour:", ENTER),
    ("Targets to build for", None),  # gfx1030, typed into the picker's filter
    ("Stack:", ENTER),
    ("CUDA version to mimic", ENTER),
    ("Shells to set up", ENTER),
    ("Add moatbridge to their rc files?", ENTER),
    ("Proceed?", ENTER),
]
SCALE_WIZARD = [  # the prompts only the scale flavour asks (commercial: offered the open flavour)
    ("Flavour:", DOWN + ENTER),
    ("How will you use SCALE?", DOWN + ENTER),
    ("or use the open flavour instead?", "n"),  # a confirm takes y/n without Enter
    ("Do you accept the", ENTER),
]


def _targets_keys() -> str:
    return "gfx1030" + ENTER


def interrupted(term: Terminal, what: str) -> list[str]:
    term.send(CTRL_C)
    code = term.finish()
    problems = [] if code == 130 else [f"{what}: exit {code} after Ctrl-C, not 130: {term.screen[-600:]}"]
    if "Traceback" in term.screen:
        problems.append(f"{what}: traceback: {term.screen[-1200:]}")
    return problems


def test_ctrl_c_in_the_wizard_at_every_step(world: World) -> None:
    failures = []
    steps = [(WIZARD, step) for step in range(len(WIZARD))]
    steps += [(SCALE_WIZARD, step) for step in range(1, len(SCALE_WIZARD))]
    for wizard, step in steps:
        prompt = wizard[step][0]
        term = moatbridge_on_terminal(world, "setup", "--name", world.name)
        problems = []
        for earlier, keys in wizard[:step]:
            if not term.appears(earlier):
                problems.append(f"{earlier!r} never appeared: {term.screen[-800:]}")
                break
            term.send(keys or _targets_keys())
        if not problems and not term.appears(prompt):
            problems.append(f"{prompt!r} never appeared: {term.screen[-800:]}")
        problems += interrupted(term, f"Ctrl-C at {prompt!r}")
        problems += world.invariants() + world.rc_problems(block_allowed=False)
        if world.data.exists():
            problems.append(f"Ctrl-C before Proceed wrote {sorted(map(str, world.data.rglob('*')))}")
        failures += record("Ctrl-C", f"wizard at {prompt!r}", problems)
    # After Proceed, while setup works: at its named steps (the wizard paused there for the key).
    for point in ("setup.verified", "setup.rc-edited"):
        term = moatbridge_on_terminal(world, "setup", "--name", world.name,
                                      env={"MOATBRIDGE_FAULT_AT": point, "MOATBRIDGE_FAULT_ACTION": "wait"})  # fmt: skip
        problems = []
        for prompt, keys in WIZARD:
            if not term.appears(prompt):
                problems.append(f"{prompt!r} never appeared: {term.screen[-800:]}")
                break
            term.send(keys or _targets_keys())
        if not problems and not term.appears(f"waiting at {point}"):
            problems.append(f"setup never reached {point}: {term.screen[-800:]}")
        problems += interrupted(term, f"Ctrl-C at {point}")
        problems += world.invariants()
        problems += world.uninstalled()
        failures += record("Ctrl-C", f"wizard after Proceed, at {point}", problems)
    assert not failures, "\n".join(failures)


def in_container(world: World, text: str) -> bool:
    top = docker("top", world.container, "-eo", "pid,args")
    return text in top.stdout


def test_ctrl_c_of_a_shim_running_make(world: World) -> None:
    failures = []
    problems = clean(world.mb(*world.setup_args("--no-modify-rc")), "setup", (0,))
    (world.work / "Makefile").write_text("all:\n\tsleep 47\n")
    make = world.data / "cuda" / "bin" / "make"
    for path, command in (("TTY", f"'{make}'"), ("no-TTY", f"'{make}' 2>&1 | cat")):
        term = Terminal(["sh", "-c", f"{command}; echo exit=$?"], world.env, world.work)
        deadline = time.monotonic() + 120
        while not in_container(world, "sleep 47") and time.monotonic() < deadline:
            term.read(0.5)
        if not in_container(world, "sleep 47"):
            problems.append(f"{path}: make never started in the container: {term.screen[-600:]}")
        term.send(CTRL_C)
        stopped = time.monotonic()
        code = term.finish(timeout=30)
        if code is None or time.monotonic() - stopped > 20:
            problems.append(f"{path}: the shim did not stop after Ctrl-C: {term.screen[-600:]}")
        time.sleep(1)
        if in_container(world, "sleep 47"):
            problems.append(f"{path}: the command kept running in the container after Ctrl-C")
        if "exit=0" in term.screen:
            problems.append(f"{path}: an interrupted make reported success: {term.screen[-400:]}")
        problems += world.invariants()
        failures += record("Ctrl-C", f"shim running make ({path} path)", problems)
        problems = []
    failures += record("Ctrl-C", "(after the shims: uninstall)", world.uninstalled())
    assert not failures, "\n".join(failures)


def test_ctrl_c_of_image_build_and_bundle_load(
    world: World, tmp_path: Path, cleanup_test_images: None
) -> None:
    failures = []
    before = docker("image", "inspect", "--format", "{{.Id}}", "moatbridge/open:12.4-devel-trixie-gfx1030")
    images_before = all_image_ids()
    term = moatbridge_on_terminal(world, "image", "build", "--flavour", "open", "--target", "gfx1030",
                                  "--base", "bootstrap", "--no-cache",
                                  env={"MOATBRIDGE_FAULT_AT": "engine.build-event:3", "MOATBRIDGE_FAULT_ACTION": "wait"})  # fmt: skip
    problems = (
        [] if term.appears("waiting at engine.build-event", 300) else [f"no build: {term.screen[-800:]}"]
    )
    problems += interrupted(term, "Ctrl-C of image build")
    after = docker("image", "inspect", "--format", "{{.Id}}", "moatbridge/open:12.4-devel-trixie-gfx1030")
    if after.stdout != before.stdout:
        problems.append(f"the interrupted build changed the image tag: {before.stdout} -> {after.stdout}")
    problems += clean(world.mb("image", "list", "--json"), "image list", (0,))
    problems += world.invariants()
    failures += record("Ctrl-C", "image build", problems)
    remove_untagged_since(images_before)

    path, _, _ = tiny_bundle(tmp_path, world.name)
    term = moatbridge_on_terminal(world, "bundle", "load", str(path),
                                  env={"MOATBRIDGE_FAULT_AT": "bundle.image-chunk-sent:2", "MOATBRIDGE_FAULT_ACTION": "wait"})  # fmt: skip
    problems = (
        [] if term.appears("waiting at bundle.image-chunk-sent") else [f"no load: {term.screen[-800:]}"]
    )
    problems += interrupted(term, "Ctrl-C of bundle load")
    problems += world.invariants()
    if world.toolchain_names():
        problems.append(f"an interrupted load registered {world.toolchain_names()}")
    problems += clean(world.mb("bundle", "load", str(path)), "the next bundle load", (0,))
    problems += world.uninstalled()
    failures += record("Ctrl-C", "bundle load (mid image upload)", problems)
    assert not failures, "\n".join(failures)


# --- a full disk ------------------------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.fail("mounting a small tmpfs needs root (CI runs as root)")
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_disk_full_under_the_data_directory(world: World) -> None:
    failures = []
    for size, shells in (("64k", ()), ("96k", ("--shell", "bash"))):
        with tmpfs(world.data, size):
            args = [*world.setup_args(), *shells]
            result = world.mb(*args)
            problems = clean(result, f"setup on a {size} disk", (74,))
            if "no space left" not in result.stderr.lower():
                problems.append(f"no clear disk-full message: {result.stderr[-400:]}")
            problems += world.invariants()
            problems += world.uninstalled()
        failures += record("disk full", f"data directory on a {size} tmpfs: setup", problems)
    assert not failures, "\n".join(failures)


def test_disk_full_mid_rewrite_of_a_hard_linked_rc_file(world: World, tmp_path: Path) -> None:
    """HOME on a tmpfs with room for the rewrite's journal but not for the rc file's growth:
    setup says the disk is full and the rc file (and its other link) holds its old bytes."""
    from moatbridge.core.activation import rc_block as block_for

    world.data = tmp_path / "mbh"  # moatbridge's own files elsewhere: only the rc edit meets the full disk
    world.state_dir = world.data / "state"
    world.env["MOATBRIDGE_HOME"] = str(world.data)
    bashrc = b"# my bashrc, a page long\n" + b"export A=1\n" * 360  # the block makes it two pages
    with tmpfs(world.home, "1m"):
        world.rcs = {world.home / ".bashrc": bashrc, world.home / ".zshrc": ZSHRC}
        for path, data in world.rcs.items():
            path.write_bytes(data)
        world.work.mkdir()
        link = world.work / "dotfiles-bashrc"
        os.link(world.home / ".bashrc", link)
        new = rc_block.insert(bashrc, block_for(str(world.data / "env"), False), "rc")
        page = os.statvfs(world.home).f_frsize
        journal_pages = -(-(8 + len(bashrc) + len(new)) // page)
        filler = world.home / "filler"
        filler.write_bytes(bytes((os.statvfs(world.home).f_bavail - journal_pages) * page))
        assert os.statvfs(world.home).f_bavail == journal_pages
        result = world.mb(*world.setup_args())
        problems = clean(result, "setup with a full HOME", (74,))
        if "The disk is full; ~/.bashrc was restored." not in result.stderr:
            problems.append(f"not the disk-full sentence: {result.stderr[-400:]}")
        if (world.home / ".bashrc").read_bytes() != bashrc or link.read_bytes() != bashrc:
            problems.append("~/.bashrc (or its other link) was not restored")
        problems += [f"journal left: {p}" for p in world.home.glob("*.moatbridge-rewrite")]
        problems += world.invariants()
        filler.unlink()
        problems += world.set_up()
        problems += world.uninstalled()
        if link.read_bytes() != bashrc or (world.home / ".bashrc").stat().st_nlink != 2:
            problems.append("the hard link was split or left different")
        link.unlink()
    failures = record("disk full", "ENOSPC mid-rewrite of a hard-linked ~/.bashrc: setup", problems)
    assert not failures, "\n".join(failures)


# --- damaged files -------------------------------------------------------------------------------------

DAMAGE = {
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: bytes(range(256)) * 4,
    "not UTF-8": lambda data: data.replace(b"e", b"\xe9"),
}
FOREIGN = {
    "state.json": [b'{"version": 999, "toolchains": 3}\n', b"[" * 5000],
    "answers.yaml": [b"- a\n- b\n", b"targets: 3\n"],
    "toolchain.env": [b"#!/bin/sh\necho my own file\n"],
}


def test_damaged_state_answers_and_toolchain_files(world: World) -> None:
    failures = []
    assert not world.set_up()
    files = {
        "state.json": world.data / "state.json",
        "answers.yaml": world.data / "answers.yaml",
        "toolchain.env": world.data / "toolchains" / world.name / "toolchain.env",
    }
    for label, path in files.items():
        good = path.read_bytes()
        kinds = DAMAGE if label == "toolchain.env" else ("empty", "truncated", "garbage")
        variants = [(k, DAMAGE[k](good)) for k in kinds]
        variants += [(f"foreign {i + 1}", data) for i, data in enumerate(FOREIGN[label])]
        for kind, data in variants:
            path.write_bytes(data)
            problems = []
            for what, args, codes in (("list", ["list", "--json"], (0,)), ("doctor", ["doctor"], (0, 1))):
                problems += clean(world.mb(*args, timeout=120), f"{what} with a {kind} {label}", codes)
            shim = world.shim("nvcc", "--version")
            if label == "toolchain.env" and (shim.returncode != 127 or "is damaged" not in shim.stderr):
                problems.append(
                    f"the nvcc shim with a {kind} {label} exited {shim.returncode}: {shim.stderr[-300:]}"
                )
            problems += world.rc_problems()
            # The next setup repairs what is ours; a file that is not ours is refused, untouched.
            again = world.mb(*world.setup_args())
            ours_again = label != "toolchain.env" or (kind in ("truncated",) and b"moatbridge" in data[:80])
            problems += clean(again, f"setup after a {kind} {label}", (0, 2))
            if again.returncode == 2 and "was not written by moatbridge" not in again.stderr:
                problems.append(f"setup refused a {kind} {label} without saying why: {again.stderr[-300:]}")
            if again.returncode != 0:
                path.write_bytes(good)  # the user moves it aside, as the hint says
            elif label == "state.json" and world.toolchain_names() != [world.name]:
                problems.append(f"setup after a {kind} state.json recorded {world.toolchain_names()}")
            elif label != "state.json" and ours_again and path.read_bytes() != good:
                problems.append(f"setup did not rewrite the {kind} {label}")
            for aside in world.data.glob("*.unreadable*"):
                aside.unlink()
            for aside in world.data.glob("*.corrupt*"):
                aside.unlink()
            problems += world.rc_problems()
            failures += record("damaged files", f"{kind} {label}", problems)
    # One more: a damaged state at uninstall time (the files on disk are found anyway).
    files["state.json"].write_bytes(b"{\x00")
    problems = world.uninstalled(backups=1)  # the unusable state kept, as every warning said
    failures += record("damaged files", "garbage state.json, then uninstall --all", problems)
    assert not failures, "\n".join(failures)


# --- a misbehaving registry ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def registry(engine_version: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with run_registry(tmp_path_factory.mktemp("registry")) as address:
        yield address


def pushed_tiny(world: World, tmp_path: Path, registry: str, tag: str, size: int = 2 << 20) -> str:
    local = f"moatbridge-fault/tiny:{tag}-{world.name}"
    import_tiny(tmp_path, local, size=size)
    target = f"{registry}/fault/tiny:{tag}-{world.name}"
    pushed = world.mb("image", "push", target, "--from", local, "--json")
    assert pushed.returncode == 0, pushed.stderr
    docker("rmi", "-f", local)
    docker("rmi", "-f", target)
    return target


def test_registry_5xx_resets_and_stalls(
    world: World, tmp_path: Path, registry: str, cleanup_test_images: None
) -> None:
    cases = [
        ("503 twice, then answers", Misbehaviour(fail_manifests=2), ("--retries", "4"), (0,)),
        ("503 for good", Misbehaviour(fail_manifests=1000), ("--retries", "2"), (5,)),
        ("connection reset twice on the manifest", Misbehaviour(reset_manifests=2), ("--retries", "4"), (0,)),
        ("connection reset on a blob, once", Misbehaviour(reset_blobs=1), ("--retries", "2"), (0,)),
        ("connection reset on every manifest", Misbehaviour(reset_manifests=1000), ("--retries", "2"), (5,)),
        ("blob stalls past the timeout", Misbehaviour(stall_blobs_s=5), ("--retries", "1", "--stall-timeout", "2"), (5,)),
    ]  # fmt: skip
    failures = []
    for index, (fault, behaviour, options, codes) in enumerate(cases):
        target = pushed_tiny(world, tmp_path, registry, f"r{index}")
        with misbehaving_proxy(registry, behaviour) as proxy:
            through = target.replace(registry, proxy, 1)
            result = world.mb("image", "pull", through, "--no-space-check", *options, timeout=300)
            docker("rmi", "-f", through)
        problems = clean(result, f"pull with {fault}", codes)
        if (
            result.returncode != 0
            and len([x for x in result.stderr.splitlines() if x.startswith("moatbridge: The ")]) != 1
        ):
            problems.append(f"not one clear error line: {result.stderr[-600:]}")
        problems += clean(world.mb("image", "list", "--json"), "image list", (0,))
        problems += world.invariants()
        failures += record("registry", fault, problems)
    assert not failures, "\n".join(failures)


# --- the engine stopped mid-pull and mid-build; a full disk under the engine --------------------------------


class SecondEngine:
    """A dockerd of our own (socket, data root, exec root), so stopping it disturbs nobody."""

    def __init__(self, data_root: Path) -> None:
        self.run = Path(f"/run/moatbridge-fault-{uuid.uuid4().hex[:8]}")
        self.run.mkdir(parents=True)
        self.data_root = data_root
        self.host = f"unix://{self.run}/docker.sock"
        # Its own bridge: with `--bridge none` dockerd deletes the default bridge interface,
        # docker0, which the main engine's containers need.
        self.bridge = f"mbfault{uuid.uuid4().hex[:8]}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not Path(f"/sys/class/net/{self.bridge}").exists():
            subprocess.run(["ip", "link", "add", "name", self.bridge, "type", "bridge"], check=True)
        log = (self.run / "dockerd.log").open("ab")
        self.process = subprocess.Popen(
            ["dockerd", "--host", self.host, "--data-root", str(self.data_root), "--exec-root",
             str(self.run / "exec"), "--pidfile", str(self.run / "docker.pid"), "--bridge", self.bridge,
             "--iptables=false", "--ip-masq=false"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while docker("version", host=self.host, timeout=10).returncode != 0:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError((self.run / "dockerd.log").read_text()[-2000:])
            time.sleep(0.5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture
def second_engine(tmp_path: Path, engine_version: str) -> Iterator[SecondEngine]:
    if os.geteuid() != 0 or shutil.which("dockerd") is None:
        pytest.fail("a second engine needs root and dockerd (CI has both)")
    engine = SecondEngine(Path(f"/var/lib/moatbridge-fault-{uuid.uuid4().hex[:8]}"))
    had_docker0 = Path("/sys/class/net/docker0").exists()
    try:
        yield engine
    finally:
        engine.stop()
        subprocess.run(["ip", "link", "delete", engine.bridge], capture_output=True, check=False)
        assert Path("/sys/class/net/docker0").exists() or not had_docker0, "the main engine's bridge is gone"
        subprocess.run(["umount", "-l", str(engine.data_root)], capture_output=True, check=False)
        shutil.rmtree(engine.data_root, ignore_errors=True)
        shutil.rmtree(engine.run, ignore_errors=True)


def waiting(process: subprocess.Popen[str], point: str, timeout: float = 300) -> str:
    """stderr up to the line saying the process waits at `point` ('' if it never got there)."""
    assert process.stderr is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1)
        if ready:
            line = process.stderr.readline()
            if not line:
                return ""
            seen += line
            if f"waiting at {point}" in line:
                return seen
    return ""


def stopped_at(world: World, engine: SecondEngine, point: str, *args: str) -> list[str]:
    """Run moatbridge on the second engine, stop the engine while it waits at `point`, let it go on."""
    process = subprocess.Popen(
        [sys.executable, "-m", "moatbridge", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(world.env, DOCKER_HOST=engine.host, MOATBRIDGE_FAULT_AT=point, MOATBRIDGE_FAULT_ACTION="wait"),
        cwd=world.work,
    )  # fmt: skip
    if not waiting(process, point.partition(":")[0]):
        process.kill()
        out, err = process.communicate()
        return [f"never reached {point}: {err[-800:]}"]
    engine.stop()
    process.send_signal(signal.SIGUSR1)
    out, err = process.communicate(timeout=300)
    result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    # 3: the engine is unavailable; 4: the build failed; 5: the pull failed - each one clear line.
    problems = clean(result, f"{args[0]} {args[1]} with the engine stopped", (3, 4, 5))
    errors = [line for line in err.splitlines() if line.startswith("moatbridge: ") and "attempt" not in line]
    if len(errors) != 1:
        problems.append(f"not one clear error line: {err[-600:]}")
    return problems


def _builder_step(container: str, host: str) -> bool:
    """Whether a container is a step of the engine's own builder (its image an untagged
    intermediate named by ID, no toolchain's): stopping the engine between creating and
    removing one leaves it, whoever started the build, as `docker build` does too. A
    container moatbridge makes names its image by tag and carries its toolchain's label."""
    found = docker(
        "inspect", "--format", '{{.Config.Image}} {{index .Config.Labels "io.moatbridge.toolchain"}}', container,
        host=host,
    )  # fmt: skip
    image, _, toolchain = found.stdout.strip().partition(" ")
    return found.returncode == 0 and image.startswith("sha256:") and not toolchain.strip()


def test_engine_stopped_mid_pull_and_mid_build(
    world: World, tmp_path: Path, registry: str, second_engine: SecondEngine, cleanup_test_images: None
) -> None:
    from moatbridge.adapters.records import load_catalog

    failures = []
    target = pushed_tiny(world, tmp_path, registry, "engine", size=8 << 20)
    second_engine.start()
    problems = stopped_at(world, second_engine, "engine.pull-event:2", "image", "pull", target, "--retries", "1",
                          "--no-space-check")  # fmt: skip
    second_engine.start()
    on_second = dict(DOCKER_HOST=second_engine.host)
    problems += clean(
        world.mb("image", "pull", target, "--no-space-check", env=on_second), "pull after restart", (0,)
    )
    problems += clean(world.mb("image", "list", "--json", env=on_second), "image list after restart", (0,))
    problems += world.invariants()
    failures += record("engine stopped", "mid-pull, then restarted", problems)

    boot = load_catalog().flavour("open").distro(None).bootstrap
    assert boot is not None
    import_tiny(tmp_path, boot.tag, host=second_engine.host)  # a stand-in base: the build starts at once
    problems = stopped_at(world, second_engine, "engine.build-event:1", "image", "build", "--flavour", "open",
                          "--target", "gfx1030", "--base", "bootstrap", "--no-space-check")  # fmt: skip
    second_engine.start()
    problems += clean(world.mb("doctor", "--json", env=on_second), "doctor after restart", (0, 1))
    leftovers = docker("ps", "-aq", "--filter", "label=io.moatbridge.managed=1", host=second_engine.host)
    problems += [
        f"container left by the stopped build: {c}"
        for c in leftovers.stdout.split()
        if not _builder_step(c, second_engine.host)
    ]
    problems += world.invariants()
    failures += record("engine stopped", "mid-build, then restarted", problems)
    second_engine.stop()
    assert not failures, "\n".join(failures)


def test_engine_restart_under_a_warm_container(
    tmp_path: Path, second_engine: SecondEngine, cleanup_test_images: None
) -> None:
    """The engine restarts (as on a reboot) under a running warm container, and its init's PID
    now names another process: the next shim starts the container again and runs."""
    world = World(tmp_path / "restart", "restart")
    world.env["DOCKER_HOST"] = second_engine.host
    second_engine.start()
    path, _reference, _image_id = tiny_bundle(tmp_path, world.name, shell=True, host=second_engine.host)

    def warm_containers() -> list[str]:
        found = docker(
            "ps", "-aq", "--filter", f"label=io.moatbridge.toolchain={world.name}", host=second_engine.host
        )
        return found.stdout.split()

    problems = clean(world.mb("bundle", "load", str(path)), "bundle load", (0,))
    problems += clean(world.shim("nvcc", "--version"), "the shim before the restart", (0,))
    liveness = world.data / "run" / f"{world.name}.pid"
    recorded = liveness.read_text().split()
    second_engine.stop()
    second_engine.start()
    # The PID is another process's now (this test's own, alive), as after a reboot.
    liveness.write_text(" ".join([str(os.getpid()), *recorded[1:]]) + "\n")
    for attempt in (1, 2):
        after = world.shim("nvcc", "--version")
        problems += clean(after, f"shim {attempt} after the restart", (0,))
        if "Cuda compilation tools" not in after.stdout:
            problems.append(f"shim {attempt} after the restart did not run nvcc: {after.stderr[-400:]}")
    if len(warm_containers()) != 1:
        problems.append(f"{len(warm_containers())} warm containers after the restart, not 1")
    problems += world.invariants()
    problems += clean(world.mb("uninstall", "--all", "--keep-images"), "uninstall", (0,))
    problems += [f"container left after uninstall: {c}" for c in warm_containers()]
    problems += world.rc_problems(block_allowed=False)
    failures = record("engine restart", "under a running warm container, its PID reused", problems)
    second_engine.stop()
    assert not failures, "\n".join(failures)


def test_disk_full_under_the_engine(
    world: World, tmp_path: Path, registry: str, second_engine: SecondEngine, cleanup_test_images: None
) -> None:
    target = pushed_tiny(world, tmp_path, registry, "full", size=48 << 20)
    second_engine.data_root.mkdir(parents=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(second_engine.data_root)], check=True
    )
    second_engine.start()
    on_second = dict(DOCKER_HOST=second_engine.host)
    result = world.mb("image", "pull", target, "--retries", "1", "--no-space-check", env=on_second)
    problems = clean(result, "pull onto a full disk", (5,))
    if "no space left" not in result.stderr.lower():
        problems.append(f"the error does not say the disk is full: {result.stderr[-600:]}")
    checked = world.mb("image", "pull", target, "--retries", "1", env=on_second)
    problems += clean(checked, "pull with the space check", (6,))  # refused before pulling: too little space
    problems += clean(world.mb("image", "list", "--json", env=on_second), "image list", (0,))
    problems += world.invariants()
    failures = record("disk full", "engine data root on a 24 MB tmpfs: pull of 48 MB", problems)

    from moatbridge.adapters.records import load_catalog

    boot = load_catalog().flavour("open").distro(None).bootstrap
    assert boot is not None
    import_tiny(tmp_path, boot.tag, host=second_engine.host)  # a stand-in base: the build starts at once
    with contextlib.suppress(OSError), (second_engine.data_root / "filler").open("wb") as filler:
        while True:  # the rest of the disk
            filler.write(b"\0" * (1 << 20))
    build = ["image", "build", "--flavour", "open", "--target", "gfx1030", "--base", "bootstrap"]
    result = world.mb(*build, "--no-space-check", env=on_second)
    problems = clean(result, "image build on a full disk", (4,))
    errors = [line for line in result.stderr.splitlines() if line.startswith("moatbridge: ")]
    if len(errors) != 1 or "no space left" not in result.stderr.lower():
        problems.append(f"not one clear disk-full error: {result.stderr[-600:]}")
    problems += clean(world.mb(*build, env=on_second), "image build with the space check", (6,))
    (second_engine.data_root / "filler").unlink()
    problems += clean(world.mb("image", "list", "--json", env=on_second), "image list", (0,))
    problems += world.invariants()
    failures += record("disk full", "engine data root full: image build", problems)
    second_engine.stop()
    assert not failures, "\n".join(failures)
