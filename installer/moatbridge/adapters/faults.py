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
import re
import signal
import sys
from collections.abc import Mapping
from types import FrameType

from moatbridge.errors import UsageError

_reached: dict[str, int] = {}
# NAME[:N], N from 1: the names point() is called with (dotted, lower case) and ASCII digits.
_WANTED = re.compile(r"[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9_-]+)*(?::[1-9][0-9]{0,8})?", re.ASCII)
_ACTIONS = ("kill", "wait")


def check_environment(environ: Mapping[str, str]) -> None:
    """Refuse a malformed MOATBRIDGE_FAULT_AT or _ACTION before the command starts: met at a
    point, it would end the command half way (after files were written) with a crash."""
    from moatbridge.core.textsafe import printable

    wanted = environ.get("MOATBRIDGE_FAULT_AT")
    if wanted and not _WANTED.fullmatch(wanted):
        raise UsageError(
            f"MOATBRIDGE_FAULT_AT is set to {printable(repr(wanted))}, which is not NAME or NAME:N.",
            "give a fault point's name (e.g. state.locked), optionally ':N' with N from 1; or unset it",
        )
    action = environ.get("MOATBRIDGE_FAULT_ACTION")
    if wanted and action is not None and action not in _ACTIONS:
        raise UsageError(
            f"MOATBRIDGE_FAULT_ACTION is set to {printable(repr(action))}, which is neither kill nor wait.",
            "set it to kill or wait, or unset it",
        )


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
    if target != name or str(_reached[name]) != (nth or "1"):  # never int(): checked or not, no crash
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
