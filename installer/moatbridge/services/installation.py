"""A toolchain's files on the host: shims, runner, launcher, env files, the default pointer
and rc blocks, written and removed (only what carries moatbridge's marker)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from moatbridge.adapters.filesystem import DiskFull
from moatbridge.adapters.toolchain_files import (
    RcFileError,
    Written,
    edit_rc,
    rc_files_for,
    remove_empty_dirs,
    remove_owned,
    unedit_rc,
    write_owned,
)
from moatbridge.core.activation import activation_plan, rc_block, render_fish, render_posix
from moatbridge.core.launcher import LAUNCHER, MBRUN, render_launcher, render_mbrun
from moatbridge.core.shims import (
    ToolchainRuntime,
    candidate_tools,
    render_runner,
    render_shim,
    render_toolchain_env,
)
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths


def moatbridge_command(paths: Paths) -> str:
    """How shims call back into moatbridge (only to start a warm container): through the
    launcher written beside them, so the runner and `moatbridge` on PATH use one
    interpreter, and a vanished one is reported by the launcher's own message."""
    return str(Path(paths.home) / "cuda" / "bin" / LAUNCHER)


def toolchain_dir(paths: Paths, name: str) -> Path:
    return Path(paths.home) / "toolchains" / name


def install_files(
    paths: Paths, toolchain: Toolchain, runtime: ToolchainRuntime, make_default: bool, dry_run: bool
) -> list[Written]:
    """Runner, shims, toolchain.env, default pointer, env files: everything but rc edits."""
    home = Path(paths.home)
    # Shims only for the commands its image has (setup probes them); all for older state.
    tools = toolchain.tools if toolchain.tools is not None else candidate_tools(toolchain.flavour)
    written = [
        write_owned(
            home / "libexec" / "moatbridge-exec",
            render_runner(str(home), moatbridge_command(paths)),
            "runner",
            0o755,
            dry_run,
        ),
        write_owned(
            toolchain_dir(paths, toolchain.name) / "toolchain.env",
            render_toolchain_env(runtime),
            "toolchain",
            0o644,
            dry_run,
        ),
    ]
    for tool in tools:
        written.append(
            write_owned(
                home / "cuda" / "bin" / tool, render_shim(str(home), tool, None), "shim", 0o755, dry_run
            )
        )
        written.append(
            write_owned(
                toolchain_dir(paths, toolchain.name) / "bin" / tool,
                render_shim(str(home), tool, toolchain.name),
                "shim",
                0o755,
                dry_run,
            )
        )
    written += launcher_files(paths, toolchain.name, dry_run)
    # A new image may lack a command the old one had: its own shim goes (ours only).
    own_bin = toolchain_dir(paths, toolchain.name) / "bin"
    for stale in sorted(own_bin.glob("*")) if own_bin.is_dir() else []:
        if stale.name not in (*tools, MBRUN) and stale.is_file():
            remove_owned(stale, dry_run)
    if make_default:
        written.append(write_default(paths, toolchain.name, dry_run))
    default = toolchain.name if make_default else (read_default(paths) or toolchain.name)
    return written + write_env_files(paths, default, dry_run)


def launcher_files(paths: Paths, name: str, dry_run: bool) -> list[Written]:
    """Next to the shims: `mbrun` (dynamic, and the toolchain's own fixed one) and the
    `moatbridge` launcher, which runs the CLI with this interpreter, so a new shell has
    `moatbridge` on PATH however moatbridge was installed (core.launcher)."""
    import cudacompat
    import moatbridge

    home = Path(paths.home)
    python = sys.executable or shutil.which("python3") or "python3"
    # Where moatbridge and the toolkit's package it imports were found (two folders in a checkout).
    roots = tuple(
        os.path.dirname(os.path.dirname(os.path.abspath(str(package.__file__))))
        for package in (moatbridge, cudacompat)
    )
    launcher = render_launcher(python, roots)
    own_mbrun = toolchain_dir(paths, name) / "bin" / MBRUN
    return [
        write_owned(home / "cuda" / "bin" / MBRUN, render_mbrun(str(home), None), "shim", 0o755, dry_run),
        write_owned(own_mbrun, render_mbrun(str(home), name), "shim", 0o755, dry_run),
        write_owned(home / "cuda" / "bin" / LAUNCHER, launcher, "launcher", 0o755, dry_run),
    ]


def write_env_files(paths: Paths, default: str, dry_run: bool) -> list[Written]:
    """env and env.fish. Their MOATBRIDGE_TOOLCHAIN, which dynamic shims prefer to the
    default file, names the default toolchain: rewritten whenever the default changes."""
    home = Path(paths.home)
    plan = activation_plan(str(home), default)
    return [
        write_owned(home / "env", render_posix(plan), "env", 0o644, dry_run),
        write_owned(home / "env.fish", render_fish(plan), "env", 0o644, dry_run),
    ]


def read_default(paths: Paths) -> str | None:
    try:
        return (Path(paths.home) / "default").read_text().split("\n", 1)[0].strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def write_default(paths: Paths, name: str, dry_run: bool = False) -> Written:
    from moatbridge.core.activation import MARKER

    return write_owned(Path(paths.home) / "default", f"{name}\n{MARKER}\n", "default", 0o644, dry_run)


def edit_shell_rcs(paths: Paths, shells: tuple[str, ...], dry_run: bool) -> list[Written]:
    home = os.path.expanduser("~")
    written = []
    for shell, rc in rc_files_for(shells, home, os.environ).items():
        env = Path(paths.home) / ("env.fish" if shell == "fish" else "env")
        written.append(edit_rc(rc, rc_block(str(env), shell == "fish"), dry_run))
    return written


def remove_toolchain_files(paths: Paths, name: str, dry_run: bool) -> list[str]:
    """Delete one toolchain's own files (not the shared shims, env or rc blocks)."""
    removed = []
    directory = toolchain_dir(paths, name)
    for entry in sorted(directory.rglob("*"), reverse=True) if directory.exists() else []:
        if entry.is_file() and remove_owned(entry, dry_run):
            removed.append(str(entry))
    pid = Path(paths.home) / "run" / f"{name}.pid"
    if pid.exists() and not dry_run:
        pid.unlink()
    if not dry_run:
        for sub in (directory / "bin", directory):
            remove_empty_dirs(sub, Path(paths.home))
    return removed


def remove_shared_files(paths: Paths, state: State, dry_run: bool, problems: list[str]) -> list[str]:
    """Everything else moatbridge wrote: shims, runner, env files, default, rc blocks.

    Besides what the state records, the usual places are checked too, so files a
    killed setup wrote before it could record them are found and removed as well
    (only ones carrying moatbridge's marker or block). An rc file that cannot be edited
    (a directory, an ambiguous block) is reported in `problems`; everything else goes on.
    A usual place the state never recorded a block in that is not a file at all (a
    ~/.zshrc directory) holds no block of ours: nothing to report.
    """
    home = Path(paths.home)
    recorded = {(item["path"], item["kind"]): bool(item["created"]) for item in state.files}
    in_state = set(recorded)
    rc_files = rc_files_for(("bash", "zsh", "fish", "dash"), os.path.expanduser("~"), os.environ)
    for shell, rc in rc_files.items():
        recorded.setdefault((str(rc), "rc-block"), shell == "fish")
    for path in [home / "env", home / "env.fish", home / "default", home / "libexec" / "moatbridge-exec",
                 *sorted((home / "cuda" / "bin").glob("*")),
                 *sorted((home / "run").glob("*.pid"))]:  # fmt: skip
        recorded.setdefault((str(path), "file"), True)
    removed = []
    for (path_text, kind), created in recorded.items():
        path = Path(path_text)
        if kind == "rc-block":
            try:
                if unedit_rc(path, created, dry_run):
                    removed.append(f"{path} (moatbridge block)")
            except DiskFull:  # the disk, not this file: the rest would fail too (exit 74)
                raise
            except RcFileError as error:
                if (path_text, kind) in in_state:  # a block was written there: the user fixes this one
                    problems.append(error.message)
            except MoatbridgeError as error:  # the rest is still removed; the user fixes this one
                problems.append(error.message)
        elif path.suffix == ".pid" and path.parent == home / "run":
            if not dry_run:
                path.unlink(missing_ok=True)
        elif remove_owned(path, dry_run):
            removed.append(str(path))
    for leftover in ("cuda/bin", "cuda", "libexec", "consents", "run", "toolchains"):
        if not dry_run:
            remove_empty_dirs(home / leftover, home)
    return removed
