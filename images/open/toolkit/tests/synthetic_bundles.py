"""Offload bundles and ELF files made byte by byte, independently of the pruner, and the
pruner run as the image runs it."""

from __future__ import annotations

import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import cudacompat

# The folder holding the cudacompat package: on PYTHONPATH, as /opt/moatbridge/lib is in the image.
SOURCE = Path(cudacompat.__file__).resolve().parent.parent
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
HOST = "host-x86_64-unknown-linux--"
GFX = "hipv4-amdgcn-amd-amdhsa--"


def run_pruner(
    *args: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python3 -S -m cudacompat.prune ARGS`` in a new interpreter."""
    argv = [sys.executable, "-S", "-m", "cudacompat.prune", *args]
    environ = {**os.environ, **(env or {}), "PYTHONPATH": str(SOURCE)}
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=environ)


def bundle(entries: list[tuple[str, bytes]], first_offset: int = 4096, align: int = 4096) -> bytes:
    """An uncompressed bundle: header, then each code object at the next ``align`` boundary."""
    layout, offset = [], first_offset
    for triple, code in entries:
        layout.append((offset, len(code), triple))
        offset = -(-(offset + len(code)) // align) * align if code else offset
    header = MAGIC + struct.pack("<Q", len(entries))
    header += b"".join(struct.pack("<QQQ", o, s, len(t)) + t.encode() for o, s, t in layout)
    out = bytearray(header.ljust(first_offset, b"\0"))
    for (o, s, _), (_, code) in zip(layout, entries, strict=True):
        out[len(out) :] = bytes(o - len(out))
        out[o : o + s] = code
    return bytes(out)


def ccob(payload: bytes, version: int = 2) -> bytes:
    if version == 1:
        return b"CCOB" + struct.pack("<HHIQ", 1, 1, 4 * len(payload), 0x1234) + payload
    return b"CCOB" + struct.pack("<HHIIQ", 2, 1, 24 + len(payload), 4 * len(payload), 0x1234) + payload


def pad(data: bytes, align: int = 4096) -> bytes:
    return data + bytes(-len(data) % align)


def elf(sections: list[tuple[str, int, bytes]]) -> bytes:
    """A 64-bit little-endian ELF file with the given (name, alignment, bytes) sections and .shstrtab."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _, _ in sections) + b".shstrtab\0"
    body, headers, name_at = bytearray(64), [bytes(64)], 1
    for name, align, data in [*sections, (".shstrtab", 1, names)]:
        body += bytes(-len(body) % align)
        kind, flags = (3, 0) if name == ".shstrtab" else (1, 2)  # STRTAB; PROGBITS + ALLOC
        headers.append(
            struct.pack("<IIQQQQIIQQ", name_at, kind, flags, len(body), len(body), len(data), 0, 0, align, 0)
        )
        name_at += len(name) + 1
        body += data
    body += bytes(-len(body) % 8)
    shoff = len(body)
    body[:64] = struct.pack(
        "<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 3, 62, 1, 0, 0, shoff, 0, 64, 56, 0, 64,
        len(headers), len(headers) - 1,
    )  # fmt: skip
    return bytes(body) + b"".join(headers)


def code(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)
