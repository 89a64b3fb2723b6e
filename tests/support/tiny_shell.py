"""A tiny image with a shell: the host's bash, sleep and their libraries imported as a rootfs
(a few MB, made in a second), with a stand-in activation and `nvcc`, so a warm container can
sleep and shims can `docker exec` into it without building a toolchain image."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

PROGRAMS = ("bash", "sleep", "cat", "sh", "true")
ACTIVATE = "# stand-in activation: the target is $1\nexport MOATBRIDGE_TARGET=$1\n"
NVCC = "#!/bin/bash\necho 'Cuda compilation tools, release 12.4 (tiny stand-in)'\n"


def _libraries(program: str) -> list[str]:
    listed = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
    found = []
    for line in listed.splitlines():
        words = line.split()
        path = words[2] if "=>" in words and len(words) > 2 else words[0] if words else ""
        if path.startswith("/"):
            found.append(path)
    return found


def shell_rootfs(path: Path) -> Path:
    files: dict[str, str] = {}
    for name in PROGRAMS:
        program = shutil.which(name)
        assert program is not None, f"{name} is not on this host"
        real = os.path.realpath(program)
        files[f"usr/bin/{name}"] = real
        files.update({lib.lstrip("/"): os.path.realpath(lib) for lib in _libraries(real)})
    with tarfile.open(path, "w") as tar:
        for where, source in sorted(files.items()):
            tar.add(source, arcname=where)
        for name in ("bin", "lib", "lib64"):  # merged /usr, as Debian
            link = tarfile.TarInfo(name)
            link.type, link.linkname = tarfile.SYMTYPE, f"usr/{name}"
            if not any(w.startswith(f"{name}/") for w in files):
                tar.addfile(link)
        for where, text, mode in (("opt/moatbridge/bin/activate", ACTIVATE, 0o644),
                                  ("usr/local/bin/nvcc", NVCC, 0o755),
                                  ("tmp/.keep", "", 0o644),
                                  ("data/blob.bin", uuid.uuid4().hex, 0o644)):  # fmt: skip
            info = tarfile.TarInfo(where)
            info.size, info.mode = len(text.encode()), mode
            tar.addfile(info, io.BytesIO(text.encode()))
    return path


def _docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


@contextlib.contextmanager
def imported_shell_image(scratch: Path, repository: str, *labels: str) -> Iterator[tuple[str, str]]:
    """The tiny image imported into the engine as ``repository``:<random tag> with ``labels``
    (each ``key=value``): its (reference, image ID). Afterwards every container made from it
    and the image itself are removed, even when the test removed or retagged the image."""
    reference = f"{repository}:{uuid.uuid4().hex[:8]}"
    mark = f"io.moatbridge.test-image={uuid.uuid4().hex}"
    changes = [part for label in (mark, *labels) for part in ("--change", f"LABEL {label}")]
    made = _docker("import", *changes, str(shell_rootfs(scratch / f"{uuid.uuid4().hex[:8]}.tar")), reference)
    assert made.returncode == 0, made.stderr
    image_id = made.stdout.strip()
    try:
        yield reference, image_id
    finally:
        for container in _docker("ps", "-aq", "--filter", f"label={mark}").stdout.split():
            _docker("rm", "-f", container)
        _docker("rmi", "-f", image_id)
