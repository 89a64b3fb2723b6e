"""Shared test fixtures: composed machines, an isolated home, the live engine, other users."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from moatbridge.paths import homes_registry

from fixtures import machines
from support import ci_policy, gpu_nodes
from support.docker_user import DockerUser, docker_group_user, remove_leaked_accounts, shared_temp_dir
from support.toolchains import warm_container

REPO = Path(__file__).resolve().parent.parent
SWEPT_BUT_KEPT = pytest.StashKey[list[str]]()
PACKAGE_DIR = REPO / "installer" / "moatbridge"
# The toolkit's package, which the installer imports (cudacompat.targets) and ships beside itself.
TOOLKIT_PACKAGE_DIR = REPO / "images" / "open" / "toolkit" / "src" / "cudacompat"
NOBODY = 65534
# Variables that change detection or engine selection: tests start without them.
SCRUBBED = (
    "HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCM_PATH", "HIP_PATH", "DOCKER_HOST",
    "DOCKER_CONTEXT", "DOCKER_CONFIG",  # a developer's own docker context must not steer the suite
)  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    """Under CI=true a skipped or deselected test fails the run (tests/support/ci_policy.py)."""
    ci_policy.pytest_configure(config)
    # A runner that starts the suite in the background without job control (`cmd &` from a
    # script) hands SIGINT and SIGQUIT down ignored, and every process the tests start would
    # inherit that: the Ctrl-C tests would then fail for the runner's sake (measured: a CI
    # check started with nohup ... &). Give this process, and so its children, the defaults.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    # A run killed inside a devcontainer GPU test leaves stand-in /dev/kfd and render nodes;
    # one killed while it had a test account leaves that account (in the docker group).
    # Neither sweep takes what a live session holds (tests/support/host_locks.py).
    config.stash[SWEPT_BUT_KEPT] = gpu_nodes.remove_leaked_standins() + remove_leaked_accounts()


def pytest_report_header(config: pytest.Config) -> list[str]:
    """What the start-of-run sweeps left in place, and why."""
    return [f"sweep: {sentence}" for sentence in config.stash.get(SWEPT_BUT_KEPT, [])]


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for key in SCRUBBED:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MOATBRIDGE_HOME", str(tmp_path / "moatbridge-home"))
    # Every test's homes meet in a registry of its own, not in the account's: another test's
    # home, still on disk, must not keep this test's images (adapters/home_registry).
    monkeypatch.setenv("MOATBRIDGE_HOMES_DIR", str(tmp_path / "account-homes"))
    yield
    leaked = leaked_homes(tmp_path)
    assert not leaked, f"the test registered homes in the account's own registry: {leaked}"


def leaked_homes(tmp_path: Path) -> list[str]:
    """Entries of the account's real registry of homes that name a home of this test (a
    subprocess that lost MOATBRIDGE_HOMES_DIR); they are removed, and the test fails."""
    registry = homes_registry({})
    if registry is None or not os.path.isdir(registry):
        return []
    leaked = []
    for name in os.listdir(registry):
        entry = os.path.join(registry, name)
        try:
            with open(entry, encoding="utf-8", errors="replace") as handle:
                named = handle.read(4096).strip()
        except OSError:
            continue
        if named == str(tmp_path) or named.startswith(str(tmp_path) + os.sep):
            leaked.append(named)
            os.unlink(entry)
    return leaked


@pytest.fixture
def machine(tmp_path: Path) -> Callable[[str], Path]:
    def build(name: str) -> Path:
        return machines.build(name, tmp_path / name)

    return build


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp dir other users can traverse (pytest's tmp_path is 0700)."""
    path = shared_temp_dir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def unavailable(reason: str) -> NoReturn:
    """A test this machine cannot run: skipped on a developer's machine, failed under CI=true
    (.ci/run provides everything tests need)."""
    if ci_policy.in_ci():
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture
def account(shared_tmp: Path) -> Iterator[DockerUser]:
    """A new non-root account in the docker group, as a new user is (tests/support/docker_user.py);
    removed after. Making it needs root."""
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("setpriv") is None:
        unavailable("making a test account needs root, useradd and setpriv")
    with docker_group_user(shared_tmp) as user:
        yield user


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI the way a user does: a fresh interpreter, ``python -m moatbridge``."""
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args],
        capture_output=True, text=True, env=env if env is not None else dict(os.environ), timeout=120,
    )  # fmt: skip


def cli_json(*args: str) -> Any:
    result = cli(*args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _python_for_others() -> str:
    for candidate in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", candidate, "-S", "-c", ""],
            capture_output=True,
        )  # fmt: skip
        if probe.returncode == 0:
            return candidate
    pytest.fail("no Python interpreter is executable by the unprivileged test user")


def run_as_nobody(
    workdir: Path, args: list[str], groups: list[int] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m moatbridge ARGS`` as uid 65534 — real permission checks, no mocks.

    The package is copied into ``workdir`` so the checkout's own permissions do not
    matter; ``-S`` keeps site-packages out (detect needs only the standard library).
    """
    if os.geteuid() != 0:
        pytest.skip("switching to another user needs root")
    package_copy = workdir / "pkg"
    if not package_copy.exists():
        shutil.copytree(PACKAGE_DIR, package_copy / "moatbridge")
        shutil.copytree(TOOLKIT_PACKAGE_DIR, package_copy / "cudacompat")
        for path in package_copy.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        package_copy.chmod(0o755)
    group_arg = f"--groups={','.join(map(str, groups))}" if groups else "--clear-groups"
    return subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", group_arg,
         _python_for_others(), "-S", "-m", "moatbridge", *args],
        capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package_copy), "HOME": str(workdir)},
    )  # fmt: skip


def engine_available() -> tuple[bool, str]:
    docker = shutil.which("docker")
    if docker is None:
        return False, "the docker CLI is not installed"
    result = subprocess.run(
        [docker, "version", "--format", "{{.Server.Version}}"], capture_output=True, text=True
    )
    if result.returncode != 0:
        return False, f"the Docker engine does not answer: {result.stderr.strip()[:200]}"
    return True, result.stdout.strip()


@pytest.fixture(scope="session")
def engine_version() -> str:
    """The live engine's version. In CI a missing engine fails the test instead of skipping it."""
    ok, detail = engine_available()
    if not ok:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but {detail}; .ci/run must start dockerd")
        pytest.skip(detail)
    return detail


def build_image(*args: str) -> dict[str, Any]:
    """`moatbridge image build ... --json` through the real CLI; the result as a dict.

    One build at a time across the suite's workers: the open images share their lower stages,
    and the classic builder does not share a stage two concurrent builds are both running, so
    on an empty layer cache two workers would each build the whole stack. Serialised, the
    second build finds the first one's layers."""
    with open(Path(tempfile.gettempdir()) / "moatbridge-image-builds.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run(
            [sys.executable, "-m", "moatbridge", "image", "build", "--base", "bootstrap", "--json", *args],
            capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
    if result.returncode != 0:
        pytest.fail(f"image build {' '.join(args)} failed:\n{result.stderr[-4000:]}")
    return dict(json.loads(result.stdout))


@pytest.fixture(scope="session")
def open_devel_gfx1030(engine_version: str) -> dict[str, Any]:
    """The per-target open devel image, built once per test run (layer cache across runs)."""
    return build_image("--flavour", "open", "--target", "gfx1030")


@pytest.fixture(scope="session")
def open_devel_all(engine_version: str) -> dict[str, Any]:
    return build_image("--flavour", "open")


@pytest.fixture(scope="session")
def open_devel_sid_gfx1201(engine_version: str) -> dict[str, Any]:
    """The sid stack's (ROCm 6.4, clang-21) per-target devel image for an RX 9070."""
    return build_image("--flavour", "open", "--distro", "sid", "--target", "gfx1201")


@pytest.fixture(scope="session")
def open_devel_gfx1030_cuda13(engine_version: str) -> dict[str, Any]:
    """The trixie gfx1030 devel image mimicking CUDA 13.0 (every layer but the CUDA layer shared
    with the 12.4 one)."""
    return build_image("--flavour", "open", "--target", "gfx1030", "--cuda-version", "13.0")


@pytest.fixture(scope="session")
def open_devel_sid_gfx1201_cuda13(engine_version: str) -> dict[str, Any]:
    return build_image(
        "--flavour", "open", "--distro", "sid", "--target", "gfx1201", "--cuda-version", "13.0"
    )


def docker_run(image: str, script: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run a bash script in a throwaway container on the host network."""
    return subprocess.run(
        ["docker", "run", "--rm", "--network", "host", *extra, image, "bash", "-c", script],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def compile_probe(image: str, gfx: str, source: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """`source` written to `directory`/probe.cu and compiled by the image's nvcc for `gfx`,
    with every error reported (each probe line's own, for the caller to attribute)."""
    (directory / "probe.cu").write_text(source)
    return docker_run(
        image,
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /p && "
        "nvcc -c probe.cu -o /tmp/probe.o -Xcompiler -ferror-limit=0",
        "-v", f"{directory}:/p:ro",
    )  # fmt: skip


# the image's stack clang++ (clang++-17 on trixie, -21 on sid), as a shell command
CLANGXX = '. /opt/moatbridge/stack.env && "clang++-${CLANG_VERSION}"'


def ast_and_defines(
    image: str, headers: Iterable[str], include_option: str, ast_filter: str, *mounts: str
) -> tuple[str, str]:
    """What a C++17 file including `headers` declares, read by the image's clang: the JSON AST
    of the declarations whose names hold `ast_filter`, and the `-E -dM` macro list."""
    source = "".join(f"#include <{header}>\\n" for header in headers)
    flags = f"-x c++ -std=c++17 {include_option} /tmp/p.cpp"
    dump = f"-fsyntax-only -Xclang -ast-dump=json -Xclang -ast-dump-filter={ast_filter}"
    script = (
        f"printf '{source}' > /tmp/p.cpp && {CLANGXX} {flags} {dump} > /tmp/ast.json"
        f" && {CLANGXX} {flags} -E -dM > /tmp/defines.txt"
        " && cat /tmp/ast.json && echo @@DEFINES@@ && cat /tmp/defines.txt"
    )
    result = docker_run(image, script, *mounts)
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-3000:])
    ast, defines = result.stdout.split("@@DEFINES@@\n", 1)
    return ast, defines


def regenerated_from_real_headers(
    image: str, module: str, output: str, scratch: Path, options: str = "", include: Path | None = None
) -> str:
    """A committed table re-read from NVIDIA's real headers (`include`, by default Debian's CUDA
    12.4): `python3 -m MODULE /real OPTIONS --output OUTPUT` run in the open image (clang++-17
    is there) with the repo's cudacompat mounted."""
    from cudacompat import generate

    from support import nvidia_toolkit

    include = include or nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    library = Path(generate.__file__).resolve().parents[2]  # .../lib, holding cudacompat/
    result = docker_run(
        image, f"cd /src && python3 -m {module} /real {options} --output /out/{output}",
        "-v", f"{include}:/real:ro", "-v", f"{library}:/src:ro", "-v", f"{scratch}:/out",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return (scratch / output).read_text()


@pytest.fixture(scope="session")
def debian_base(engine_version: str) -> str:
    """moatbridge's own debootstrapped Debian trixie base (made once, then reused)."""
    from moatbridge.adapters import docker_api
    from moatbridge.adapters.records import load_catalog
    from moatbridge.services.base_images import ensure_base

    distro = load_catalog().flavour("open").distro(None)
    client = docker_api.connect()
    try:
        reference, _ = ensure_base(client, distro, "bootstrap", None, lambda text: None)
    finally:
        client.close()
    return reference


def mb(*args: str, cwd: Path | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter, with the test's environment (HOME, ...)."""
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


def fresh_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `home` the HOME, with moatbridge's files in their default places under it."""
    home.mkdir()
    monkeypatch.delenv("MOATBRIDGE_HOME", raising=False)
    for key in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def toolchain_home(
    tmp_path: Path, open_devel_gfx1030: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A throwaway HOME with the open gfx1030 toolchain set up (no rc edits); removed after."""
    home = fresh_home(tmp_path / "home", monkeypatch)
    setup = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--no-modify-rc")
    assert setup.returncode == 0, setup.stderr
    yield home
    mb("uninstall", "--all", "--keep-images")
    subprocess.run(["docker", "rm", "-f", warm_container("open-gfx1030", home)], capture_output=True)
