"""Pruning a scanned tree: each fatbin file is planned, rewritten on a temporary copy next to it
and installed only once the copy passes the proof; per-target files no kept target loads are
deleted. ``prune`` returns the report (``--report``) of both."""

from __future__ import annotations

import mmap
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .compressed import Codec, CompressedBundle
from .entries import loaded_by
from .inventory import FatbinFile, Inventory
from .plans import CompressedPlan, RewritePlan, apply_compressed, apply_plan, plan_compressed, plan_rewrite
from .proofs import ProofError, prove, sha256_of
from .section import Item


def bundle_loads(bundles: Iterable[Item], keep: frozenset[str]) -> dict[str, dict[str, int]]:
    """For each kept target, how many bundles give it code for which processor ("none": no code);
    compressed bundles that cannot be read are not counted."""
    loads: dict[str, Counter[str]] = {k: Counter() for k in sorted(keep)}
    for bundle in bundles:
        if isinstance(bundle, CompressedBundle) and bundle.inner is None:
            continue
        for target, counts in loads.items():
            counts[",".join(sorted({e.processor for e in loaded_by(bundle.entries, target)})) or "none"] += 1
    return {k: dict(sorted(c.items())) for k, c in loads.items()}


def rewrite_file(
    fatbin: FatbinFile, keep: frozenset[str], dry_run: bool, codec: Codec | None = None
) -> dict[str, Any]:
    """Plan, apply (on a temporary copy), prove and install the rewrite of one file."""
    codec = codec or Codec()
    plans = [p for p in (plan_rewrite(b, keep) for b in fatbin.bundles) if p is not None]
    section_start, section_end = fatbin.section[0], fatbin.section[0] + fatbin.section[1]
    kept: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for bundle in fatbin.bundles:
        for entry in bundle.entries:
            (dropped if entry.dropped_by(keep) else kept)[entry.label] += 1
    loads = bundle_loads(fatbin.items, keep)
    cplans: list[CompressedPlan] = []
    left: list[dict[str, Any]] = []
    with fatbin.path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as original:
        for cb in fatbin.compressed:
            planned = plan_compressed(original, cb, keep, codec)
            if isinstance(planned, CompressedPlan):
                cplans.append(planned)
                kept.update(e.label for e in planned.kept)
                dropped.update(e.label for e in planned.dropped)
                continue
            kept.update(e.label for e in cb.entries)
            if planned is not None:
                targets = sorted({e.label for e in cb.entries if not e.is_host})
                left.append({"offset": cb.start - section_start, "size": cb.end - cb.start,
                             "version": cb.version, "method": cb.method_name, "reason": planned,
                             "targets": targets})  # fmt: skip
        objects = [
            {"bundle": plan.bundle.start - section_start, "target": entry.target_id,
             "offset": a, "size": b - a, "sha256": sha256_of(original, a, b)}
            for plan in plans for entry, (a, b) in plan.kept_ranges()
        ]  # fmt: skip
        objects += [
            {"bundle": cp.bundle.start - section_start, "compressed": True, "target": new.target_id,
             "offset": new.offset, "size": new.size, "sha256": digest}
            for cp in cplans for new, digest in zip(cp.new_inner.entries, cp.kept_digests, strict=True)
            if new.size
        ]  # fmt: skip
        if (plans or cplans) and not dry_run:
            _rewrite_copy(fatbin, original, section_end, plans, keep, cplans, codec)
    changed = plans or cplans
    return {
        "path": str(fatbin.path),
        "size": fatbin.size,
        "bundles": len(fatbin.bundles) + len(fatbin.compressed),
        "bundles_rewritten": len(plans) + len(cplans),
        "compressed_bundles": len(fatbin.compressed),
        "compressed_bundles_rewritten": [
            {
                "offset": cp.bundle.start - section_start,
                "version": cp.bundle.version,
                "method": cp.bundle.method_name,
                "size": cp.bundle.end - cp.bundle.start,
                "new_size": len(cp.blob),
                "uncompressed_size": cp.bundle.uncompressed_size,
                "new_uncompressed_size": cp.new_inner.end,
            }
            for cp in cplans
        ],
        "compressed_bundles_left": left,
        "entries_kept": dict(sorted(kept.items())),
        "entries_dropped": dict(sorted(dropped.items())),
        "loads": loads,
        "bytes_zeroed": sum(p.bytes_zeroed for p in plans) + sum(c.bytes_zeroed for c in cplans),
        "kept_objects": objects,
        "proof": "skipped (dry run)"
        if dry_run and changed
        else "passed"
        if changed
        else "nothing to rewrite",
    }


def _rewrite_copy(
    fatbin: FatbinFile,
    original: Any,
    section_end: int,
    plans: Sequence[RewritePlan],
    keep: frozenset[str],
    cplans: Sequence[CompressedPlan] = (),
    codec: Codec | None = None,
) -> None:
    path = fatbin.path
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".prune")
    os.close(fd)
    copy = Path(name)
    try:
        shutil.copyfile(path, copy)
        with copy.open("r+b") as writable, mmap.mmap(writable.fileno(), 0) as buf:
            for plan in plans:
                apply_plan(buf, plan)
            for cplan in cplans:
                apply_compressed(buf, cplan)
            buf.flush()
        with copy.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as rewritten:
            prove(original, rewritten, fatbin.size, section_end, plans, keep, cplans, codec)
        info = path.stat()
        shutil.copystat(path, copy)  # mode, times, extended attributes
        if (info.st_uid, info.st_gid) != (copy.stat().st_uid, copy.stat().st_gid):
            os.chown(copy, info.st_uid, info.st_gid)
        os.replace(copy, path)
    except ProofError as error:
        raise ProofError(f"{path}: {error}; the file was left as it was") from None
    finally:
        copy.unlink(missing_ok=True)


def prune(
    inventory: Inventory, keep: frozenset[str], dry_run: bool, codec: Codec | None = None
) -> dict[str, Any]:
    doomed = inventory.doomed_files(keep)
    codec = codec or Codec()
    files = [rewrite_file(f, keep, dry_run, codec) for f in inventory.fatbins if f.path not in doomed]
    deleted: list[dict[str, Any]] = []
    for path in doomed:
        deleted.append({"path": str(path), "size": path.lstat().st_size})
        if not dry_run:
            path.unlink()
    dropped: Counter[str] = Counter()
    loads: dict[str, Counter[str]] = {k: Counter() for k in sorted(keep)}
    for result in files:
        dropped.update(result["entries_dropped"])
        for target, counts in result["loads"].items():
            loads[target].update(counts)
    totals = {
        "files_with_fatbin": len(files),
        "files_rewritten": sum(1 for r in files if r["bundles_rewritten"]),
        "bundles": sum(r["bundles"] for r in files),
        "bundles_rewritten": sum(r["bundles_rewritten"] for r in files),
        "compressed_bundles": sum(r["compressed_bundles"] for r in files),
        "compressed_bundles_rewritten": sum(len(r["compressed_bundles_rewritten"]) for r in files),
        "compressed_bundles_left": sum(len(r["compressed_bundles_left"]) for r in files),
        "entries_dropped": dict(sorted(dropped.items())),
        "loads": {k: dict(sorted(c.items())) for k, c in loads.items()},
        "bytes_zeroed": sum(r["bytes_zeroed"] for r in files),
        "kept_objects_verified": 0 if dry_run else sum(len(r["kept_objects"]) for r in files),
        "files_deleted": len(deleted),
        "bytes_deleted": sum(d["size"] for d in deleted),
    }
    return {"keep": sorted(keep), "dry_run": dry_run, "zstd": codec.zstd or None, "files": files,
            "deleted": deleted, "totals": totals}  # fmt: skip
