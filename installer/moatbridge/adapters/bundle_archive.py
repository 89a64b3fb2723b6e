"""Bundle files on disk: one uncompressed tar, written and read as a stream, hashed on the way.

Writing puts ``manifest.json``, then ``image.tar`` straight from the engine's save
stream, then ``SHA256SUMS`` into a temp file next to the target and renames it into
place. The image's tar header is written with a placeholder size and rewritten once
the stream has ended, so the image is never held in memory nor copied twice.

Reading is two passes over the file, each in constant memory: ``verify`` hashes
every member and checks names, types and ``SHA256SUMS``; only then does
``image_chunks`` stream ``image.tar``'s bytes (hashing them again, in case the
file changed in between) to whoever loads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from moatbridge.adapters import faults
from moatbridge.adapters.filesystem import WRITE_FAILURES, DiskFull, output_exists
from moatbridge.core.bundle import (
    IMAGE,
    MANIFEST,
    MAX_SMALL_MEMBER,
    SUMS,
    BundleError,
    Manifest,
    checksum_problems,
    member_problem,
    parse_manifest,
    parse_sums,
    render_sums,
)
from moatbridge.core.bundle_image import ArchiveEntry, layout_problem, normal_name, wanted
from moatbridge.errors import InputError, MoatbridgeError

CHUNK = 1 << 20
BLOCK = tarfile.BLOCKSIZE
RECORD = tarfile.RECORDSIZE

Progress = Callable[[int], None]


def _ignore(count: int) -> None:
    return None


@dataclass(frozen=True)
class Member:
    name: str
    size: int
    sha256: str
    offset: int  # where the member's data starts in the bundle file


@dataclass(frozen=True)
class Verified:
    """A bundle whose members all matched SHA256SUMS."""

    path: Path
    manifest: Manifest
    members: tuple[Member, ...]
    size: int  # of the bundle file

    def member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)


_DAMAGED_HINT = (
    "the copy is damaged or incomplete: copy it again and compare 'sha256sum FILE' on both machines"
)


# --- writing -------------------------------------------------------------------------------


def _header(name: str, size: int, mtime: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode, info.type = size, mtime, 0o644, tarfile.REGTYPE
    # GNU format: sizes above 8 GiB fit in the same 512-byte header (base-256), so the
    # placeholder written before the image can be overwritten in place.
    header = info.tobuf(format=tarfile.GNU_FORMAT, encoding="utf-8", errors="strict")
    if len(header) != BLOCK:
        raise AssertionError(f"tar header for {name} is {len(header)} bytes")
    return header


def _padding(size: int) -> bytes:
    return b"\0" * (-size % BLOCK)


def _write_members(
    out: BinaryIO, manifest: bytes, image: Iterable[bytes], on_bytes: Progress
) -> list[Member]:
    mtime = int(time.time())
    members: list[Member] = []

    def small(name: str, data: bytes) -> None:
        out.write(_header(name, len(data), mtime))
        members.append(Member(name, len(data), hashlib.sha256(data).hexdigest(), out.tell()))
        out.write(data + _padding(len(data)))

    small(MANIFEST, manifest)
    header_at = out.tell()
    out.write(b"\0" * BLOCK)  # placeholder: the size is known only at the end of the stream
    digest, size = hashlib.sha256(), 0
    for chunk in image:
        out.write(chunk)
        digest.update(chunk)
        size += len(chunk)
        on_bytes(len(chunk))
    out.write(_padding(size))
    end = out.tell()
    out.seek(header_at)
    out.write(_header(IMAGE, size, mtime))
    out.seek(end)
    members.append(Member(IMAGE, size, digest.hexdigest(), header_at + BLOCK))
    small(SUMS, render_sums({m.name: m.sha256 for m in members}).encode())
    out.write(b"\0" * (2 * BLOCK))  # end-of-archive marker
    out.write(b"\0" * (-out.tell() % RECORD))  # whole records, as tar(1) writes them
    return members


OUTPUT_HINT = "choose another -o FILE, or -o - to stream the bundle to stdout"


def _publish(temp: str, path: Path, force: bool) -> None:
    if force:
        output_exists(path, "bundle", OUTPUT_HINT)  # again: replace a regular file, nothing else
        os.replace(temp, path)
        return
    try:
        os.link(temp, path)  # atomic and never clobbers a file that appeared meanwhile
    except FileExistsError:
        raise InputError(f"{path} already exists.", "pass --force to replace it") from None
    except OSError:  # no hard links on this filesystem
        if os.path.lexists(path):  # a dangling link too: never replaced without --force
            raise InputError(f"{path} already exists.", "pass --force to replace it") from None
        os.replace(temp, path)
        return
    os.unlink(temp)


def write_bundle(
    path: Path, manifest: bytes, image: Iterable[bytes], *, force: bool, on_bytes: Progress = _ignore
) -> tuple[Member, ...]:
    """Write the bundle to ``path`` atomically; readers never see a half-written file."""
    if output_exists(path, "bundle", OUTPUT_HINT) and not force:
        raise InputError(f"{path} already exists.", "pass --force to replace it, or choose another -o FILE")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise InputError(f"Cannot write next to {path}: {exc.strerror}.", "choose another -o FILE") from None
    try:
        with os.fdopen(fd, "wb") as out:
            members = _write_members(out, manifest, image, on_bytes)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o644)
        _publish(temp, path, force)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError) and exc.errno in WRITE_FAILURES:  # exit 74, as for every write
            raise DiskFull(path, exc.errno) from None
        if isinstance(exc, OSError):
            raise MoatbridgeError(
                f"Writing the bundle {path} failed: {exc.strerror or exc}.",
                "check the free space and permissions there (the bundle is about the image's size)",
            ) from None
        raise
    with contextlib.suppress(OSError):
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return tuple(members)


def stream_bundle(
    out: BinaryIO, manifest: bytes, image: Iterable[bytes], on_bytes: Progress = _ignore
) -> tuple[tuple[Member, ...], int]:
    """Write the bundle to a stream (stdout) that cannot seek; returns its members and size.

    tar puts a member's size before its bytes, and the engine tells the image's size only
    at the end of its stream, so the bundle is spooled through an unnamed temporary file
    (in TMPDIR, gone however this ends) and then copied out.
    """
    with tempfile.TemporaryFile(prefix="moatbridge-bundle-") as spool:
        members = _write_members(spool, manifest, image, on_bytes)
        size = spool.tell()
        spool.seek(0)
        while chunk := spool.read(CHUNK):
            out.write(chunk)
        out.flush()
    return tuple(members), size


# --- reading -------------------------------------------------------------------------------


def _open(path: Path) -> BinaryIO:
    """The bundle, opened for reading: a regular file (a FIFO or device is refused at once)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(path)
            raise InputError(f"{path} is not a regular file, so not a bundle.", "pass the bundle file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except FileNotFoundError:
        raise InputError(f"There is no file {path}.", "check the path") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a bundle.", "pass the bundle file") from None
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror}.", "check its permissions") from None


def _refuse(path: Path, problem: str) -> BundleError:
    return BundleError(
        f"The bundle {path} is refused: {problem}.",
        "it was not written by 'moatbridge bundle save'; nothing was loaded",
    )


def _scan(
    path: Path, handle: BinaryIO, size: int, on_bytes: Progress
) -> tuple[list[Member], dict[str, bytes]]:
    """Every member hashed, once its header is known to be one of the bundle's and its
    bytes to be in the file (checked before a byte is hashed)."""
    members: list[Member] = []
    small: dict[str, bytes] = {}
    with tarfile.open(fileobj=handle, mode="r|") as archive:  # streaming: one pass, no seeks
        for info in archive:
            problem = member_problem(info.name)
            if problem is not None:
                raise _refuse(path, problem)
            if not info.isreg():
                raise _refuse(path, f"the member {info.name} is a link, directory or device, not a file")
            if any(m.name == info.name for m in members):
                raise _refuse(path, f"the member {info.name} appears twice")
            if info.issparse():  # its holes would be hashed as data: gigabytes from a few bytes
                raise _refuse(path, f"the member {info.name} is a sparse file")
            if info.offset_data + info.size > size:  # refused before reading: no minutes of hashing
                raise BundleError(f"The bundle {path} is truncated: its member {info.name} claims "
                                  f"{info.size} bytes, more than the file holds.", _DAMAGED_HINT)  # fmt: skip
            keep = info.name != IMAGE
            if keep and info.size > MAX_SMALL_MEMBER:
                raise _refuse(path, f"the member {info.name} is implausibly large ({info.size} bytes)")
            data = archive.extractfile(info)
            if data is None:
                raise _refuse(path, f"the member {info.name} has no data")
            digest, kept = hashlib.sha256(), bytearray()
            while chunk := data.read(CHUNK):
                digest.update(chunk)
                on_bytes(len(chunk))
                if keep:
                    kept += chunk
            members.append(Member(info.name, info.size, digest.hexdigest(), info.offset_data))
            if keep:
                small[info.name] = bytes(kept)
    return members, small


def verify(path: Path, on_bytes: Progress = _ignore) -> Verified:
    """Hash every member while streaming through the file; raise unless all match SHA256SUMS."""
    with _open(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            members, small = _scan(path, handle, size, on_bytes)
        except (tarfile.TarError, EOFError) as exc:
            raise BundleError(
                f"The bundle {path} is truncated or not a tar archive ({exc}).", _DAMAGED_HINT
            ) from None
        except OSError as exc:
            raise InputError(f"Reading {path} failed: {exc.strerror or exc}.", "check the disk") from None
    if MANIFEST not in small and not members:
        raise BundleError(f"The file {path} is empty, not a bundle.", _DAMAGED_HINT)
    if SUMS not in small:
        raise BundleError(
            f"The bundle {path} is incomplete: it has no {SUMS} (the file was probably cut short).",
            _DAMAGED_HINT,
        )
    problems = checksum_problems(parse_sums(small[SUMS].decode("utf-8", "replace")),
                                 {m.name: m.sha256 for m in members})  # fmt: skip
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BundleError(f"The bundle {path} is damaged: {problems[0]}{more}.", _DAMAGED_HINT)
    return Verified(path, parse_manifest(small[MANIFEST]), tuple(members), size)


def image_chunks(verified: Verified, on_bytes: Progress = _ignore) -> Iterator[bytes]:
    """``image.tar``'s bytes from a verified bundle; raises at the end if they changed since."""
    member = verified.member(IMAGE)
    with _open(verified.path) as handle:
        handle.seek(member.offset)
        digest, remaining = hashlib.sha256(), member.size
        while remaining:
            chunk = handle.read(min(CHUNK, remaining))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
            on_bytes(len(chunk))
            yield chunk
            faults.point("bundle.image-chunk-sent", str(member.size - remaining))
    if remaining or digest.hexdigest() != member.sha256:
        raise BundleError(
            f"The bundle {verified.path} changed while it was being loaded.",
            "make sure nothing writes to it, then load it again",
        )


class _Window(io.RawIOBase):
    """A read-only, seekable view of one member's bytes (``image.tar`` inside the bundle)."""

    def __init__(self, handle: BinaryIO, start: int, size: int) -> None:
        self._handle, self._start, self._size, self._at = handle, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self._size}[whence]
        self._at = max(0, min(self._size, base + offset))
        return self._at

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self._size - self._at)
        if count <= 0:
            return 0
        self._handle.seek(self._start + self._at)
        data = self._handle.read(count)
        buffer[: len(data)] = data
        self._at += len(data)
        return len(data)


def _entry(info: tarfile.TarInfo, size: int) -> ArchiveEntry:
    kind = "file" if info.isreg() else "dir" if info.isdir() else "symlink" if info.issym() else "other"
    return ArchiveEntry(info.name, kind, info.size, info.issparse(), info.linkname,
                        info.offset_data + info.size > size)  # fmt: skip


def image_metadata(verified: Verified) -> dict[str, bytes]:
    """The small members of ``image.tar`` (docker's manifest.json, the image config, OCI
    blobs) by the names the engine's extraction gives them, read by seeking past the big
    layers: what the engine would act on, known before it sees a byte (core.bundle_image
    refuses any other layout and checks them)."""
    member = verified.member(IMAGE)
    found: dict[str, bytes] = {}
    entries: list[ArchiveEntry] = []
    total = 0
    with _open(verified.path) as handle:
        window = io.BufferedReader(_Window(handle, member.offset, member.size))
        try:
            with tarfile.open(fileobj=window, mode="r:") as archive:
                for info in archive:
                    entries.append(_entry(info, member.size))
                    if not wanted(entries[-1]):
                        continue
                    total += info.size
                    if total > 16 * MAX_SMALL_MEMBER:
                        raise _refuse(verified.path, "its image.tar holds implausibly many small members")
                    data = archive.extractfile(info)
                    if data is not None:
                        found[normal_name(info.name) or info.name] = data.read()
        except (tarfile.TarError, EOFError) as exc:  # a member running past the end says why
            why = layout_problem(entries) or f"its image.tar is not a docker image archive ({exc})"
            raise _refuse(verified.path, why) from None
    problem = layout_problem(entries)
    if problem is not None:
        raise _refuse(verified.path, problem)
    return found
