"""Under CI=true a test that did not run fails the run (tests/support/ci_policy.py).

Each case runs pytest for real on a small project that loads the same policy plugin the
suite uses, with and without CI, an allow-list and deselection.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SAMPLE = """\
import os
import subprocess
import sys

import pytest


def test_runs():
    pass


def test_skipped_in_the_body():
    pytest.skip("no engine here")


@pytest.mark.skipif(True, reason="needs root")
def test_skipped_by_a_marker():
    pass


@pytest.mark.engine
def test_marked_engine():
    assert "MOATBRIDGE_CI_REPORT" not in os.environ  # hidden from what the tests run
"""
CONFTEST = """\
from support import ci_policy


def pytest_configure(config):
    ci_policy.pytest_configure(config)
"""
SKIPPED_BODY = "tests/test_sample.py::test_skipped_in_the_body"
SKIPPED_MARKER = "tests/test_sample.py::test_skipped_by_a_marker"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\ntestpaths = tests\naddopts = -p no:cacheprovider\nmarkers =\n    engine: engine\n"
    )
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "tests" / "test_sample.py").write_text(SAMPLE)
    return tmp_path


def run(project: Path, ci: str, *args: str, report: Path | None = None) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "MOATBRIDGE_CI_REPORT")}
    env["CI"] = ci
    env["PYTHONPATH"] = str(REPO / "tests")  # the sample's conftest imports our support.ci_policy
    if report is not None:
        env["MOATBRIDGE_CI_REPORT"] = str(report)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", *args],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return result.returncode, result.stdout + result.stderr


def summary(output: str) -> str:
    """The counts of pytest's last line, e.g. '1 failed, 2 passed, 1 error'."""
    last = output.strip().splitlines()[-1]
    return re.sub(r"^=+ | in [\d.]+s.*$", "", last)


def test_without_ci_a_skip_is_a_skip(project: Path) -> None:
    code, output = run(project, "")
    assert (code, summary(output)) == (0, "2 passed, 2 skipped"), output


@pytest.mark.parametrize("ci", ["true", "1", "TRUE", "yes"])
def test_under_ci_every_skip_fails(project: Path, ci: str) -> None:
    code, output = run(project, ci)
    # A skip in the body fails the test; a skipif marker acts in setup: an error.
    assert (code, summary(output)) == (1, "1 failed, 2 passed, 1 error"), output
    assert f"FAILED {SKIPPED_BODY}" in output and f"ERROR {SKIPPED_MARKER}" in output
    assert "CI=true: this test was skipped (no engine here)" in output
    assert "CI=true: this test was skipped (needs root)" in output


def test_an_allowed_skip_needs_its_exact_node_id_and_a_reason(project: Path) -> None:
    allowlist = project / "tests" / "ci_skip_allowlist.txt"
    allowlist.write_text(f"# reviewed\n\n{SKIPPED_BODY}  # the sample has no engine\n")
    code, output = run(project, "true")
    assert (code, summary(output)) == (1, "2 passed, 1 skipped, 1 error"), output
    assert f"SKIPPED [1] {SKIPPED_BODY.split('::')[0]}" in output and f"ERROR {SKIPPED_MARKER}" in output

    allowlist.write_text(f"{SKIPPED_BODY}  # the sample has no engine\n{SKIPPED_MARKER}  # not root\n")
    assert run(project, "true")[0] == 0

    allowlist.write_text(f"{SKIPPED_BODY}\n")
    code, output = run(project, "true")
    assert code == 4, output
    assert "ci_skip_allowlist.txt:1: an allowed skip needs a reason" in output


def test_a_module_skipped_at_collection_fails(project: Path) -> None:
    (project / "tests" / "test_module.py").write_text(
        "import pytest\npytest.skip('no Slurm here', allow_module_level=True)\n"
    )
    code, output = run(project, "true", "tests/test_module.py")
    assert code == 2, output  # an error during collection: nothing runs
    assert "CI=true: tests/test_module.py was skipped at collection (no Slurm here)" in output
    assert run(project, "", "tests/test_module.py")[0] == 5  # no tests ran: a skipped module


def test_an_xfail_fails_too(project: Path) -> None:
    (project / "tests" / "test_xfail.py").write_text(
        "import pytest\n\n@pytest.mark.xfail(reason='known broken')\ndef test_x():\n    assert False\n"
    )
    code, output = run(project, "true", "tests/test_xfail.py")
    assert (code, summary(output)) == (1, "1 failed"), output
    assert "CI=true: this test was skipped (xfail (known broken))" in output


@pytest.mark.parametrize(
    "selection",
    [["-m", "not engine"], ["-k", "not engine"], ["--deselect", "tests/test_sample.py::test_marked_engine"]],
)
def test_under_ci_deselecting_tests_is_refused(project: Path, selection: list[str]) -> None:
    allowlist = project / "tests" / "ci_skip_allowlist.txt"
    allowlist.write_text(f"{SKIPPED_BODY}  # a\n{SKIPPED_MARKER}  # b\n")
    code, output = run(project, "true", *selection)
    assert code == 4, output
    assert "CI=true: 1 tests were deselected (tests/test_sample.py::test_marked_engine)" in output
    assert "PASSED" not in output  # refused before any test ran
    assert run(project, "", *selection)[0] == 0  # outside CI a selection is the developer's business


def test_the_report_for_ci_run(project: Path, tmp_path: Path) -> None:
    (project / "tests" / "ci_skip_allowlist.txt").write_text(f"{SKIPPED_BODY}  # a\n")
    report = tmp_path / "report.json"
    code, output = run(project, "true", report=report)
    assert code == 1, output
    assert json.loads(report.read_text()) == {
        "collected": 4, "deselected": 0, "exitstatus": 1, "whole_suite": True,
        "passed": 2, "failed": 1, "allowed_skips": 1,
    }  # fmt: skip
    code, output = run(project, "true", "tests/test_sample.py::test_runs", report=report)
    assert code == 0, output
    assert json.loads(report.read_text())["whole_suite"] is False  # only what the README runs counts


def test_the_suites_allowlist_is_short_and_reasoned() -> None:
    from support.ci_policy import ALLOWLIST, read_allowlist

    entries = read_allowlist(REPO / ALLOWLIST)
    assert len(entries) <= 5, entries
    assert all(len(reason) >= 10 for reason in entries.values()), entries


def test_ci_run_forces_ci_and_checks_the_report() -> None:
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert "export CI=true" in lines and not any(line.startswith("export CI=$") for line in lines)
    assert "unset PYTEST_ADDOPTS PYTEST_PLUGINS PYTEST_DISABLE_PLUGIN_AUTOLOAD" in lines
    (test_run,) = [i for i, line in enumerate(lines) if '-c "$test_command"' in line]
    report = lines.index('export MOATBRIDGE_CI_REPORT="$scratch/pytest-report.json"')
    (check,) = [i for i, line in enumerate(lines) if "tests/support/ci_report_check.py" in line]
    assert report < test_run < check  # the report is asked for, written, then checked
    assert lines[check].startswith('python3 tests/support/ci_report_check.py "$MOATBRIDGE_CI_REPORT" ')


WHOLE = {"collected": 800, "deselected": 0, "exitstatus": 0, "whole_suite": True,
         "passed": 799, "failed": 0, "allowed_skips": 1}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({}, None),
        ({"whole_suite": False}, "pytest was given paths or node IDs"),
        ({"deselected": 3}, "3 tests were deselected"),
        ({"collected": 700, "passed": 699}, "only 700 tests were collected; CI expects at least 750"),
        ({"passed": 798, "failed": 1, "exitstatus": 1}, "800 collected but 798 passed"),
        ({"passed": 798}, "800 collected but 798 passed and 1 were allowed skips"),
        ({"exitstatus": 2}, "pytest exited with status 2"),
        (None, "no test report at"),
    ],
)  # fmt: skip
def test_the_report_check(tmp_path: Path, change: dict[str, object] | None, problem: str | None) -> None:
    report = tmp_path / "report.json"
    if change is not None:
        report.write_text(json.dumps({**WHOLE, **change}))
    result = subprocess.run(
        [sys.executable, str(REPO / "tests" / "support" / "ci_report_check.py"), str(report), "750"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    if problem is None:
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
    else:
        assert result.returncode == 1 and f"ci: {problem}" in result.stderr, result.stderr
