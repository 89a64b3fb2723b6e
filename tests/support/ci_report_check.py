"""`python3 tests/support/ci_report_check.py REPORT MIN_TESTS`: .ci/run's check that the
README's test command really ran the whole suite (tests/support/ci_policy.py writes REPORT).

Exit 0 when the whole suite ran with no deselection, at least MIN_TESTS tests, and every
collected test passed or is an allowed skip; otherwise 1 with the reason on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def problems(report_path: Path, min_tests: int) -> list[str]:
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError) as error:
        return [f"no test report at {report_path} ({error}): did pytest load tests/conftest.py?"]
    found = []
    if not report.get("whole_suite"):
        found.append("pytest was given paths or node IDs: CI runs the whole suite (testpaths)")
    if report.get("deselected"):
        found.append(f"{report['deselected']} tests were deselected")
    if report.get("collected", 0) < min_tests:
        found.append(
            f"only {report.get('collected', 0)} tests were collected; CI expects at least {min_tests}"
        )
    if report.get("passed", 0) + report.get("allowed_skips", 0) != report.get("collected", 0):
        found.append(
            f"{report.get('collected', 0)} collected but {report.get('passed', 0)} passed "
            f"and {report.get('allowed_skips', 0)} were allowed skips"
        )
    if report.get("exitstatus") != 0:
        found.append(f"pytest exited with status {report.get('exitstatus')}")
    return found


def main(argv: list[str]) -> int:
    found = problems(Path(argv[0]), int(argv[1]))
    for problem in found:
        print(f"ci: {problem}", file=sys.stderr)
    if not found:
        print(f"ci: the whole suite ran ({json.loads(Path(argv[0]).read_text())})")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
