"""The shims' runner sources a toolchain.env only when the whole file is there (the fault
matrix's "damaged files"). A file cut short at any byte -- inside a quoted value, between
lines, in a variable name -- must be reported as damaged (exit 127, one message), never end the
shell with a syntax error or run with half a configuration. Real runner, real dash and bash;
`docker` is a stand-in on PATH that only reports being reached (no engine is needed to decide
whether the configuration is whole)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from moatbridge.core.shims import ToolchainRuntime, render_runner, render_toolchain_env

NAME = "open-gfx1100"


def _config(home: Path) -> bytes:
    runtime = ToolchainRuntime(
        name=NAME,
        image="moatbridge/open:12.4-devel-trixie-gfx1100",
        target="gfx1100",
        activate=". /opt/moatbridge/bin/activate",
        uid=1000,
        gid=1000,
        group_adds=(44, 105),
        devices=("/dev/kfd", "/dev/dri"),
        roots=(str(home / "nowhere"),),
        licence=None,
        licence_records=str(home / "licenses"),
        licence_env=(),
        home_key="0123456789",
        home=str(home),
    )
    return render_toolchain_env(runtime).encode()


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_a_toolchain_env_cut_anywhere_is_reported_as_damaged(tmp_path: Path, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed (.ci/run installs it)")
    home = tmp_path / "home"
    conf = home / "toolchains" / NAME / "toolchain.env"
    conf.parent.mkdir(parents=True)
    runner = home / "runner"
    runner.write_text(render_runner(str(home), "/nonexistent/moatbridge"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text("#!/bin/sh\necho reached-docker\nexit 0\n")
    (bin_dir / "docker").chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home), "MOATBRIDGE_TOOLCHAIN": NAME}
    whole = _config(home)
    header_end = whole.index(b"\n") + 1
    wrong = []
    # Every cut after the header line (a cut header is refused by its own check).
    for cut in range(header_end, len(whole) + 1):
        conf.write_bytes(whole[:cut])
        result = subprocess.run(
            [shell, str(runner), "nvcc"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=30
        )
        complete = cut >= len(whole) - 1  # only the final newline missing still holds every value
        if complete:
            ok = result.returncode == 0 and "reached-docker" in result.stdout
        else:
            ok = (
                result.returncode == 127
                and "is damaged" in result.stderr
                and "reached-docker" not in result.stdout
                and "Syntax error" not in result.stderr
                and "syntax error" not in result.stderr
            )
        if not ok:
            wrong.append(
                f"cut at {cut}/{len(whole)}: exit {result.returncode}: {result.stderr.strip()[-200:]}"
            )
    assert not wrong, "\n".join(wrong[:10])
