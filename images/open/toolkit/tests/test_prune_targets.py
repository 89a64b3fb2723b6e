"""cudacompat.prune: pruning gfx targets from ROCm libraries, with proof.

Synthetic ELF files exercise the format handling and the command line (the installer's suite
runs the pruner on the real libraries of a built image and checks them with LLVM's tools).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

import cudacompat.prune.entries
from cudacompat import targets
from cudacompat.prune.bundles import Bundle, LayoutError, build_header
from cudacompat.prune.cli import main, parse_keep
from cudacompat.prune.entries import PROCESSOR_RE, Entry, is_known, loaded_by
from cudacompat.prune.inventory import FILE_TOKEN_RE, file_processors
from cudacompat.prune.plans import apply_plan, plan_rewrite
from cudacompat.prune.proofs import Hashes, ProofError, masked_sha256, prove_loads
from cudacompat.prune.section import find_section, parse_bundles
from synthetic_bundles import GFX, HOST, MAGIC, bundle, ccob, code, elf, pad, run_pruner


def fatbin() -> bytes:
    """Two bundles (host + gfx1030, gfx90a:xnack+, gfx1100) and a compressed bundle."""
    first = bundle([(HOST, b""), (GFX + "gfx1030", code(1, 3000)), (GFX + "gfx90a:xnack+", code(2, 2500)),
                    (GFX + "gfx1100", code(3, 5000))])  # fmt: skip
    second = bundle([(HOST, b""), (GFX + "gfx1100", code(4, 700)), (GFX + "gfx1030", code(5, 9000)),
                     (GFX + "gfx90a:xnack+", code(6, 100))])  # fmt: skip
    return pad(first) + pad(second) + ccob(code(7, 5000) + MAGIC + code(8, 100))


def library() -> bytes:
    return elf([(".text", 16, code(9, 777)), (".hip_fatbin", 4096, fatbin()), (".data", 8, code(10, 333))])


def sections(data: bytes) -> dict[str, tuple[int, int]]:
    """name -> (offset, size), read back independently of the script."""
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    (shnum, shstrndx) = struct.unpack_from("<HH", data, 0x3C)
    rows = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    strtab = rows[shstrndx][4]
    names = [data[strtab + r[0] : data.index(b"\0", strtab + r[0])].decode() for r in rows]
    return {name: (r[4], r[5]) for name, r in zip(names[1:], rows[1:], strict=True)}


def header(data: bytes, at: int) -> list[tuple[int, int, str]]:
    assert data[at : at + 24] == MAGIC
    (count,) = struct.unpack_from("<Q", data, at + 24)
    pos, out = at + 32, []
    for _ in range(count):
        offset, size, length = struct.unpack_from("<QQQ", data, pos)
        out.append((offset, size, data[pos + 24 : pos + 24 + length].decode()))
        pos += 24 + length
    return out


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_pruner(*args, timeout=60)


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): f"-> {os.readlink(p)}" if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_symlink() or p.is_file()
    }  # fmt: skip


@pytest.fixture
def lib_dir(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    tensile = root / "rocblas" / "2.47.0" / "library"
    tensile.mkdir(parents=True)
    (root / "libfake.so.1.0").write_bytes(library())
    (root / "libfake.so.1").symlink_to("libfake.so.1.0")
    (root / "libplain.so").write_bytes(elf([(".text", 16, code(11, 100))]))
    (root / "notes.txt").write_text("gfx803 is mentioned in here, but not in the name\n")
    for name in ("Kernels.so-000-gfx1030.hsaco", "Kernels.so-000-gfx90a-xnack+.hsaco", "Kernels.so-000-gfx90a-xnack-.hsaco",
                 "Kernels.so-000-gfx803.hsaco", "TensileLibrary_gfx1030.co", "TensileLibrary_gfx803.co",
                 "TensileLibrary.dat", "gfx90a68.kdb"):  # fmt: skip
        (tensile / name).write_bytes(code(len(name), 64))
    (tensile / "TensileLibrary_gfx803.link.co").symlink_to("TensileLibrary_gfx803.co")
    return root


# --- format handling ---------------------------------------------------------------------------


def test_parse_finds_both_bundles_and_the_compressed_one() -> None:
    data = library()
    start, size = find_section(data)
    assert (start, size) == sections(data)[".hip_fatbin"]
    items = parse_bundles(data, start, start + size)
    assert [type(i).__name__ for i in items] == ["Bundle", "Bundle", "CompressedBundle"]
    first, second, packed = items
    assert [(e.label, e.target_id) for e in first.entries] == [
        ("host", ""), ("gfx1030", "gfx1030"), ("gfx90a", "gfx90a:xnack+"), ("gfx1100", "gfx1100"),
    ]  # fmt: skip
    assert second.start - start == 20480 and second.start % 4096 == 0
    assert (packed.version, packed.end) == (2, start + size)  # the bundle magic inside it is not a bundle


def test_rewrite_keeps_exactly_the_host_and_kept_targets() -> None:
    original = library()
    start, size = find_section(original)
    bundles = [b for b in parse_bundles(original, start, start + size) if isinstance(b, Bundle)]
    plans = [plan_rewrite(b, frozenset({"gfx1030"})) for b in bundles]
    rewritten = bytearray(original)
    for plan in plans:
        apply_plan(rewritten, plan)

    assert len(rewritten) == len(original)
    changed: set[int] = set()
    for b, plan in zip(bundles, plans, strict=True):
        old = header(original, b.start)
        new = header(bytes(rewritten), b.start)
        assert new == [e for e in old if e[2] in (HOST, GFX + "gfx1030")]  # same offsets, sizes, order
        new_end = b.start + len(build_header(plan.kept))
        assert rewritten[new_end : b.start + b.header_size] == bytes(b.header_size - (new_end - b.start))
        for offset, size_, triple in old:
            at = b.start + offset
            if triple in (HOST, GFX + "gfx1030"):
                assert rewritten[at : at + size_] == original[at : at + size_]
            else:
                assert rewritten[at : at + size_] == bytes(size_)
                changed.update(range(at, at + size_))
        changed.update(range(b.start, b.start + b.header_size))
    outside = [i for i in range(len(original)) if original[i] != rewritten[i] and i not in changed]
    assert outside == []
    masked = [r for plan in plans for r in plan.masked_ranges]
    assert masked_sha256(rewritten, len(original), masked) == masked_sha256(original, len(original), masked)
    packed = parse_bundles(original, start, start + size)[2]
    assert rewritten[packed.start : packed.end] == original[packed.start : packed.end]
    assert sections(bytes(rewritten)) == sections(original)


def test_xnack_variants_belong_to_their_processor() -> None:
    data = fatbin()
    first = parse_bundles(data)[0]
    plan = plan_rewrite(first, frozenset({"gfx90a"}))
    assert [e.target_id for e in plan.kept] == ["", "gfx90a:xnack+"]
    assert plan_rewrite(first, frozenset({"gfx90a", "gfx1030", "gfx1100"})) is None


def test_code_shared_with_a_kept_entry_is_never_zeroed() -> None:
    shared = code(12, 8192)
    header_ = MAGIC + struct.pack("<Q", 3)
    for offset, size, triple in ((4096, 0, HOST), (4096, 8192, GFX + "gfx1030"), (8192, 8192, GFX + "gfx803")):  # fmt: skip
        header_ += struct.pack("<QQQ", offset, size, len(triple)) + triple.encode()
    data = header_.ljust(4096, b"\0") + shared + code(13, 4096)
    plan = plan_rewrite(parse_bundles(data)[0], frozenset({"gfx1030"}))
    assert (12288, 16384) in plan.zero_ranges
    assert all(b <= 4096 or a >= 12288 for a, b in plan.zero_ranges)


@pytest.mark.parametrize(
    ("triple", "processor", "dropped"),
    [
        (GFX + "gfx90a:sramecc+:xnack-", "gfx90a", True),
        ("hip-amdgcn-amd-amdhsa-gfx906", "gfx906", True),  # before hipv4 triples had an environment
        (GFX + "gfx1030", "gfx1030", False),
        (HOST, "", False),
        (GFX + "gfx10-3-generic", "gfx10-3-generic", False),  # gfx1030 loads it
        (GFX + "gfx11-generic", "gfx11-generic", True),  # gfx1030 does not
        (GFX + "gfx13-generic", "gfx13-generic", False),  # not a generic processor this script knows
        ("openmp-nvptx64-nvidia-cuda--sm_80", "sm_80", False),
    ],
)
def test_which_entries_go(triple: str, processor: str, dropped: bool) -> None:
    entry = Entry(4096, 10, triple)
    assert (entry.processor, entry.dropped_by(frozenset({"gfx1030"}))) == (processor, dropped)


def test_a_version_1_compressed_bundle_ends_at_the_next_aligned_bundle() -> None:
    blob = ccob(code(14, 3000) + MAGIC + code(15, 500), version=1)
    data = pad(blob) + bundle([(HOST, b""), (GFX + "gfx1030", code(16, 100))])
    packed, after = parse_bundles(data)
    assert (packed.version, packed.start, packed.end) == (1, 0, 4096)
    assert after.start == 4096 and [e.label for e in after.entries] == ["host", "gfx1030"]


@pytest.mark.parametrize(
    ("name", "processors"),
    [
        ("Kernels.so-000-gfx1030.hsaco", {"gfx1030"}),
        ("Kernels.so-000-gfx90a-xnack+.hsaco", {"gfx90a"}),
        ("Kernels.so-000-gfx90a:xnack-.hsaco", {"gfx90a"}),
        ("TensileLibrary_gfx1102.co", {"gfx1102"}),
        ("TensileLibrary_lazy_gfx908.dat", {"gfx908"}),
        ("TensileLibrary.dat", set()),
        ("gfx90a68.kdb", set()),  # MIOpen's gfx90a with 0x68 CUs: ambiguous, so kept
        ("gfx10-3-generic.co", {"gfx10-3-generic"}),
        ("TensileLibrary_gfx11-generic.co", {"gfx11-generic"}),
        ("Kernels.so-000-gfx9-4-generic-xnack-.hsaco", {"gfx9-4-generic"}),
        ("Kernels.so-000-gfx9-generic:xnack+.hsaco", {"gfx9-generic"}),
        ("gfx1100-generic.co", {"gfx1100-generic"}),  # one unknown token (which keeps the file), not gfx1100
        ("TensileLibrary_gfx11-generics.co", set()),  # a letter touches it
        ("libgfxstream.so", set()),
    ],
)
def test_file_names_that_name_a_processor(name: str, processors: set[str]) -> None:
    assert file_processors(name) == processors


def test_a_layout_it_does_not_understand_is_refused() -> None:
    data = bytearray(fatbin())
    data[18000] = 0x5A  # in the padding after the first bundle
    with pytest.raises(LayoutError, match="neither a bundle nor zero padding"):
        parse_bundles(bytes(data))


# --- the command line --------------------------------------------------------------------------


def test_prune_a_tree(lib_dir: Path, tmp_path: Path) -> None:
    lib = lib_dir / "libfake.so.1.0"
    original = lib.read_bytes()
    report_path = tmp_path / "report.json"
    result = run("--keep", "gfx1030,gfx1100", "--lib-dir", str(lib_dir), "--report", str(report_path))
    assert result.returncode == 0, result.stderr
    assert "proof passed" in result.stdout

    pruned = lib.read_bytes()
    assert len(pruned) == len(original)
    start, size = sections(original)[".hip_fatbin"]
    assert pruned[:start] == original[:start] and pruned[start + size :] == original[start + size :]
    assert [t for _, _, t in header(pruned, start)] == [HOST, GFX + "gfx1030", GFX + "gfx1100"]
    assert [t for _, _, t in header(pruned, start + 20480)] == [HOST, GFX + "gfx1100", GFX + "gfx1030"]
    assert (lib_dir / "libfake.so.1").resolve() == lib.resolve()
    remaining = sorted(p.name for p in (lib_dir / "rocblas" / "2.47.0" / "library").iterdir())
    assert remaining == [
        "Kernels.so-000-gfx1030.hsaco",
        "TensileLibrary.dat",
        "TensileLibrary_gfx1030.co",
        "gfx90a68.kdb",
    ]

    report = json.loads(report_path.read_text())
    [entry] = report["files"]
    assert entry["bundles"] == 3 and entry["bundles_rewritten"] == 2
    assert entry["compressed_bundles_left"][0]["version"] == 2 and entry["compressed_bundles"] == 1
    assert entry["entries_kept"] == {"gfx1030": 2, "gfx1100": 2, "host": 2}
    assert entry["entries_dropped"] == {"gfx90a": 2}
    expected_hashes, expected_zeroed = [], 0
    for at in (start, start + 20480):
        old, new = header(original, at), header(pruned, at)
        expected_hashes += [hashlib.sha256(pruned[at + o : at + o + s]).hexdigest() for o, s, _ in new if s]
        old_tail = sum(24 + len(t) for _, _, t in old) - sum(24 + len(t) for _, _, t in new)
        expected_zeroed += old_tail + sum(e[1] for e in old if e not in new)
    assert [o["sha256"] for o in entry["kept_objects"]] == expected_hashes
    assert entry["bytes_zeroed"] == report["totals"]["bytes_zeroed"] == expected_zeroed
    totals = report["totals"]
    # Three kernels and a Tensile library of 64 bytes each, and a symlink to one of them.
    assert totals["files_deleted"] == 5
    assert totals["bytes_deleted"] == 4 * 64 + len("TensileLibrary_gfx803.co")

    assert run("--verify-only", "--keep", "gfx1030,gfx1100", "--lib-dir", str(lib_dir)).returncode == 0
    narrower = run("--verify-only", "--keep", "gfx1030", "--lib-dir", str(lib_dir))
    assert narrower.returncode == 1 and "lists hipv4-amdgcn-amd-amdhsa--gfx1100" in narrower.stderr
    again = run("--keep", "gfx1030,gfx1100", "--lib-dir", str(lib_dir))
    assert again.returncode == 0 and lib.read_bytes() == pruned


def test_verify_only_finds_unpruned_code(lib_dir: Path) -> None:
    result = run("--verify-only", "--keep", "gfx1030", "--lib-dir", str(lib_dir))
    assert result.returncode == 1
    assert "Kernels.so-000-gfx803.hsaco is code for gfx803" in result.stderr


def test_dry_run_changes_nothing(lib_dir: Path, tmp_path: Path) -> None:
    before = snapshot(lib_dir)
    report_path = tmp_path / "r.json"
    result = run("--keep", "gfx1030", "--lib-dir", str(lib_dir), "--dry-run", "--report", str(report_path))
    assert result.returncode == 0, result.stderr
    assert "would zero" in result.stdout
    assert snapshot(lib_dir) == before
    report = json.loads(report_path.read_text())
    assert report["dry_run"] and report["totals"]["files_deleted"] == 5
    assert report["totals"]["bytes_zeroed"] > 0 and report["files"][0]["proof"] == "skipped (dry run)"


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        ("gfx1030,gfx1031", "--keep gfx1031: no such code"),  # a typo: nothing ships gfx1031
        ("gfx90a:xnack+", "processor names like gfx1030"),
        ("sm_80", "processor names like gfx1030"),
        (",", "names no target"),
    ],
)
def test_bad_keep_is_refused(lib_dir: Path, keep: str, message: str) -> None:
    before = snapshot(lib_dir)
    result = run("--keep", keep, "--lib-dir", str(lib_dir))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert snapshot(lib_dir) == before


def test_a_target_only_some_files_have_is_fine(lib_dir: Path) -> None:
    # gfx1100 has bundle entries but no per-target file; gfx803 has files but no bundle entries.
    assert run("--keep", "gfx803", "--lib-dir", str(lib_dir)).returncode == 0
    assert run("--verify-only", "--keep", "gfx803", "--lib-dir", str(lib_dir)).returncode == 0
    start, _ = sections(library())[".hip_fatbin"]
    assert [t for _, _, t in header((lib_dir / "libfake.so.1.0").read_bytes(), start)] == [HOST]


def test_garbage_in_a_fatbin_changes_nothing(lib_dir: Path) -> None:
    lib = lib_dir / "libfake.so.1.0"
    data = bytearray(lib.read_bytes())
    data[sections(bytes(data))[".hip_fatbin"][0] + 18000] = 1
    lib.write_bytes(data)
    before = snapshot(lib_dir)
    result = run("--keep", "gfx1030", "--lib-dir", str(lib_dir))
    assert result.returncode == 3
    assert f"cannot handle {lib}" in result.stderr and "nothing was changed" in result.stderr
    assert snapshot(lib_dir) == before


def test_a_failed_proof_leaves_the_file_as_it_was(
    lib_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sloppy_plans: list[Any] = []

    def sloppy(buf: Any, plan: Any) -> None:
        sloppy_plans.append(plan)
        apply_plan(buf, plan)
        buf[10] = 0x42  # a byte of the ELF header (zero padding), outside every planned range

    # rewrite_file's copy step looks apply_plan up in the module that rewrites the tree.
    monkeypatch.setattr("cudacompat.prune.rewrite.apply_plan", sloppy)
    lib = lib_dir / "libfake.so.1.0"
    before = lib.read_bytes()
    assert main(["--keep", "gfx1030", "--lib-dir", str(lib_dir)]) == 3
    assert sloppy_plans, "the rewrite did not use the patched apply_plan"
    assert "bytes outside the rewritten headers and dropped code changed" in capsys.readouterr().err
    assert lib.read_bytes() == before
    assert sorted(p.name for p in lib_dir.iterdir()) == [
        "libfake.so.1",
        "libfake.so.1.0",
        "libplain.so",
        "notes.txt",
        "rocblas",
    ]


def test_keep_none_means_host_code_only() -> None:
    assert parse_keep(["none"]) == frozenset()
    with pytest.raises(ValueError, match="use 'none'"):
        parse_keep([" , "])


# --- generic processors ------------------------------------------------------------------------


def test_the_generic_table_is_well_formed() -> None:
    assert cudacompat.prune.entries.GENERIC_TARGETS is targets.GENERIC_TARGETS
    members = [m for group in targets.GENERIC_TARGETS.values() for m in group]
    assert len(members) == len(set(members))  # a processor belongs to one generic processor at most
    assert all(PROCESSOR_RE.match(m) for m in members)
    assert not any(PROCESSOR_RE.match(g) for g in targets.GENERIC_TARGETS)
    assert all(FILE_TOKEN_RE.fullmatch(name) for name in [*members, *targets.GENERIC_TARGETS])


@pytest.mark.parametrize(
    ("keep", "kept", "dropped"),
    [
        ("gfx1201", ["gfx1201", "gfx12-generic"], ["gfx1200", "gfx11-generic", "gfx1100", "gfx10-3-generic"]),
        ("gfx1100", ["gfx1100", "gfx11-generic"], ["gfx12-generic", "gfx1101", "gfx1201", "gfx9-generic"]),
        ("gfx1151", ["gfx11-generic"], ["gfx1100", "gfx12-generic"]),
        ("gfx1100,gfx1201", ["gfx11-generic", "gfx12-generic", "gfx1100", "gfx1201"], ["gfx1030"]),
        ("gfx906", ["gfx9-generic:xnack-", "gfx906:sramecc+:xnack-", "gfx906"], ["gfx9-4-generic", "gfx908"]),
        ("gfx942", ["gfx9-4-generic:sramecc+:xnack+", "gfx942:xnack-"], ["gfx9-generic", "gfx90a"]),
        ("gfx1035", ["gfx10-3-generic"], ["gfx1030", "gfx10-1-generic"]),
        ("gfx1013", ["gfx10-1-generic"], ["gfx10-3-generic", "gfx1010"]),
        ("none", ["gfx13-generic", "gfx1100-generic"], ["gfx11-generic", "gfx1100"]),  # unknown names stay
    ],
)
def test_a_target_keeps_its_own_and_its_generic_code(keep: str, kept: list[str], dropped: list[str]) -> None:
    targets = parse_keep([keep])
    assert [t for t in kept if Entry(4096, 10, GFX + t).dropped_by(targets)] == []
    assert [t for t in dropped if not Entry(4096, 10, GFX + t).dropped_by(targets)] == []


def test_a_gpu_loads_its_own_code_before_its_generic_code() -> None:
    entries = [Entry(4096 * i, 10, t) for i, t in enumerate(
        [HOST, GFX + "gfx11-generic", GFX + "gfx1100", GFX + "gfx12-generic", GFX + "gfx90a:xnack+",
         GFX + "gfx90a:xnack-", GFX + "gfx9-generic:xnack-"], start=1)]  # fmt: skip

    def loads(target: str) -> list[str]:
        return [e.target_id for e in loaded_by(entries, target)]

    assert loads("gfx1100") == ["gfx1100"]
    assert loads("gfx1101") == ["gfx11-generic"]
    assert loads("gfx1201") == ["gfx12-generic"]
    assert loads("gfx90a") == ["gfx90a:xnack+", "gfx90a:xnack-"]  # the device's mode picks one
    assert loads("gfx906") == ["gfx9-generic:xnack-"]
    assert loads("gfx1030") == loads("gfx803") == []


def generic_fatbin() -> bytes:
    """One bundle with code for old, generic and one exact processor, one with little but generics."""
    first = bundle([(HOST, b""), (GFX + "gfx803", code(20, 1000)), (GFX + "gfx9-generic:xnack-", code(21, 1100)),
                    (GFX + "gfx908", code(22, 1200)), (GFX + "gfx90a:xnack+", code(23, 1300)),
                    (GFX + "gfx10-3-generic", code(24, 1400)), (GFX + "gfx11-generic", code(25, 5000)),
                    (GFX + "gfx12-generic", code(26, 4500)), (GFX + "gfx1100", code(27, 1600))])  # fmt: skip
    second = bundle([(HOST, b""), (GFX + "gfx11-generic", code(28, 700)), (GFX + "gfx12-generic", code(29, 800)),
                     (GFX + "gfx1201", code(30, 900)), (GFX + "gfx9-4-generic:sramecc+:xnack-", code(31, 600))])  # fmt: skip
    return pad(first) + second


GENERIC_FILES = (
    "TensileLibrary_gfx11-generic.co", "Kernels.so-000-gfx12-generic.hsaco", "TensileLibrary_gfx9-4-generic-xnack-.co",
    "TensileLibrary_gfx1100.co", "TensileLibrary_gfx13-generic.co", "TensileLibrary.dat", "gfx90a68.kdb",
)  # fmt: skip


@pytest.fixture
def generic_dir(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    tensile = root / "rocsolver" / "library"
    tensile.mkdir(parents=True)
    data = elf([(".text", 16, code(32, 500)), (".hip_fatbin", 4096, generic_fatbin())])
    (root / "libgeneric.so.0").write_bytes(data)
    for name in GENERIC_FILES:
        (tensile / name).write_bytes(code(len(name), 32))
    return root


def bundle_starts(data: bytes) -> list[int]:
    start, size = sections(data)[".hip_fatbin"]
    return [at for at in range(start, start + size, 4096) if data[at : at + len(MAGIC)] == MAGIC]


def triples(lib: Path) -> list[list[str]]:
    data = lib.read_bytes()
    return [[t.removeprefix(GFX) for _, _, t in header(data, at)] for at in bundle_starts(data)]


@pytest.mark.parametrize(
    ("keep", "bundles", "files", "loads"),
    [
        ("gfx1201", [[HOST, "gfx12-generic"], [HOST, "gfx12-generic", "gfx1201"]],
         ["Kernels.so-000-gfx12-generic.hsaco"], {"gfx1201": {"gfx12-generic": 1, "gfx1201": 1}}),
        ("gfx1200", [[HOST, "gfx12-generic"], [HOST, "gfx12-generic"]],
         ["Kernels.so-000-gfx12-generic.hsaco"], {"gfx1200": {"gfx12-generic": 2}}),
        ("gfx1100", [[HOST, "gfx11-generic", "gfx1100"], [HOST, "gfx11-generic"]],
         ["TensileLibrary_gfx11-generic.co", "TensileLibrary_gfx1100.co"],
         {"gfx1100": {"gfx1100": 1, "gfx11-generic": 1}}),
        ("gfx1151,gfx942", [[HOST, "gfx11-generic"], [HOST, "gfx11-generic", "gfx9-4-generic:sramecc+:xnack-"]],
         ["TensileLibrary_gfx11-generic.co", "TensileLibrary_gfx9-4-generic-xnack-.co"],
         {"gfx1151": {"gfx11-generic": 2}, "gfx942": {"gfx9-4-generic": 1, "none": 1}}),
    ],
)  # fmt: skip
def test_prune_generic_code(
    generic_dir: Path,
    tmp_path: Path,
    keep: str,
    bundles: list[list[str]],
    files: list[str],
    loads: dict[str, Any],
) -> None:
    lib = generic_dir / "libgeneric.so.0"
    original = lib.read_bytes()
    report_path = tmp_path / "report.json"
    result = run("--keep", keep, "--lib-dir", str(generic_dir), "--report", str(report_path))
    assert result.returncode == 0, result.stderr
    assert "proof passed" in result.stdout

    assert triples(lib) == bundles
    remaining = sorted(p.name for p in (generic_dir / "rocsolver" / "library").iterdir())
    # gfx13-generic is no generic processor this script knows: its file stays, as the ambiguous one does.
    assert remaining == sorted(
        [*files, "TensileLibrary.dat", "TensileLibrary_gfx13-generic.co", "gfx90a68.kdb"]
    )
    report = json.loads(report_path.read_text())
    assert report["files"][0]["loads"] == report["totals"]["loads"] == loads
    for target, counts in loads.items():
        code = ", ".join(f"{'no' if p == 'none' else p} code from {n}" for p, n in sorted(counts.items()))
        assert f"  {target} loads {code} bundles\n" in result.stdout
    # Every code object a kept target loads is still listed at its place, with its bytes.
    pruned = lib.read_bytes()
    starts = bundle_starts(original)
    assert len(starts) == 2 and bundle_starts(pruned) == starts
    for at in starts:
        assert set(header(pruned, at)) <= set(header(original, at))
    for obj in report["files"][0]["kept_objects"]:
        at = obj["offset"]
        assert hashlib.sha256(original[at : at + obj["size"]]).hexdigest() == obj["sha256"]
        assert pruned[at : at + obj["size"]] == original[at : at + obj["size"]]

    assert run("--verify-only", "--keep", keep, "--lib-dir", str(generic_dir)).returncode == 0


def test_verify_only_knows_generic_code(generic_dir: Path) -> None:
    assert run("--keep", "gfx1201", "--lib-dir", str(generic_dir)).returncode == 0
    assert (
        run("--verify-only", "--keep", "gfx1200", "--lib-dir", str(generic_dir)).returncode == 1
    )  # gfx1201's own
    # gfx1200 and gfx1201 both load gfx12-generic code; a gfx1100 loads none of what remains.
    assert run("--verify-only", "--keep", "gfx1200,gfx1201", "--lib-dir", str(generic_dir)).returncode == 0
    narrower = run("--verify-only", "--keep", "gfx1100", "--lib-dir", str(generic_dir))
    assert narrower.returncode == 1
    assert "lists hipv4-amdgcn-amd-amdhsa--gfx12-generic" in narrower.stderr
    assert "Kernels.so-000-gfx12-generic.hsaco is code for gfx12-generic" in narrower.stderr
    assert "no kept target loads" in narrower.stderr


@pytest.mark.parametrize(
    ("keep", "status", "message"),
    [
        ("gfx1035", 0, ""),  # only gfx10-3-generic code: enough
        ("gfx1153,gfx950", 0, ""),
        ("gfx1010", 2, "--keep gfx1010: no such code"),  # neither gfx1010 nor gfx10-1-generic code
        ("gfx11-generic", 2, "not the generic gfx11-generic"),
    ],
)
def test_keep_counts_generic_code(generic_dir: Path, keep: str, status: int, message: str) -> None:
    before = snapshot(generic_dir)
    result = run("--keep", keep, "--lib-dir", str(generic_dir), "--dry-run")
    assert (result.returncode, "Traceback" in result.stderr) == (status, False), result.stderr
    assert message in result.stderr
    assert snapshot(generic_dir) == before


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        # A keep rule blind to generic code: gfx1201 would lose its gfx12-generic code.
        (lambda name, keep: name in keep or not is_known(name), "gfx1201 would not load the same code"),
        # The old rule, which kept every generic entry: gfx11-generic code nothing loads stays.
        (
            lambda name, keep: name in keep or not PROCESSOR_RE.match(name),
            "gfx11-generic: code no kept target",
        ),
    ],
)
def test_the_proof_catches_a_wrong_keep_rule(
    generic_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rule: Any,
    message: str,
) -> None:
    asked: list[str] = []

    def wrong_rule(name: str, keep: frozenset[str]) -> bool:
        asked.append(name)
        return bool(rule(name, keep))

    # Entry.dropped_by and Inventory.doomed_files each look loadable up in their own module.
    monkeypatch.setattr("cudacompat.prune.entries.loadable", wrong_rule)
    monkeypatch.setattr("cudacompat.prune.inventory.loadable", wrong_rule)
    lib = generic_dir / "libgeneric.so.0"
    before = lib.read_bytes()
    assert main(["--keep", "gfx1201", "--lib-dir", str(generic_dir)]) == 3
    assert asked, "the pruner did not use the patched rule"
    assert message in capsys.readouterr().err
    assert lib.read_bytes() == before


def test_the_proof_compares_what_each_target_loads() -> None:
    data = generic_fatbin()
    old = parse_bundles(data)[1]
    keep = frozenset({"gfx1200"})
    hashes = (Hashes(data), Hashes(data))
    kept = tuple(e for e in old.entries if not e.dropped_by(keep))
    prove_loads(old, Bundle(old.start, old.header_size, kept), keep, hashes)
    moved = tuple(Entry(e.offset + 4096 * (e.processor == "gfx12-generic"), e.size, e.triple) for e in kept)
    with pytest.raises(ProofError, match="gfx1200 would not load the same code"):
        prove_loads(old, Bundle(old.start, old.header_size, moved), keep, hashes)
    changed = bytearray(data)
    at = next(e.offset for e in kept if e.processor == "gfx12-generic")
    changed[old.start + at] ^= 1
    with pytest.raises(ProofError, match="gfx1200 would not load the same code"):
        prove_loads(old, Bundle(old.start, old.header_size, kept), keep, (Hashes(data), Hashes(changed)))
