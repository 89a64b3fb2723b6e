"""Shrink a ROCm library tree to chosen AMD gfx targets, and prove nothing else changed.

The command line of ``python3 -m cudacompat.prune`` (the paragraph above is its ``--help``
description): the arguments, ``--verify-only``, ``--tools-needed`` and the summary it prints.

Exit status: 0 done or verified; 1 ``--verify-only`` found code that no kept target loads;
2 bad arguments, or a ``--keep`` target the tree has no code for, neither its own nor its generic
processor's (nothing changed); 3 a file this script cannot handle safely (nothing changed), or
a failed proof (that file is left as it was; files processed before it stay pruned).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..targets import GENERIC_TARGETS, generic_of
from .bundles import LayoutError
from .compressed import ZSTD, Codec
from .entries import PROCESSOR_RE
from .inventory import Inventory, scan, verify
from .proofs import ProofError
from .rewrite import prune

DEFAULT_LIB_DIR = "/usr/lib/x86_64-linux-gnu"


def parse_keep(values: Sequence[str]) -> frozenset[str]:
    keep = {v.strip().lower() for value in values for v in value.split(",") if v.strip()}
    if keep == {"none"}:
        # The image's targets have no library code at all (e.g. gfx942 on Debian's
        # libraries): keep host code only, drop every target's device code.
        return frozenset()
    generic = sorted(v for v in keep if v in GENERIC_TARGETS)
    if generic:
        raise ValueError(
            f"--keep takes the GPUs' own processor names, not the generic {', '.join(generic)} "
            "(code for a generic processor is kept when one of its members is)"
        )
    bad = sorted(v for v in keep if not PROCESSOR_RE.match(v))
    if bad:
        raise ValueError(
            f"--keep takes processor names like gfx1030 or gfx90a, not {', '.join(bad)} "
            "(every xnack/sramecc variant of a kept processor is kept)"
        )
    if not keep:
        raise ValueError("--keep names no target (use 'none' to drop every target's code)")
    return frozenset(keep)


def _human(n: float) -> str:
    units = ["B", "KB", "MB", "GB"]
    while n >= 1000 and len(units) > 1:
        n, units = n / 1000, units[1:]
    return f"{n:.0f} B" if units[0] == "B" else f"{n:.1f} {units[0]}"


def summary(report: dict[str, Any], seconds: float) -> str:
    totals = report["totals"]
    lines = [f"prune_targets: keeping {', '.join(report['keep'])} (and host code) in {report['lib_dir']}"]
    for r in report["files"]:
        if r["bundles_rewritten"] or r["compressed_bundles_left"]:
            left = r["compressed_bundles_left"]
            packed = len(r["compressed_bundles_rewritten"])
            reasons = sorted({c["reason"] for c in left})
            lines.append(
                f"  {Path(r['path']).name}: {r['bundles_rewritten']}/{r['bundles']} bundles rewritten"
                + (f" ({packed} compressed)" if packed else "")
                + f", {sum(r['entries_dropped'].values())} code objects dropped, "
                f"{_human(r['bytes_zeroed'])} zeroed"
                + (
                    f", {len(left)} compressed bundles left as they were ({'; '.join(reasons)})"
                    if left
                    else ""
                )
                + f"; proof {r['proof']}"
            )
    for target, counts in totals["loads"].items():
        if counts:
            code = ", ".join(f"{'no' if p == 'none' else p} code from {n}" for p, n in counts.items())
            lines.append(f"  {target} loads {code} bundles")
    zeroed, deleted = ("would zero", "would delete") if report["dry_run"] else ("zeroed", "deleted")
    lines.append(
        f"  {zeroed} {_human(totals['bytes_zeroed'])} in {totals['files_rewritten']} files, {deleted} "
        f"{totals['files_deleted']} per-target files ({_human(totals['bytes_deleted'])}) in {seconds:.1f} s"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="append", help="gfx targets to keep, comma separated")
    parser.add_argument("--lib-dir", type=Path, default=Path(DEFAULT_LIB_DIR))
    parser.add_argument("--report", type=Path, help="write a JSON report here")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    mode.add_argument("--verify-only", action="store_true", help="check that only kept targets remain")
    needed = "print the Debian packages (zstd) this tree's compressed bundles need here, if any"
    mode.add_argument("--tools-needed", action="store_true", help=needed)
    args = parser.parse_args(argv)
    if args.tools_needed:
        return _tools_needed(args.lib_dir)
    if not args.keep:
        parser.error("--keep is required")
    try:
        keep = parse_keep(args.keep)
    except ValueError as error:
        parser.error(str(error))
    if not args.lib_dir.is_dir():
        parser.error(f"--lib-dir {args.lib_dir} is not a directory")
    began = time.monotonic()
    try:
        codec = Codec()
        inventory = scan(args.lib_dir, codec)
    except (LayoutError, OSError) as error:
        return _fail(f"cannot handle {error}; nothing was changed", 3)
    if args.verify_only:
        return _verify_only(inventory, keep, args.lib_dir)
    available = inventory.processors()
    missing = sorted(k for k in keep if k not in available and generic_of(k) not in available)
    if missing:
        has = f"{args.lib_dir} has code for {', '.join(sorted(available)) or 'no gfx target'}"
        return _fail(f"--keep {', '.join(missing)}: no such code ({has}); nothing was changed", 2)
    linked = [str(f.path) for f in inventory.fatbins if f.links > 1 and f.loses_code(keep)]
    if linked:
        return _fail(f"cannot rewrite hard links {', '.join(linked)}; nothing was changed", 3)
    try:
        report = {"lib_dir": str(args.lib_dir), **prune(inventory, keep, args.dry_run, codec)}
    except (ProofError, LayoutError, OSError) as error:
        return _fail(str(error), 3)
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    print(summary(report, time.monotonic() - began))
    return 0


def _tools_needed(lib_dir: Path) -> int:
    """Print "zstd" if a compressed bundle under ``lib_dir`` needs zstd and this Python has no
    ``compression.zstd``, nor is the zstd command here. Reads only the bundle headers."""
    if not lib_dir.is_dir():
        return _fail(f"--lib-dir {lib_dir} is not a directory", 2)
    codec = Codec()
    try:
        fatbins = scan(lib_dir).fatbins
    except (LayoutError, OSError) as error:
        return _fail(f"cannot handle {error}", 3)
    # The command serves versions 2 and 3 (version 1 bundles need compression.zstd).
    if (
        codec.module is None
        and codec.cli is None
        and any(c.method == ZSTD for f in fatbins for c in f.compressed)
    ):
        print("zstd")
    return 0


def _verify_only(inventory: Inventory, keep: frozenset[str], lib_dir: Path) -> int:
    problems = verify(inventory, keep)
    for line in problems[:20]:
        print(f"prune_targets: {line}", file=sys.stderr)
    unread = [c for f in inventory.fatbins for c in f.unread]
    reasons = "; ".join(sorted({c.problem for c in unread}))
    note = f" ({len(unread)} compressed bundles not inspected: {reasons})" if unread else ""
    if problems:
        return _fail(f"{len(problems)} places hold code that no kept target loads{note}", 1)
    print(f"prune_targets: only {', '.join(sorted(keep))} and host code remain in {lib_dir}{note}")
    return 0


def _fail(message: str, status: int) -> int:
    print(f"prune_targets: {message}", file=sys.stderr)
    return status
