"""The GPU device nodes a container is given (/dev/kfd and a render node), real or stand-in.

Docker's --device takes a host path that must be a device node. On a host with an AMD GPU
the real nodes are used as they are: never made, changed or removed here. Where one is
missing (a GPU-less host, as CI's), a stand-in is made AT THE REAL PATH for the length of
the test and removed after: character device 1:3 (what /dev/null is; no GPU node has that
number, which is how a run killed midway is cleaned up next time), mode 0660, /dev/kfd
owned by a group no image has (4711), the render node by video (44). They give access the
way a GPU's nodes do (by group), with no GPU behind them. Stand-ins are at host-wide paths,
so sessions take turns (tests/support/host_locks.py), and the start-of-run sweep leaves alone
those of a live session.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support import host_locks

KFD = Path("/dev/kfd")
DRI = Path("/dev/dri")
STANDIN_RENDER = DRI / "renderD128"
STANDIN_GROUPS = {KFD: 4711, STANDIN_RENDER: 44}
STANDIN_LOCK = host_locks.RUN / "moatbridge-test-gpu-nodes.lock"


@dataclass(frozen=True)
class DeviceNode:
    path: Path
    gid: int  # the owning group, which a container user must join to open it
    mode: int  # permission bits
    standin: bool

    @property
    def open_to_all(self) -> bool:
        """Readable and writable by anyone: no group is needed to open it."""
        return self.mode & 0o006 == 0o006


def _standin_number() -> int:
    return os.stat("/dev/null").st_rdev


def _is_standin(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == _standin_number()


def _real_node(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and not _is_standin(path)


def _node(path: Path, standin: bool) -> DeviceNode:
    info = path.stat()
    return DeviceNode(path, info.st_gid, stat.S_IMODE(info.st_mode), standin)


@contextmanager
def gpu_device_nodes() -> Iterator[tuple[DeviceNode, ...]]:
    """/dev/kfd and the render nodes for the test's duration: the host's real ones where it
    has them (every render node there is), stand-ins (root only) for what it lacks. A session
    with stand-ins holds STANDIN_LOCK until they are gone; another one wanting them waits."""
    real_render = sorted(p for p in DRI.glob("renderD*") if _real_node(p)) if DRI.is_dir() else []
    wanted = [] if _real_node(KFD) else [KFD]
    if not real_render:
        wanted.append(STANDIN_RENDER)
    real = ([] if KFD in wanted else [KFD]) + real_render
    if not wanted:
        yield tuple(_node(p, False) for p in sorted(real, key=str))
        return
    if os.geteuid() != 0:
        raise RuntimeError(f"this host lacks {', '.join(map(str, wanted))}; stand-ins need root")
    with host_locks.held(STANDIN_LOCK), _standins(wanted) as made:
        nodes = [_node(p, False) for p in real] + [_node(p, True) for p in made]
        yield tuple(sorted(nodes, key=lambda node: str(node.path)))


@contextmanager
def _standins(wanted: list[Path]) -> Iterator[list[Path]]:
    """Stand-ins at ``wanted`` for the block (the caller holds STANDIN_LOCK)."""
    for path in wanted:  # a leftover of a killed run is swept by conftest; anything else is not ours
        if path.exists() or path.is_symlink():
            raise RuntimeError(f"{path} exists but is no device node this test understands")
    made_dri = not DRI.exists()
    made: list[Path] = []
    try:
        DRI.mkdir(exist_ok=True)
        for path in wanted:
            os.mknod(path, 0o660 | stat.S_IFCHR, _standin_number())
            made.append(path)
            os.chown(path, 0, STANDIN_GROUPS[path])
            path.chmod(0o660)  # whatever the umask took away
        yield made
    finally:
        for path in made:
            if _is_standin(path):
                path.unlink()
        if made_dri and DRI.is_dir() and not any(DRI.iterdir()):
            DRI.rmdir()


def remove_leaked_standins() -> list[str]:
    """A run killed inside gpu_device_nodes leaves its stand-ins on the host, where detection
    and setup would take them for a GPU: gone (only char 1:3 at those two paths, as root),
    unless a live session holds STANDIN_LOCK (then they are its own, in use). Returns a
    sentence for each stand-in left in place."""
    if os.geteuid() != 0:
        return []
    with host_locks.exclusive_if_free(STANDIN_LOCK) as free:
        if not free:
            return [
                f"{p} kept: a live test session holds {STANDIN_LOCK}"
                for p in STANDIN_GROUPS
                if _is_standin(p)
            ]
        left = []
        for path in STANDIN_GROUPS:
            if not _is_standin(path):  # checked right before the unlink: a real node is never touched
                continue
            try:
                path.unlink()
            except OSError as error:  # e.g. EBUSY: /dev/null bind-mounted there, not a node of ours
                left.append(f"{path} (char 1:3) left in place: {error.strerror}")
        try:
            if DRI.is_dir() and not KFD.exists() and not any(DRI.iterdir()):
                DRI.rmdir()
        except OSError as error:
            left.append(f"{DRI} (empty) left in place: {error.strerror}")
        return left


# Run as root in a new mount namespace: /dev becomes a tmpfs holding everything the host's
# /dev holds (bound in, submounts too) except kfd and dri; then the command runs there.
_DEV_WITHOUT_GPU = r"""set -e
old=$1; shift
mount --rbind /dev "$old"
mount -t tmpfs -o mode=0755 moatbridge-test-dev /dev
for entry in "$old"/* "$old"/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    case $name in kfd|dri) continue ;; esac
    if [ -L "$entry" ]; then cp -P "$entry" "/dev/$name"
    elif [ -d "$entry" ]; then mkdir "/dev/$name"; mount --rbind "$entry" "/dev/$name"
    else : > "/dev/$name"; mount --bind "$entry" "/dev/$name"
    fi
done
umount -l "$old"
exec "$@"
"""


def without_gpu_nodes(argv: list[str], scratch: Path) -> list[str]:
    """``argv`` seeing a /dev without kfd and dri, as on a host without a GPU; the host's
    /dev is untouched (a private mount namespace; needs root and util-linux's unshare).
    ``scratch``: a directory to hold the host's /dev while the new one is put together."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        raise RuntimeError("hiding this host's GPU nodes needs root and unshare")
    old = tempfile.mkdtemp(prefix="host-dev-", dir=scratch)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", _DEV_WITHOUT_GPU, "sh", old, *argv]
