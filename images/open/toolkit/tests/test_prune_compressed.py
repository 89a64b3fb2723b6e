"""cudacompat.prune and compressed offload bundles (clang's ``CCOB``, versions 1 to 3).

The synthetic bundles are built here independently of the pruner: LLVM's header layout, its
hash (the low 64 bits of the MD5 of the uncompressed bundle, little-endian) and zlib or zstd
streams. zstd comes from Python's ``compression.zstd`` or the ``zstd`` command; CI installs
the command, so the zstd cases never skip there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from cudacompat.prune.bundles import parse_bundle
from cudacompat.prune.compressed import Codec, build_bundle, ccob_header, read_inner, truncated_md5
from cudacompat.prune.inventory import read_fatbin
from cudacompat.prune.plans import CompressedPlan, apply_compressed, plan_compressed
from cudacompat.prune.proofs import ProofError, prove_compressed
from cudacompat.prune.rewrite import rewrite_file
from cudacompat.prune.section import find_section, parse_bundles
from synthetic_bundles import GFX, HOST, bundle, code, elf, pad, run_pruner

LAYOUTS = {1: "<4sHHIQ", 2: "<4sHHIIQ", 3: "<4sHHQQQ"}
ZLIB, ZSTD = 0, 1

try:
    from compression import zstd as zstd_module  # type: ignore[import-not-found]
except ImportError:
    zstd_module = None
ZSTD_CLI = shutil.which("zstd")
HAVE_ZSTD = zstd_module is not None or ZSTD_CLI is not None


def need_zstd() -> None:
    if not HAVE_ZSTD:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs the zstd command (or Python's compression.zstd) for these tests")
        pytest.skip("no zstd here (Python's compression.zstd or the zstd command)")


def zstd_compress(data: bytes) -> bytes:
    if zstd_module is not None:
        return zstd_module.compress(data)
    assert ZSTD_CLI is not None
    return subprocess.run([ZSTD_CLI, "-q", "-c", "-3"], input=data, capture_output=True, check=True).stdout


def zstd_decompress(data: bytes) -> bytes:
    if zstd_module is not None:
        return zstd_module.decompress(data)
    assert ZSTD_CLI is not None
    return subprocess.run([ZSTD_CLI, "-q", "-d", "-c"], input=data, capture_output=True, check=True).stdout


def low_md5(data: bytes) -> int:
    return int.from_bytes(hashlib.md5(data).digest()[:8], "little")


def ccob(inner: bytes, version: int, method: int) -> bytes:
    """A compressed bundle as clang's CompressedOffloadBundle::compress writes it."""
    payload = zlib.compress(inner) if method == ZLIB else zstd_compress(inner)
    total = struct.calcsize(LAYOUTS[version]) + len(payload)
    sizes = (len(inner),) if version == 1 else (total, len(inner))
    return struct.pack(LAYOUTS[version], b"CCOB", version, method, *sizes, low_md5(inner)) + payload


def read_ccob(data: bytes, at: int, end: int | None = None) -> tuple[tuple[int, ...], bytes]:
    """(header fields, decompressed bytes) of the compressed bundle at ``at``."""
    version = struct.unpack_from("<H", data, at + 4)[0]
    layout = LAYOUTS[version]
    fields = struct.unpack_from(layout, data, at)
    stop = at + fields[3] if version > 1 else end
    payload = data[at + struct.calcsize(layout) : stop]
    if fields[2] == ZLIB:
        inflate = zlib.decompressobj()
        out = inflate.decompress(payload)
        assert inflate.eof and not inflate.unused_data.strip(b"\0")
    else:
        out = zstd_decompress(payload)
    assert len(out) == fields[-2] and low_md5(out) == fields[-1]
    return fields, out


def header(data: bytes) -> list[tuple[int, int, str]]:
    (count,) = struct.unpack_from("<Q", data, 24)
    pos, out = 32, []
    for _ in range(count):
        offset, size, length = struct.unpack_from("<QQQ", data, pos)
        out.append((offset, size, data[pos + 24 : pos + 24 + length].decode()))
        pos += 24 + length
    return out


OBJECTS = {
    "gfx1030": code(41, 3000), "gfx90a:xnack+": code(42, 2500), "gfx1100": code(43, 5000),
    "gfx11-generic": code(44, 1200), "gfx12-generic": code(45, 900), "gfx1201": code(46, 700),
}  # fmt: skip


def inner_bundle(names: list[str]) -> bytes:
    return bundle([(HOST, b""), *((GFX + n, OBJECTS[n]) for n in names)])


def compressed_library(version: int, method: int) -> tuple[bytes, list[int]]:
    """An ELF file whose .hip_fatbin holds an uncompressed bundle and two compressed ones (with
    generic code in the second); returns it and the section offsets of the compressed ones."""
    first = pad(
        bundle([(HOST, b""), (GFX + "gfx1030", code(47, 2000)), (GFX + "gfx90a:xnack+", code(48, 900))])
    )
    one = pad(ccob(inner_bundle(["gfx1030", "gfx90a:xnack+", "gfx1100"]), version, method))
    two = pad(ccob(inner_bundle(["gfx11-generic", "gfx1030", "gfx12-generic", "gfx1201"]), version, method))
    section = first + one + two
    data = elf([(".text", 16, code(49, 500)), (".hip_fatbin", 4096, section), (".data", 8, code(50, 77))])
    return data, [len(first), len(first) + len(one)]


def fatbin_range(data: bytes) -> tuple[int, int]:
    start, size = find_section(data)
    return start, start + size


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_pruner(*args, timeout=120, env=env)


CASES = [(1, ZLIB), (2, ZLIB), (3, ZLIB), (2, ZSTD), (3, ZSTD)]
IDS = ["v1-zlib", "v2-zlib", "v3-zlib", "v2-zstd", "v3-zstd"]


def check_case(version: int, method: int) -> None:
    if method == ZSTD:
        need_zstd()
        if version == 1 and zstd_module is None:
            pytest.skip("version 1 zstd needs compression.zstd")


# --- format ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "method"), CASES, ids=IDS)
def test_headers_parse_as_llvm_writes_them(version: int, method: int) -> None:
    check_case(version, method)
    data, offsets = compressed_library(version, method)
    start, end = fatbin_range(data)
    items = parse_bundles(data, start, end)
    assert [type(i).__name__ for i in items] == ["Bundle", "CompressedBundle", "CompressedBundle"]
    codec = Codec()
    for item, offset, nxt in zip(items[1:], offsets, [start + offsets[1], end], strict=True):
        fields, inner = read_ccob(data, start + offset, nxt)
        assert (item.start, item.version, item.method) == (start + offset, version, method)
        assert (item.uncompressed_size, item.stored_hash) == (len(inner), low_md5(inner))
        assert item.header_size == {1: 20, 2: 24, 3: 32}[version]
        if version > 1:
            assert item.end == item.start + fields[3]
        read = read_inner(data, item, codec)
        assert read.problem == "" and [(e.offset, e.size, e.triple) for e in read.entries] == header(inner)


def test_the_hash_is_the_low_half_of_the_md5_little_endian() -> None:
    inner = inner_bundle(["gfx1030"])
    assert truncated_md5(inner) == struct.unpack("<Q", hashlib.md5(inner).digest()[:8])[0]
    head = ccob_header(3, ZLIB, 10, inner)
    assert struct.unpack(LAYOUTS[3], head) == (b"CCOB", 3, ZLIB, 42, len(inner), low_md5(inner))


def test_a_new_bundle_has_llvms_layout() -> None:
    built = build_bundle(
        [(HOST, b""), (GFX + "gfx1030", OBJECTS["gfx1030"]), (GFX + "gfx1201", OBJECTS["gfx1201"])]
    )
    # LLVM: the host at the first boundary after the header (an offset of 0 reads as no bundle),
    # each object at the next 4096 boundary, the data ending with the last object.
    assert header(built) == [(4096, 0, HOST), (4096, 3000, GFX + "gfx1030"), (8192, 700, GFX + "gfx1201")]
    assert len(built) == 8192 + 700 and built[8192:] == OBJECTS["gfx1201"]
    assert built == inner_bundle(["gfx1030", "gfx1201"])  # the tests' own builder agrees


# --- pruning -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "method"), CASES, ids=IDS)
def test_prune_compressed_bundles(tmp_path: Path, version: int, method: int) -> None:
    check_case(version, method)
    data, offsets = compressed_library(version, method)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libfake.so").write_bytes(data)
    report_path = tmp_path / "report.json"
    result = run("--keep", "gfx1030,gfx1201", "--lib-dir", str(lib), "--report", str(report_path))
    assert result.returncode == 0, result.stderr
    assert "3/3 bundles rewritten (2 compressed)" in result.stdout and "proof passed" in result.stdout

    pruned = (lib / "libfake.so").read_bytes()
    assert len(pruned) == len(data)
    start, end = fatbin_range(data)
    assert pruned[:start] == data[:start] and pruned[end:] == data[end:]
    expected = [
        [HOST, GFX + "gfx1030"],  # gfx1100 and gfx90a go
        [HOST, GFX + "gfx1030", GFX + "gfx12-generic", GFX + "gfx1201"],  # gfx1201 keeps gfx12-generic
    ]
    report = json.loads(report_path.read_text())
    [entry] = report["files"]
    nexts = [start + offsets[1], end]  # where the next bundle starts (the section ends)
    for offset, nxt, triples, rewritten in zip(
        offsets, nexts, expected, entry["compressed_bundles_rewritten"], strict=True
    ):
        at = start + offset
        _, old_inner = read_ccob(data, at, nxt)
        fields, inner = read_ccob(pruned, at, nxt)
        assert fields[:3] == (b"CCOB", version, method)
        layout = header(inner)
        assert [t for _, _, t in layout] == triples
        old = {t: old_inner[o : o + s] for o, s, t in header(old_inner)}
        assert all(inner[o : o + s] == old[t] for o, s, t in layout)
        assert layout[0][0] == 4096 and all(o % 4096 == 0 for o, _, _ in layout)
        new_end = at + fields[3] if version > 1 else at + rewritten["new_size"]
        assert rewritten["new_size"] == new_end - at < rewritten["size"]
        assert not pruned[new_end:nxt].strip(b"\0")  # the old bundle's rest is zeros
        assert (rewritten["offset"], rewritten["version"]) == (offset, version)
        assert rewritten["new_uncompressed_size"] == len(inner)
    assert entry["compressed_bundles"] == 2 and entry["compressed_bundles_left"] == []
    assert entry["entries_dropped"] == {"gfx1100": 1, "gfx11-generic": 1, "gfx90a": 2}
    assert entry["loads"] == {"gfx1030": {"gfx1030": 3}, "gfx1201": {"gfx1201": 1, "none": 2}}
    totals = report["totals"]
    assert (
        totals["compressed_bundles"],
        totals["compressed_bundles_rewritten"],
        totals["compressed_bundles_left"],
    ) == (2, 2, 0)
    assert totals["loads"]["gfx1201"] == {"gfx1201": 1, "none": 2}

    assert run("--verify-only", "--keep", "gfx1030,gfx1201", "--lib-dir", str(lib)).returncode == 0
    narrower = run("--verify-only", "--keep", "gfx1030", "--lib-dir", str(lib))
    assert (
        narrower.returncode == 1
        and "compressed bundle at" in narrower.stderr
        and "gfx1201" in narrower.stderr
    )
    again = run("--keep", "gfx1030,gfx1201", "--lib-dir", str(lib))
    assert again.returncode == 0 and (lib / "libfake.so").read_bytes() == pruned


def test_verify_only_and_keep_see_inside_compressed_bundles(tmp_path: Path) -> None:
    data, _ = compressed_library(3, ZLIB)
    (tmp_path / "libfake.so").write_bytes(data)
    found = run("--verify-only", "--keep", "gfx1030,gfx90a,gfx1100", "--lib-dir", str(tmp_path))
    assert found.returncode == 1
    assert "compressed bundle at .hip_fatbin+0x" in found.stderr and "gfx11-generic" not in found.stderr
    assert "lists hipv4-amdgcn-amd-amdhsa--gfx1201" in found.stderr and "not inspected" not in found.stderr
    # gfx1201 and gfx1151 (through gfx11-generic) have code only inside compressed bundles.
    dry = run("--dry-run", "--keep", "gfx1201,gfx1151", "--lib-dir", str(tmp_path))
    assert dry.returncode == 0, dry.stderr
    missing = run("--dry-run", "--keep", "gfx906", "--lib-dir", str(tmp_path))
    assert missing.returncode == 2 and "gfx1201" in missing.stderr and "gfx11-generic" in missing.stderr
    assert (tmp_path / "libfake.so").read_bytes() == data


def test_without_zstd_zstd_bundles_are_left_and_reported(tmp_path: Path) -> None:
    need_zstd()
    zstd_data, _ = compressed_library(3, ZSTD)
    zlib_data, _ = compressed_library(2, ZLIB)
    (tmp_path / "libzstd.so").write_bytes(zstd_data)
    (tmp_path / "libzlib.so").write_bytes(zlib_data)
    env = {"PRUNE_TARGETS_ZSTD": "none"}
    needed = run("--tools-needed", "--lib-dir", str(tmp_path), env=env)
    assert needed.returncode == 0 and needed.stdout.split() == ["zstd"]
    assert run("--tools-needed", "--lib-dir", str(tmp_path)).stdout == ""
    verify = run("--verify-only", "--keep", "gfx1030", "--lib-dir", str(tmp_path), env=env)
    assert "2 compressed bundles not inspected: no zstd here" in verify.stderr
    report_path = tmp_path.parent / "report.json"
    result = run("--keep", "gfx1030", "--lib-dir", str(tmp_path), "--report", str(report_path), env=env)
    assert result.returncode == 0, result.stderr
    assert "2 compressed bundles left as they were (no zstd here" in result.stdout
    report = {Path(f["path"]).name: f for f in json.loads(report_path.read_text())["files"]}
    assert [
        c["reason"].startswith("no zstd here") for c in report["libzstd.so"]["compressed_bundles_left"]
    ] == [True, True]
    assert len(report["libzlib.so"]["compressed_bundles_rewritten"]) == 2
    start, end = fatbin_range(zstd_data)
    pruned = (tmp_path / "libzstd.so").read_bytes()
    first = parse_bundles(zstd_data, start, end)[1].start
    assert pruned[first:end] == zstd_data[first:end] and pruned != zstd_data  # the uncompressed one shrank


def test_an_unreadable_compressed_bundle_is_left(tmp_path: Path) -> None:
    data, offsets = compressed_library(2, ZLIB)
    start, _ = fatbin_range(data)
    at = start + offsets[0] + 24 + 40
    broken = data[:at] + bytes(b ^ 0x55 for b in data[at : at + 16]) + data[at + 16 :]
    (tmp_path / "libfake.so").write_bytes(broken)
    report_path = tmp_path.parent / "report.json"
    result = run("--keep", "gfx1030", "--lib-dir", str(tmp_path), "--report", str(report_path))
    assert result.returncode == 0, result.stderr
    [entry] = json.loads(report_path.read_text())["files"]
    [left] = entry["compressed_bundles_left"]
    assert left["offset"] == offsets[0] and "cannot" in left["reason"]
    assert len(entry["compressed_bundles_rewritten"]) == 1


# --- the proof ---------------------------------------------------------------------------------


def _planned(version: int = 3) -> tuple[bytes, int, object, object]:
    data, _ = compressed_library(version, ZLIB)
    start, end = fatbin_range(data)
    codec = Codec()
    cb = read_inner(data, parse_bundles(data, start, end)[2], codec)
    plan = plan_compressed(data, cb, frozenset({"gfx1201"}), codec)
    assert isinstance(plan, CompressedPlan)
    return data, end, plan, codec


def _rewritten(data: bytes, plan: object) -> bytearray:
    buf = bytearray(data)
    apply_compressed(buf, plan)
    return buf


def test_the_proof_passes_a_faithful_rewrite() -> None:
    data, end, plan, codec = _planned()
    prove_compressed(_rewritten(data, plan), end, plan, frozenset({"gfx1201"}), codec)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        ("code", "would not load the same code"),
        ("hash", "does not state the size and hash"),
        ("stray", "does not hold the planned bundle"),
        ("tail", "is not zero"),
    ],
)
def test_the_proof_catches_a_bad_compressed_rewrite(tamper: str, message: str) -> None:
    data, end, plan, codec = _planned()
    keep = frozenset({"gfx1201"})
    old = read_ccob(data, plan.bundle.start)[1]
    objects = [(t, old[o : o + s]) for o, s, t in header(old) if t == HOST or "gfx12" in t]
    if tamper == "stray":
        objects.append((GFX + "gfx1100", OBJECTS["gfx1100"]))
    inner = bytearray(build_bundle(objects))
    if tamper == "code":
        inner[-1] ^= 1
    payload = zlib.compress(bytes(inner))
    head = ccob_header(3, ZLIB, len(payload), bytes(inner))
    if tamper == "hash":
        head = head[:-8] + struct.pack("<Q", low_md5(bytes(inner)) ^ 1)
    blob = head + payload
    plan = CompressedPlan(plan.bundle, plan.kept, plan.dropped, parse_bundle(inner, 0, len(inner))
                          if tamper != "stray" else plan.new_inner, blob, plan.loads, plan.kept_digests)  # fmt: skip
    buf = _rewritten(data, plan)
    if tamper == "tail":
        buf[plan.bundle.start + len(blob) + 5] = 1
    with pytest.raises(ProofError, match=message):
        prove_compressed(buf, end, plan, keep, codec)


def test_a_proof_failure_leaves_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, _ = compressed_library(3, ZLIB)
    path = tmp_path / "libfake.so"
    path.write_bytes(data)
    broken_plans: list[object] = []

    def broken(buf: object, plan: object) -> None:
        broken_plans.append(plan)
        apply_compressed(buf, plan)
        buf[plan.bundle.start + len(plan.blob) - 1] ^= 0xFF  # type: ignore[index]

    # rewrite_file's copy step looks apply_compressed up in the module that rewrites the tree.
    monkeypatch.setattr("cudacompat.prune.rewrite.apply_compressed", broken)
    fatbin = read_fatbin(path, Codec())
    with pytest.raises(ProofError, match="the file was left as it was"):
        rewrite_file(fatbin, frozenset({"gfx1030"}), dry_run=False)
    assert broken_plans, "the rewrite did not use the patched apply_compressed"
    assert path.read_bytes() == data and sorted(p.name for p in tmp_path.iterdir()) == ["libfake.so"]
