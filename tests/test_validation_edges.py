"""Names, targets, references and identifiers are validated at the edge with a whole-string
match: a trailing newline, which `re.match(r"...$")` lets through and
which then breaks runner files, Slurm headers and generated YAML, is refused, and so are
digits from other scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core import gfx, k8s, references, toolchains
from moatbridge.errors import InputError

HOSTILE_SUFFIXES = ["\n", "\n  hostPID: true", "\r", " ", "\x00"]


@pytest.mark.parametrize("suffix", HOSTILE_SUFFIXES)
def test_a_toolchain_name_is_the_whole_string(suffix: str) -> None:
    assert toolchains.validate_name("open-gfx1030") == "open-gfx1030"
    with pytest.raises(InputError):
        toolchains.validate_name("open-gfx1030" + suffix)


@pytest.mark.parametrize("suffix", HOSTILE_SUFFIXES)
def test_a_gfx_target_is_the_whole_string(suffix: str) -> None:
    assert gfx.is_gfx_name("gfx1100")
    assert not gfx.is_gfx_name("gfx1100" + suffix)


def test_digits_are_ascii_digits() -> None:
    assert not gfx.is_gfx_name("gfx\u0661\u0660\u0663\u0660")  # Arabic-Indic 1030
    assert gfx.parse_hsa_override("10.3.0") == "gfx1030"
    assert gfx.parse_hsa_override("\u0661\u0660.3.0") is None
    with pytest.raises(InputError):
        toolchains.validate_name("open-gfx\u0661\u0660\u0663\u0660")


@pytest.mark.parametrize("suffix", HOSTILE_SUFFIXES)
def test_an_image_reference_is_the_whole_string(suffix: str) -> None:
    assert references.parse_reference("registry.example:5000/team/open:12.4").tag == "12.4"
    with pytest.raises(InputError):
        references.parse_reference("registry.example:5000/team/open:12.4" + suffix)


@pytest.mark.parametrize("suffix", HOSTILE_SUFFIXES)
def test_a_kubernetes_name_is_the_whole_string(suffix: str) -> None:
    assert k8s.valid_name("moatbridge-open")
    assert not k8s.valid_name("moatbridge-open" + suffix)


@pytest.mark.parametrize("command", ["k8s", "ci github"])
def test_generators_refuse_an_image_that_would_inject_yaml(tmp_path: Path, command: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOATBRIDGE_", "XDG_"))}
    env["HOME"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", *command.split(), "--image", "reg/x:1\n  hostPID: true"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "is not an image reference" in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == [] or not any(
        p.suffix in (".yml", ".yaml") for p in tmp_path.rglob("*")
    )
