"""Names, targets, references and identifiers are validated at the edge with a whole-string
match: a trailing newline, which `re.match(r"...$")` lets through and
which then breaks runner files, Slurm headers and generated YAML, is refused, and so are
digits from other scripts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core import gfx, k8s, references, toolchains
from moatbridge.errors import InputError

from support.environ import environ_without

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
    env = environ_without("MOATBRIDGE_", "XDG_")
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


# Numbers on the command line: ASCII digits, whole string, in the option's range. `int()` alone
# takes "1_0", " 7", "\u0661" (Arabic-Indic one); "0" retries ended in a crash.
@pytest.mark.parametrize(
    ("option", "value"),
    [("--retries", v) for v in ("0", "-1", "101", "1_0", " 4", "4 ", "\u0661", "\u00b2", "4\n", "0x4")]
    + [("--stall-timeout", v) for v in ("0", "86401", "1e3", "+5")],
)
def test_a_count_option_is_ascii_digits_in_range(option: str, value: str) -> None:
    from moatbridge.errors import UsageError
    from moatbridge.parser import build_parser

    parser = build_parser()
    assert (
        getattr(parser.parse_args(["image", "pull", "reg/x:1", option, "7"]), option[2:].replace("-", "_"))
        == 7
    )
    with pytest.raises(UsageError) as caught:
        parser.parse_args(["image", "pull", "reg/x:1", option, value])
    assert "is not a whole number from" in caught.value.message


@pytest.mark.parametrize("value", ["0", "65", "-1", "1_0", "\u0661"])
def test_k8s_gpus_is_a_small_count(value: str) -> None:
    from moatbridge.errors import UsageError
    from moatbridge.parser import build_parser

    parser = build_parser()
    assert parser.parse_args(["k8s", "--gpus", "0", "--", "make"]).gpus == 0
    if value == "0":
        return
    with pytest.raises(UsageError):
        parser.parse_args(["k8s", "--gpus", value, "--", "make"])


@pytest.mark.parametrize(
    "wanted", ["x:y", "x:0", ":1", "x:", "x:\u00b2", "x:\u0661", "state.locked\n", "a b", "x:1:2", "X"]
)
def test_a_malformed_fault_setting_is_refused_before_the_command(wanted: str) -> None:
    from moatbridge.adapters import faults
    from moatbridge.errors import UsageError

    faults.check_environment({"MOATBRIDGE_FAULT_AT": "state.locked:2"})
    faults.check_environment({})
    with pytest.raises(UsageError):
        faults.check_environment({"MOATBRIDGE_FAULT_AT": wanted})
    with pytest.raises(UsageError):
        faults.check_environment({"MOATBRIDGE_FAULT_AT": "state.locked", "MOATBRIDGE_FAULT_ACTION": wanted})
