"""Named fault points: where a step of setup, upgrade, uninstall or bundle load can be cut off.

The fault-matrix tests (tests/test_fault_matrix.py) kill moatbridge at each point and
check that whatever it leaves behind is readable and repaired by the next run.
Outside those tests neither variable is set and `point()` only reads the environment.

  MOATBRIDGE_FAULT_LIST=FILE      append "NAME<TAB>DETAIL" for every point reached
  MOATBRIDGE_FAULT_AT=NAME[:N]    act the N-th time (default: the first) NAME is reached:
  MOATBRIDGE_FAULT_ACTION=kill    SIGKILL this process (default), or
                          wait    print "moatbridge-fault: waiting at NAME" on stderr and
                                  wait there until SIGUSR1 (go on) or SIGINT (Ctrl-C), so a
                                  test can break something meanwhile (stop the engine)
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

_reached: dict[str, int] = {}


def point(name: str, detail: str = "") -> None:
    listing = os.environ.get("MOATBRIDGE_FAULT_LIST")
    wanted = os.environ.get("MOATBRIDGE_FAULT_AT")
    if not listing and not wanted:
        return
    if listing:
        with open(listing, "a", encoding="utf-8") as handle:
            handle.write(f"{name}\t{detail}\n")
    _reached[name] = _reached.get(name, 0) + 1
    target, _, nth = (wanted or "").partition(":")
    if target != name or _reached[name] != int(nth or 1):
        return
    if os.environ.get("MOATBRIDGE_FAULT_ACTION", "kill") != "wait":
        os.kill(os.getpid(), signal.SIGKILL)
    resumed = []

    def resume(signum: int, frame: FrameType | None) -> None:
        resumed.append(signum)

    previous = signal.signal(signal.SIGUSR1, resume)
    sys.stderr.write(f"moatbridge-fault: waiting at {name}\n")
    sys.stderr.flush()
    while not resumed:
        signal.pause()  # SIGINT raises KeyboardInterrupt here, as anywhere else
    signal.signal(signal.SIGUSR1, previous)
