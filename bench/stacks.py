"""The stack-dependent checks on the sid stack (HIP 6.4, clang 21, gfx1201), outside CI: every
run of the suite makes them on trixie only (tests/support/open_stacks.py: OPEN_STACKS) and the
checks against NVIDIA's headers on both stacks; this runs the rest of sid's share.

    python bench/stacks.py [--json FILE]

Runs pytest with MOATBRIDGE_TEST_STACKS=all on the modules that use OPEN_STACKS, selecting
the sid cases (-k gfx1201), builds the sid images through the session fixtures when they are
missing, and prints pytest's summary and the wall time. Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_USES = re.compile(r"^@pytest\.mark\.parametrize\(.*\bOPEN_STACKS\)", re.M)


def modules() -> list[str]:
    """The test modules with a check parametrized over OPEN_STACKS."""
    found = [path for path in (REPO / "tests").glob("test_*.py") if _USES.search(path.read_text())]
    return sorted(str(path.relative_to(REPO)) for path in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, default=Path("stacks.json"))
    args = parser.parse_args(argv)
    # CI=true refuses a partial run (-k); here the part is the point
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["MOATBRIDGE_TEST_STACKS"] = "all"
    chosen = modules()
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "gfx1201", *chosen],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    summary = next((line for line in reversed(result.stdout.splitlines()) if " in " in line), "no summary")
    print((result.stdout + result.stderr)[-4000:] if result.returncode else summary)
    print(f"sid stack: {summary.strip('= ')} ({elapsed:.0f} s, {len(chosen)} modules)")
    record = {
        "date": datetime.date.today().isoformat(),
        "modules": chosen,
        "summary": summary.strip("= "),
        "seconds": round(elapsed),
        "returncode": result.returncode,
    }
    args.json.write_text(json.dumps(record, indent=2) + "\n")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
