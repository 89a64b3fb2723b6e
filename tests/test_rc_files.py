"""rc files come back byte for byte, in every shape people have.

Each case writes a real rc file, adds moatbridge's block through the same adapter setup
uses, removes it as uninstall does, and compares bytes. Ambiguous markers are refused with
nothing written; an rc file that cannot be edited stops neither uninstall nor the rest of
its work."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from moatbridge.adapters.filesystem import DiskFull, RewriteFailed
from moatbridge.adapters.toolchain_files import RcFileError, edit_rc, unedit_rc
from moatbridge.core import rc_block
from moatbridge.core.activation import rc_block as block_for
from moatbridge.errors import MoatbridgeError

from support.environ import environ_without, strip_environ

BLOCK = block_for("/home/u/.local/share/moatbridge/env", False)

SHAPES = {
    "lf": b"export A=1\nalias ll='ls -l'\n",
    "crlf": b"export A=1\r\nalias ll='ls -l'\r\n",
    "lone-cr": b"export A=1\ralias ll='ls -l'\r",
    "no-final-newline": b"export A=1",
    "crlf-no-final-newline": b"export A=1\r\nexport B=2",
    "latin-1": b"# caf\xe9\nexport NAME='J\xfcrgen'\n",
    "blank-lines": b"\n\n\nexport A=1\n\n",
    "mixed-endings": b"a\r\nb\nc\r\n",
    "empty": b"",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_comes_back_byte_for_byte(tmp_path: Path, shape: str) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(SHAPES[shape])
    rc.chmod(0o600)
    assert edit_rc(rc, BLOCK).changed
    edited = rc.read_bytes()
    assert edited.startswith(SHAPES[shape]) or not SHAPES[shape].endswith((b"\n", b"\r"))
    assert edited.count(b"# >>> moatbridge >>>") == 1
    if b"\r\n" in SHAPES[shape] and b"\n" not in SHAPES[shape].replace(b"\r\n", b""):
        assert edited.count(b"\n") == edited.count(b"\r\n")  # the block uses the file's endings
    assert not edit_rc(rc, BLOCK).changed  # idempotent
    assert unedit_rc(rc, created=False)
    assert rc.read_bytes() == SHAPES[shape]
    assert stat.S_IMODE(rc.stat().st_mode) == 0o600


def test_a_line_appended_after_the_block_keeps_its_own_line(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(b"export A=1")  # no final newline
    edit_rc(rc, BLOCK)
    with rc.open("ab") as handle:
        handle.write(b"export X=2\n")
    unedit_rc(rc, created=False)
    assert rc.read_bytes() == b"export A=1\nexport X=2\n"


def test_a_symlinked_rc_file_is_edited_at_its_target(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "bashrc"
    target.write_bytes(b"export A=1\n")
    rc = tmp_path / ".bashrc"
    rc.symlink_to(target)
    edit_rc(rc, BLOCK)
    assert rc.is_symlink() and b"moatbridge" in target.read_bytes()
    unedit_rc(rc, created=True)  # even "created" never deletes through a link
    assert rc.is_symlink() and target.read_bytes() == b"export A=1\n"


def test_a_dangling_symlink_gets_its_target_and_uninstall_takes_it_back(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    rc = tmp_path / ".bashrc"
    rc.symlink_to(dotfiles / "bashrc")  # the checkout has no bashrc (yet)
    written = edit_rc(rc, BLOCK)
    assert written.created and rc_block.contains((dotfiles / "bashrc").read_bytes(), "rc")
    assert unedit_rc(rc, written.created)
    assert rc.is_symlink() and not rc.exists() and list(dotfiles.iterdir()) == []


def test_a_dangling_symlink_into_a_missing_folder_is_refused(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.symlink_to(tmp_path / "dotfiles" / "shell" / "bashrc")
    with pytest.raises(RcFileError) as raised:
        edit_rc(rc, BLOCK)
    assert raised.value.exit_code == 2 and "does not exist" in raised.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == [".bashrc"]  # no folders made


def test_a_hard_linked_rc_file_stays_linked(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(b"export A=1\n")
    twin = tmp_path / "backup-bashrc"
    os.link(rc, twin)
    edit_rc(rc, BLOCK)
    assert rc.stat().st_ino == twin.stat().st_ino and twin.read_bytes() == rc.read_bytes()
    unedit_rc(rc, created=False)
    assert rc.stat().st_ino == twin.stat().st_ino and twin.read_bytes() == b"export A=1\n"


@pytest.mark.skipif(os.getuid() != 0, reason="changing a file's owner needs root")
def test_the_owner_is_kept(tmp_path: Path) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(b"export A=1\n")
    os.chown(rc, 1234, 2345)
    edit_rc(rc, BLOCK)
    assert (rc.stat().st_uid, rc.stat().st_gid) == (1234, 2345)


AMBIGUOUS = {
    "orphan-begin": b"# >>> moatbridge >>>\nexport MINE=1\nexport ALSO_MINE=2\n",
    "orphan-end": b"export MINE=1\n# <<< moatbridge <<<\n",
    "end-before-begin": b"# <<< moatbridge <<<\nexport MINE=1\n# >>> moatbridge >>>\n",
    "two-blocks": rc_block.insert(b"", BLOCK, "rc") * 2,
    "user-line-inside": rc_block.insert(b"", BLOCK, "rc").replace(b"; fi\n", b"; fi\nexport MINE=1\n"),
    "lookalike-marker": b"# >>> moatbridge >>> (my own copy)\nexport MINE=1\n# <<< moatbridge <<<\n",
}


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_ambiguous_markers_are_refused_and_nothing_is_written(tmp_path: Path, case: str) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(AMBIGUOUS[case])
    for action in (lambda: edit_rc(rc, BLOCK), lambda: unedit_rc(rc, created=False)):
        with pytest.raises(rc_block.AmbiguousBlock) as raised:
            action()
        assert raised.value.exit_code == 2 and raised.value.hint
        assert str(rc) in raised.value.message
        assert rc.read_bytes() == AMBIGUOUS[case]


def test_an_rc_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    rc = tmp_path / ".zshrc"
    rc.mkdir()
    with pytest.raises(RcFileError):
        edit_rc(rc, BLOCK)
    with pytest.raises(RcFileError):
        unedit_rc(rc, created=False)


@pytest.mark.parametrize("recorded", [True, False], ids=["block-recorded", "never-had-a-block"])
def test_uninstall_finishes_and_reports_what_it_could_not_edit(tmp_path: Path, recorded: bool) -> None:
    """A ~/.zshrc directory the state recorded a block in is reported (exit 1); one that
    never had a block is none of uninstall's business (exit 0). The rest goes either way."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".zshrc").mkdir()  # a directory where zsh's rc file would be
    bashrc = b"export A=1\r\nexport B=2\r\n"
    profile = b"# caf\xe9\nexport A=1"  # latin-1, no final newline
    (home / ".bashrc").write_bytes(bashrc)
    (home / ".profile").write_bytes(profile)
    edit_rc(home / ".bashrc", BLOCK)
    edit_rc(home / ".profile", BLOCK)
    shared = home / ".local/share/moatbridge"
    shared.mkdir(parents=True)
    (shared / "env").write_text("# generated by moatbridge\nexport X=1\n")
    files = [{"path": str(home / ".zshrc"), "kind": "rc-block", "created": False}] if recorded else []
    (shared / "state.json").write_text(json.dumps({"version": 1, "toolchains": [], "files": files}))
    env = environ_without("MOATBRIDGE_", "XDG_", "ZDOTDIR")
    env["HOME"] = str(home)
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "uninstall", "--all", "--keep-images"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == (1 if recorded else 0), result.stderr
    assert "Traceback" not in result.stderr
    reported = str(home / ".zshrc") in result.stderr and "not a regular file" in result.stderr
    assert reported is recorded, result.stderr
    assert (home / ".bashrc").read_bytes() == bashrc
    assert (home / ".profile").read_bytes() == profile
    assert not (shared / "env").exists()  # the rest of uninstall went on
    assert (home / ".zshrc").is_dir()


# --- which files are moatbridge's -------------------------------------


@pytest.mark.parametrize(
    ("head", "ours"),
    [
        (b"# generated by moatbridge; changes here are overwritten.\n", True),
        (b"#!/bin/sh\n# generated by moatbridge shim for nvcc; do not edit\n", True),
        (b"open-gfx1030\n# generated by moatbridge\n", True),  # the default pointer
        (b"#!/bin/bash\n# generated by moatbridge: Slurm batch script\n", True),
        (b"#!/bin/bash\r\n# generated by moatbridge\r\n", True),
        (b"#!/bin/bash\nsrun make\n# generated by moatbridge\n", False),  # line 3
        (b"#!/bin/bash\n# copied from '# generated by moatbridge'\n", False),  # quoted inside
        (b"# generated by moatbridge-ish tool\n", False),
        (b"  # generated by moatbridge\n", False),
        (b"", False),
    ],
)
def test_ownership_is_the_header_line(head: bytes, ours: bool) -> None:
    from moatbridge.core.activation import has_marker_header

    assert has_marker_header(head) is ours


def test_links_and_special_files_are_never_ours(tmp_path: Path) -> None:
    from moatbridge.adapters.toolchain_files import is_ours

    mine = tmp_path / "env"
    mine.write_bytes(b"# generated by moatbridge; changes here are overwritten.\n")
    assert is_ours(mine)
    link = tmp_path / "link"
    link.symlink_to(mine)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not is_ours(link) and not is_ours(fifo) and not is_ours(tmp_path)  # and no hang on the FIFO


# --- a disk that refuses the write: all or nothing ----------------------------------------------

OLD_RC = b"# my bashrc\nexport A=1\nalias ll='ls -l'\n"


def _linked_rc(tmp_path: Path, data: bytes = OLD_RC) -> tuple[Path, Path]:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(data)
    twin = tmp_path / "dotfiles-bashrc"
    os.link(rc, twin)
    return rc, twin


def _refusing_pwrite(monkeypatch: pytest.MonkeyPatch, code: int, failures: int = 1) -> None:
    """The disk takes half of the first write, then refuses (`failures` times in a row)."""
    real = os.pwrite
    left = [failures]

    def pwrite(fd: int, data: bytes | memoryview, offset: int) -> int:
        if left[0] <= 0:
            return real(fd, data, offset)
        left[0] -= 1
        real(fd, bytes(data)[: max(1, len(data) // 2)], offset)
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "pwrite", pwrite)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EIO], ids=errno.errorcode.get)
@pytest.mark.parametrize("action", ["edit", "unedit"])
def test_a_refused_in_place_rewrite_restores_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, action: str
) -> None:
    rc, twin = _linked_rc(tmp_path)
    if action == "unedit":
        edit_rc(rc, BLOCK)
    before = rc.read_bytes()
    monkeypatch.setenv("HOME", str(tmp_path))
    _refusing_pwrite(monkeypatch, code)
    with pytest.raises(RewriteFailed) as raised:
        edit_rc(rc, BLOCK) if action == "edit" else unedit_rc(rc, created=False)
    assert raised.value.exit_code == 74 and raised.value.hint
    assert raised.value.message.endswith("; ~/.bashrc was restored."), raised.value.message
    if code == errno.ENOSPC:
        assert raised.value.message.startswith("The disk is full;")
    assert rc.read_bytes() == before and twin.read_bytes() == before
    assert rc.stat().st_ino == twin.stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == [".bashrc", "dotfiles-bashrc"]  # no journal


def test_a_rewrite_that_cannot_be_put_back_keeps_the_journal_for_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rc, twin = _linked_rc(tmp_path)
    with monkeypatch.context() as patched:
        _refusing_pwrite(patched, errno.ENOSPC, failures=2)  # the write and the putting back
        with pytest.raises(RewriteFailed) as raised:
            edit_rc(rc, BLOCK)
    assert raised.value.exit_code == 74 and "could not be restored" in raised.value.message
    assert rc.read_bytes() != OLD_RC and (tmp_path / "..bashrc.moatbridge-rewrite").exists()
    # Space again: the next run puts the old bytes back first, then does its own edit.
    assert edit_rc(rc, BLOCK).changed
    assert rc_block.remove(rc.read_bytes(), str(rc)) == OLD_RC and twin.read_bytes() == rc.read_bytes()
    assert not (tmp_path / "..bashrc.moatbridge-rewrite").exists()


def test_an_atomic_write_the_disk_refuses_leaves_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rc = tmp_path / ".bashrc"
    rc.write_bytes(OLD_RC)

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(DiskFull) as raised:
        edit_rc(rc, BLOCK)
    assert raised.value.exit_code == 74 and "left as it was" in raised.value.message
    assert rc.read_bytes() == OLD_RC and [p.name for p in tmp_path.iterdir()] == [".bashrc"]


def _cut_rewrites(old: bytes, new: bytes) -> dict[str, bytes]:
    """What a rewrite from `old` to `new` in place leaves when cut at each stage."""
    reserved = old + bytes(max(0, len(new) - len(old)))
    half = len(new) // 2
    return {
        "reserved-only": reserved,
        "half-written-over-old": new[:half] + reserved[half:],
        "cut-mid-line": new[: len(new) - 7],  # `if [ -`: the rest of the file lost
        "written-not-truncated": new + reserved[len(new) :],
        "first-byte": new[:1] + old[1:],
    }


@pytest.mark.parametrize("growing", [True, False], ids=["setup", "uninstall"])
def test_the_next_run_repairs_a_rewrite_cut_anywhere(tmp_path: Path, growing: bool) -> None:
    rc, twin = _linked_rc(tmp_path)
    with_block = rc_block.insert(OLD_RC, BLOCK, str(rc))
    old, new = (OLD_RC, with_block) if growing else (with_block, OLD_RC)
    for stage, current in _cut_rewrites(old, new).items():
        rc.write_bytes(current)
        (tmp_path / "..bashrc.moatbridge-rewrite").write_bytes(len(old).to_bytes(8, "big") + old + new)
        edit_rc(rc, BLOCK)
        assert rc.read_bytes() == with_block, stage
        assert twin.read_bytes() == with_block and not (tmp_path / "..bashrc.moatbridge-rewrite").exists()
        unedit_rc(rc, created=False)
        assert rc.read_bytes() == OLD_RC, stage


def test_a_file_edited_since_the_cut_is_left_alone(tmp_path: Path) -> None:
    rc, _ = _linked_rc(tmp_path)
    new = rc_block.insert(OLD_RC, BLOCK, str(rc))
    (tmp_path / "..bashrc.moatbridge-rewrite").write_bytes(len(OLD_RC).to_bytes(8, "big") + OLD_RC + new)
    edited = b"# rewritten by hand\n"
    rc.write_bytes(edited)
    edit_rc(rc, BLOCK)
    assert rc_block.remove(rc.read_bytes(), str(rc)) == edited


def test_uninstall_all_keeps_an_unusable_state_as_the_backup_it_promised(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shared = home / "mbh"
    shared.mkdir()
    damaged = b'{"version": 1, "toolchains": 3'
    (shared / "state.json").write_bytes(damaged)
    env = environ_without("MOATBRIDGE_", "XDG_", "ZDOTDIR")
    env.update(HOME=str(home), MOATBRIDGE_HOME=str(shared), DOCKER_HOST="unix:///nonexistent/docker.sock")
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "uninstall", "--all", "--keep-images"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "keeps it as a backup" in result.stderr  # the promise ...
    backups = list(shared.glob("state.json.unreadable-*"))
    assert [b.read_bytes() for b in backups] == [damaged], result.stderr  # ... kept
    assert backups[0].name in result.stderr and not (shared / "state.json").exists()


def _edit_as(uid: int, rc: Path) -> tuple[int, str]:
    """edit_rc in a child process running as `uid` (the exit status, and what it said)."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's outcome is reported through the pipe
        code, said = 0, ""
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            edit_rc(rc, BLOCK, dry_run=True)  # setup's look ahead refuses too, before anything is written
            edit_rc(rc, BLOCK)
        except MoatbridgeError as error:
            code, said = error.exit_code, error.message
        except BaseException as error:  # noqa: BLE001 - anything else is the finding
            code, said = 99, repr(error)
        os.write(write, said.encode())
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]), said


@pytest.mark.skipif(os.getuid() != 0, reason="files of two accounts need root to set up")
@pytest.mark.parametrize("mode", [0o644, 0o666], ids=["read-only-for-the-user", "writable-for-the-user"])
def test_a_root_owned_rc_file_keeps_its_owner_or_is_refused(mode: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="moatbridge-owner-"))  # not under root's private tmp_path
    try:
        base.chmod(0o755)
        home = base / "home"
        home.mkdir()
        os.chown(home, 4321, 4321)  # the user's own folder: a rename there would succeed
        rc = home / ".bashrc"
        rc.write_bytes(OLD_RC)
        rc.chmod(mode)  # root's, as a provisioning tool left it
        code, said = _edit_as(4321, rc)
        assert (rc.stat().st_uid, rc.stat().st_gid, stat.S_IMODE(rc.stat().st_mode)) == (0, 0, mode), said
        if mode == 0o644:
            assert code == 2 and "belongs to another account" in said, said
            assert rc.read_bytes() == OLD_RC
        else:  # rewritten in place: the file is still root's
            assert code == 0, said
            assert rc_block.remove(rc.read_bytes(), str(rc)) == OLD_RC
        assert sorted(p.name for p in home.iterdir()) == [".bashrc"]
    finally:
        shutil.rmtree(base)


def test_uninstall_on_a_disk_that_refuses_ends_74_with_the_file_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from moatbridge import cli

    home = tmp_path / "home"
    home.mkdir()
    rc, twin = _linked_rc(home)
    edit_rc(rc, BLOCK)
    before = rc.read_bytes()
    strip_environ(monkeypatch, "MOATBRIDGE_", "XDG_", "ZDOTDIR")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    _refusing_pwrite(monkeypatch, errno.ENOSPC)
    assert cli.main(["uninstall", "--all", "--keep-images"]) == 74
    said = capsys.readouterr().err
    assert "moatbridge: The disk is full; ~/.bashrc was restored." in said, said
    assert rc.read_bytes() == before and twin.read_bytes() == before
