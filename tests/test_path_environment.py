"""Path-like environment variables: a relative XDG base directory is ignored (the XDG Base
Directory spec calls it invalid), so what setup records is what every later command reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.adapters.engine import candidate_endpoints
from moatbridge.adapters.toolchain_files import rc_files_for
from moatbridge.paths import Paths

from support.environ import environ_without


def test_relative_data_and_state_homes_are_ignored() -> None:
    environ = {"HOME": "/home/u", "XDG_DATA_HOME": "data", "XDG_STATE_HOME": "./state"}
    paths = Paths.from_environ(environ)
    assert (paths.home, paths.state) == ("/home/u/.local/share/moatbridge", "/home/u/.local/state/moatbridge")
    absolute = Paths.from_environ({"HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s"})
    assert (absolute.home, absolute.state) == ("/d/moatbridge", "/s/moatbridge")


def test_a_relative_config_home_is_ignored_for_fish() -> None:
    found = rc_files_for(("fish", "zsh"), "/home/u", {"XDG_CONFIG_HOME": "cfg", "ZDOTDIR": "/z"})
    assert found == {"fish": Path("/home/u/.config/fish/conf.d/moatbridge.fish"), "zsh": Path("/z/.zshrc")}


def test_a_relative_runtime_dir_is_ignored_for_the_engine_socket() -> None:
    endpoints, _ = candidate_endpoints({"XDG_RUNTIME_DIR": "run"})
    assert not any("run/docker.sock" in e and "/run/docker.sock" not in e for e in endpoints), endpoints
    assert not any(e.startswith("unix://run/") for e in endpoints), endpoints


def test_uninstall_with_a_relative_config_home_cleans_the_real_fish_file(tmp_path: Path) -> None:
    """The fish file setup wrote under ~/.config goes; a look-alike under the working
    directory (where a relative XDG_CONFIG_HOME pointed) is not moatbridge's to touch."""
    from moatbridge.adapters.toolchain_files import edit_rc
    from moatbridge.core.activation import rc_block

    home, cwd = tmp_path / "home", tmp_path / "cwd"
    block = rc_block(str(home / "mbh" / "env.fish"), True)
    real, decoy = (base / "fish" / "conf.d" / "moatbridge.fish" for base in (home / ".config", cwd / "cfg"))
    for path in (real, decoy):
        path.parent.mkdir(parents=True)
        edit_rc(path, block)
    kept = decoy.read_bytes()
    env = environ_without("MOATBRIDGE_", "XDG_", "ZDOTDIR")
    env.update(HOME=str(home), MOATBRIDGE_HOME=str(home / "mbh"), XDG_CONFIG_HOME="cfg",
               DOCKER_HOST="unix:///nonexistent/docker.sock")  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "uninstall", "--all", "--keep-images"],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not real.exists() and decoy.read_bytes() == kept


@pytest.mark.parametrize("value", ["", "/abs"])
def test_zdotdir_absolute_or_empty_is_used_as_zsh_does(value: str) -> None:
    found = rc_files_for(("zsh",), "/home/u", {"ZDOTDIR": value})
    assert found["zsh"] == Path(value or "/home/u") / ".zshrc"
