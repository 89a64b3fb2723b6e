"""Under CI=true a test that did not run is a failure, not a quiet "s" in the summary.

Loaded by tests/conftest.py. When CI is true:

- a skipped test (pytest.skip, skipif, a skipped module, an xfail) is reported as failed,
  unless its node ID is on ``tests/ci_skip_allowlist.txt`` (one ``NODEID  # reason`` a line,
  reviewed like code; an entry without a reason is refused);
- deselecting tests (``-m "not engine"``, ``-k``, ``--deselect``, ``--lf``) ends the run
  with an error before any test runs.

``.ci/run`` also sets MOATBRIDGE_CI_REPORT=PATH: this session then writes what it collected
and how each test ended to PATH (and hides the variable from the tests' own nested pytest
runs), and ``.ci/run`` refuses a report that is missing, short of the floor, or partial.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ALLOWLIST = Path("tests") / "ci_skip_allowlist.txt"
REPORT_ENV = "MOATBRIDGE_CI_REPORT"
_report_path = os.environ.pop(REPORT_ENV, None)  # nested pytest runs must not write it


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def read_allowlist(path: Path) -> dict[str, str]:
    """NODEID -> reason. Blank lines and lines starting with # are comments."""
    entries: dict[str, str] = {}
    if not path.exists():
        return entries
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        nodeid, _, reason = line.partition(" # ")
        if not reason.strip():
            raise pytest.UsageError(f"{path}:{number}: an allowed skip needs a reason: 'NODEID  # why'")
        entries[nodeid.strip()] = reason.strip()
    return entries


class CiPolicy:
    def __init__(self, config: pytest.Config) -> None:
        self.allowed = read_allowlist(config.rootpath / ALLOWLIST)
        self.deselected: list[str] = []
        self.outcomes: dict[str, str] = {}

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
        report: pytest.TestReport = yield
        if report.skipped and item.nodeid not in self.allowed:
            why = getattr(report, "wasxfail", None)
            reason = f"xfail ({why})" if why is not None else _skip_reason(report)
            report.outcome = "failed"
            report.longrepr = (
                f"CI=true: this test was skipped ({reason}). In CI a skip is a failure: make the "
                f"test run here (.ci/run installs and starts what tests need), or add its node ID "
                f"with a reason to {ALLOWLIST}."
            )
            if hasattr(report, "wasxfail"):
                del report.wasxfail
        return report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Iterator[Any]:
        report: pytest.CollectReport = yield
        if report.skipped and collector.nodeid not in self.allowed:
            report.outcome = "failed"
            report.longrepr = (
                f"CI=true: {collector.nodeid} was skipped at collection ({_skip_reason(report)}); "
                f"in CI that is a failure unless {ALLOWLIST} lists it with a reason."
            )
        return report

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += [item.nodeid for item in items]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.deselected:
            shown = ", ".join(self.deselected[:5]) + (" ..." if len(self.deselected) > 5 else "")
            raise pytest.UsageError(
                f"CI=true: {len(self.deselected)} tests were deselected ({shown}). "
                "CI runs every test: drop -m/-k/--deselect/--lf (and PYTEST_ADDOPTS)."
            )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed or report.skipped:
            self.outcomes[report.nodeid] = "allowed-skip" if report.skipped else "failed"
        elif report.when == "call":
            self.outcomes.setdefault(report.nodeid, "passed")

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if _report_path is None:
            return
        counts: dict[str, int] = {}
        for outcome in self.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        report = {
            "collected": session.testscollected,
            "deselected": len(self.deselected),
            "exitstatus": int(exitstatus),
            "whole_suite": session.config.args_source == pytest.Config.ArgsSource.TESTPATHS,
            "passed": counts.get("passed", 0),
            "failed": counts.get("failed", 0),
            "allowed_skips": counts.get("allowed-skip", 0),
        }
        Path(_report_path).write_text(json.dumps(report, indent=1) + "\n")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    if in_ci() or _report_path is not None:
        config.pluginmanager.register(CiPolicy(config), "moatbridge-ci-policy")
