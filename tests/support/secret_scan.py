"""Looking for secret bytes in what an image carries: every file of every layer (names and
link targets too, decompressing .gz/.xz/.bz2 members), and its JSON (config: history, env,
labels). Shared by the SCALE recipe and secrets tests."""

from __future__ import annotations

import bz2
import gzip
import lzma
import secrets
import subprocess
import tarfile
from pathlib import Path
from typing import IO


def _expand(name: str, data: bytes) -> bytes | None:
    for suffix, decompress in ((".gz", gzip.decompress), (".xz", lzma.decompress), (".bz2", bz2.decompress)):
        if name.endswith(suffix):
            try:
                return decompress(data)
            except (OSError, EOFError, lzma.LZMAError, ValueError):
                return None
    return None


def scan_bytes(where: str, data: bytes, needles: dict[str, bytes], found: list[str]) -> None:
    """Append "<label> in <where>" for every needle in `data` (and in it decompressed)."""
    found += [f"{label} in {where}" for label, needle in needles.items() if needle in data]
    expanded = _expand(where, data)
    if expanded is not None:
        scan_bytes(f"{where} (decompressed)", expanded, needles, found)


def _scan_layer(layer: str, fileobj: IO[bytes], needles: dict[str, bytes], found: list[str]) -> int:
    files = 0
    with tarfile.open(fileobj=fileobj, mode="r|") as inner:
        for member in inner:
            meta = " ".join([member.name, member.linkname, *member.pax_headers.values()]).encode()
            scan_bytes(f"{layer}:{member.name} (name/metadata)", meta, needles, found)
            if member.isfile():
                handle = inner.extractfile(member)
                assert handle is not None
                scan_bytes(f"{layer}:{member.name}", handle.read(), needles, found)
                files += 1
    return files


def scan_saved_image(image: str, needles: dict[str, bytes], workdir: Path) -> tuple[list[str], int]:
    """``docker save`` the image; every needle in every file of every layer, and in its JSON.
    Returns (findings, files scanned in layers)."""
    archive = workdir / f"save-{secrets.token_hex(4)}.tar"
    subprocess.run(["docker", "save", "-o", str(archive), image], check=True, timeout=600)
    found: list[str] = []
    files = 0
    try:
        with tarfile.open(archive) as outer:
            for member in outer:
                if not member.isfile():
                    continue
                handle = outer.extractfile(member)
                assert handle is not None
                if member.name.endswith("layer.tar"):
                    files += _scan_layer(member.name, handle, needles, found)
                else:  # manifest.json, the config JSON (history, env, labels), repositories
                    scan_bytes(member.name, handle.read(), needles, found)
    finally:
        archive.unlink()
    return found, files
