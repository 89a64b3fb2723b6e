"""Print the fault matrix's summary (tests/test_fault_matrix.py writes it) and check it.

Usage: python3 tests/support/fault_summary.py FILE [FLOOR]
Exit 1 when the file is missing, fewer than FLOOR faults were injected, or any was not survived.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    path = Path(argv[1])
    floor = int(argv[2]) if len(argv) > 2 else 1
    if not path.exists():
        print(f"fault matrix: no summary at {path} (did tests/test_fault_matrix.py run?)", file=sys.stderr)
        return 1
    summary = json.loads(path.read_text())
    width = max(len(name) for name in summary["families"])
    for name, counts in summary["families"].items():
        print(f"  {name:<{width}}  {counts['survived']:>3} of {counts['injected']:>3} survived")
    for fault in summary["faults"]:
        if not fault["survived"]:
            print(f"  NOT SURVIVED  {fault['family']} / {fault['fault']}:")
            for problem in fault["problems"][:4]:
                print(f"      {problem[:400]}")
    print(f"fault matrix: {summary['injected']} faults injected, {summary['survived']} survived")
    if summary["injected"] < floor:
        print(f"fault matrix: fewer than {floor} faults were injected", file=sys.stderr)
        return 1
    return 0 if summary["survived"] == summary["injected"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
