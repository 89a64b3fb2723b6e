"""A STAND-IN for SCALE's tarball (``scale-<version>-amd64.tar.xz``), to test images/scale/Dockerfile.tarball.

The vendor's tarball extracts to one versioned directory, ``scale-<version>-Linux/``, laid
out like /opt/scale (anchors.md 1.2-1.3); the vendor's own install script notes that the
tarball does not reliably set the execute bit on bin/ and runs ``chmod -R u+x bin``. This
stand-in has the same shape: the shared stand-in tree (scale_standin_layout.write_scale_prefix:
scaleenv, scaleinfo, targets/<gfx>/{bin/nvcc, lib/libredscale.so}, LICENSE.txt saying it
is a test stand-in) under ``scale-<version>-Linux/``, its bin/ files WITHOUT the execute
bit, owned by uid/gid 1000 as a user's tar would record them. Nothing here is SCALE.

Also the broken tarballs the refusals are tested with: a tree without bin/scaleenv, and
a file that is not an xz tarball at all.
"""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from support.scale_standin_layout import write_scale_prefix

VERSION = "1.7.2"
TARGETS = ("gfx1030",)


def _user_owned(member: tarfile.TarInfo) -> tarfile.TarInfo:
    member.uid = member.gid = 1000
    member.uname = member.gname = "builder"
    return member


def _pack(tree: Path, top: str, output: Path) -> Path:
    # preset 1: the stand-in is small; the test's time goes to the build, not to xz.
    with tarfile.open(output, "w:xz", preset=1) as archive:
        archive.add(tree / top, arcname=top, filter=_user_owned)
    return output


def write_standin_tarball(
    directory: Path,
    version: str = VERSION,
    name: str | None = None,
    targets: Sequence[str] = TARGETS,
    top: str | None = None,
) -> Path:
    """Write ``directory/scale-<version>-amd64.tar.xz`` (or ``name``) holding
    ``scale-<version>-Linux/`` (or ``top``) with the stand-in layout; bin/ not executable."""
    top = top or f"scale-{version}-Linux"
    with tempfile.TemporaryDirectory(prefix="scale-tarball-") as scratch:
        tree = Path(scratch)
        prefix = tree / top
        write_scale_prefix(prefix, version, targets)
        for tool in (prefix / "bin").iterdir():
            tool.chmod(0o644)  # the vendor's quirk: no execute bit on bin/
        return _pack(tree, top, directory / (name or f"scale-{version}-amd64.tar.xz"))


def write_wrong_layout_tarball(directory: Path, version: str = VERSION) -> Path:
    """A well-formed ``scale-<version>-amd64.tar.xz`` whose tree has no bin/scaleenv."""
    top = f"scale-{version}-Linux"
    with tempfile.TemporaryDirectory(prefix="scale-tarball-") as scratch:
        tree = Path(scratch)
        (tree / top / "share").mkdir(parents=True)
        (tree / top / "share" / "README").write_text("TEST STAND-IN: not SCALE's layout (no bin/scaleenv)\n")
        return _pack(tree, top, directory / f"scale-{version}-amd64.tar.xz")


def write_not_a_tarball(directory: Path, version: str = VERSION) -> Path:
    """A file named like the vendor's tarball that is plain text."""
    path = directory / f"scale-{version}-amd64.tar.xz"
    path.write_text("TEST STAND-IN: this is not an xz tarball\n")
    return path
