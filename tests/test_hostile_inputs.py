"""Hostile input across the CLI surface.

One table, run through the real CLI in a fresh interpreter: every row is input a user, a
file or the environment can hand moatbridge. Each must end with its documented exit
status (2 for bad input), exactly one ``moatbridge:`` line and at most one ``hint:`` line
on stderr, no traceback, no crash report, no terminal control on the screen, and nothing
changed on disk (the whole throwaway world is compared before and after). Hostile
``--root`` trees are not errors: detect reads what it can and exits 0, without hanging.

No row needs a container engine: DOCKER_HOST points at nothing, so a row that reached
the engine would fail with its exit status (3), not pass by accident.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from moatbridge.adapters.hostfs import read_limited
from moatbridge.core import bundle
from moatbridge.core.textsafe import parse_hex, parse_uint, printable

from fixtures import machines
from support.environ import environ_without
from support.pin_shapes import place_pin
from support.pty_session import PtySession
from support.standin_emulator import standin_emulator
from support.toolchains import RECORDED_TOOLCHAIN as TOOLCHAIN
from support.toolchains import make_toolchain

BAD = os.fsdecode(b"bad-\xff\xfe")  # bytes that are not UTF-8, as Python keeps them in argv
LONG = "n" * 300  # a file name longer than any Linux file system's NAME_MAX (255 bytes)
OSC52 = "\x1b]52;c;ZXZpbA==\x07"  # a clipboard write
CLEAR = "\x1b[2J"
TERMINAL_CONTROLS = ("\x1b", "\x07", "\x9b")
FAKE = secrets.token_hex(18)  # the random part of a token-shaped value, fresh each run
TIMEOUT = int(os.environ.get("HOSTILE_TIMEOUT", "60"))


# --- the world a row runs in -------------------------------------------------------------------


def _deep_yaml(depth: int = 5000) -> str:
    return "[" * depth + "]" * depth + "\n"


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def _bundle_with_manifest(path: Path, manifest: bytes) -> None:
    """A bundle whose checksums match, so only the manifest itself is under test."""
    image = b"not really an image"
    sums = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n"
        for name, data in ((bundle.MANIFEST, manifest), (bundle.IMAGE, image))
    ).encode()
    _tar(path, {bundle.MANIFEST: manifest, bundle.IMAGE: image, bundle.SUMS: sums})


def _hostile_member(
    name: str, data: bytes, *, declared: int | None = None, sparse: int | None = None
) -> bytes:
    """A tar member as a hostile writer spells it: any size declared, or a GNU sparse file
    whose holes expand it to `sparse` bytes."""
    info = tarfile.TarInfo(name)
    info.size = len(data) if declared is None else declared
    info.type = tarfile.GNUTYPE_SPARSE if sparse is not None else tarfile.REGTYPE
    header = bytearray(info.tobuf(format=tarfile.GNU_FORMAT))
    if sparse is not None:  # one extent, the data, at the end; the rest is a hole
        header[386:398] = tarfile.itn(sparse - len(data), 12, tarfile.GNU_FORMAT)
        header[398:410] = tarfile.itn(len(data), 12, tarfile.GNU_FORMAT)
        header[483:495] = tarfile.itn(sparse, 12, tarfile.GNU_FORMAT)
        header[148:156] = b" " * 8
        header[148:156] = b"%06o\0 " % sum(header)
    return bytes(header) + data + b"\0" * (-len(data) % 512)


def _hostile_bundles(inputs: Path) -> None:
    """Bundles whose members say one thing to a check and another to the engine's loader."""
    config = json.dumps({"config": {"Labels": {"io.moatbridge.flavour": "open"}}}).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    listing = json.dumps([{"Config": config_name, "RepoTags": None, "Layers": []}]).encode()
    tagged = json.dumps([{"Config": config_name, "RepoTags": ["ubuntu:22.04"], "Layers": []}]).encode()
    manifest = json.dumps({
        "format": "moatbridge-bundle", "format_version": 1, "moatbridge_version": "9.9.9",
        "created": "2026-01-01T00:00:00+00:00", "notices": [],
        "toolchain": {**{k: TOOLCHAIN[k] for k in ("name", "flavour", "variant", "targets", "cuda_version",
                                                   "licence")},
                      "image": "ubuntu:22.04", "image_id": "sha256:" + config_name[:64]},
        "flavour": {"name": "open", "description": "d", "rocm": "5.7", "version": None, "variant": "devel",
                    "variant_description": "d", "provides": ["compiler"]},
        "licences": [{"id": "open-components", "name": "n", "vendor": "v", "url": "u", "terms_version": "1",
                      "acceptance_required": False, "allowed_use": ["any"], "summary": "s"}],
    }).encode()  # fmt: skip

    def archive(*members: bytes) -> bytes:
        body = b"".join(members) + b"\0" * 1024
        return body + b"\0" * (-len(body) % tarfile.RECORDSIZE)

    def sealed(path: Path, image: bytes) -> None:
        sums = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n"
                       for name, data in ((bundle.MANIFEST, manifest), (bundle.IMAGE, image))).encode()  # fmt: skip
        _tar(path, {bundle.MANIFEST: manifest, bundle.IMAGE: image, bundle.SUMS: sums})

    plain = (_hostile_member(config_name, config), _hostile_member("manifest.json", listing))
    sealed(inputs / "dot-manifest.tar", archive(*plain, _hostile_member("./manifest.json", tagged)))
    sealed(
        inputs / "repositories.tar",
        archive(*plain, _hostile_member("repositories", b'{"ubuntu": {"22.04": "x"}}')),
    )
    sealed(inputs / "foreign-member.tar", archive(*plain, _hostile_member("notes.txt", b"hi")))
    sealed(
        inputs / "sparse-layer.tar",
        archive(*plain, _hostile_member("0" * 64 + "/layer.tar", b"x", sparse=1 << 30)),
    )
    outer = _hostile_member(bundle.MANIFEST, manifest)
    (inputs / "sparse.tar").write_bytes(
        archive(outer, _hostile_member(bundle.IMAGE, b"x" * 10, sparse=20 << 30))
    )
    (inputs / "oversized.tar").write_bytes(
        archive(outer, _hostile_member(bundle.IMAGE, b"x", declared=20 << 30))
    )


def make_world(root: Path) -> None:
    """HOME, MOATBRIDGE_HOME with one open toolchain, a working directory and hostile inputs."""
    for sub in ("home", "cwd", "out", "in/dir.yaml", "proj-fifo/.devcontainer",
                "proj-dir/.devcontainer/devcontainer.json", "mbh"):  # fmt: skip
        (root / sub).mkdir(parents=True, exist_ok=True)
    state = {
        "version": 1,
        "default": TOOLCHAIN["name"],
        "toolchains": [TOOLCHAIN],
        "consents": [],
        "files": [],
    }
    (root / "mbh" / "state.json").write_text(json.dumps(state))
    standin_emulator(root / "emu")  # usable, so that what is refused is the row's own input
    inputs = root / "in"
    os.mkfifo(inputs / "fifo")
    os.mkfifo(root / "proj-fifo/.devcontainer/devcontainer.json")
    os.symlink("/dev/zero", inputs / "zero")
    os.symlink("loop", inputs / "loop")
    (inputs / "licences").mkdir()
    os.mkfifo(inputs / "licences" / "a.yaml")
    files = {
        "latin.yaml": b"flavour: \xe9t\xe9\n",
        "deep-list.yaml": _deep_yaml().encode(),
        "deep-map.yaml": ("a: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n").encode(),
        "list.yaml": b"- flavour: open\n",
        "nested.yaml": b"targets: [{a: 1}]\n",
        "name-list.yaml": b"name: [1, 2]\n",
        "unknown.yaml": b"colour: blue\n",
        "flavour.yaml": b"flavour: closed\n",
        "shell.yaml": b"shells: [tcsh]\n",
        "accept.yaml": b"accept-license: 'yes'\n",
        "digits.yaml": "targets: [gfx\u0661\u0660\u0663\u0660]\n".encode(),
        "superscript.yaml": "targets: [gfx\u00b9\u2070\u00b3\u2070]\n".encode(),
        "alias.yaml": b"flavour: *nowhere\n",
        "control.yaml": f'name: "x{CLEAR}"\ntargets: [gfx1030]\n'.encode(),
        "newline-name.yaml": b'name: "open\\nhostPID: true"\ntargets: [gfx1030]\n',
        "bad-syntax.yaml": b"flavour: [open\n",
        # scalars PyYAML's constructors cannot make: they raised ValueError / AttributeError
        "bad-date.yaml": b"cuda-version: 2024-99-99\n",
        "bad-int-tag.yaml": b"name: !!int x\n",
        "bad-timestamp-tag.yaml": b"name: !!timestamp x\n",
        "huge-int.yaml": b"targets: [" + b"9" * 5000 + b"]\n",
        "empty.tar": b"",
        "random.tar": hashlib.sha256(b"x").digest() * 64,
    }
    for name, data in files.items():
        (inputs / name).write_bytes(data)
    _tar(inputs / "escape.tar", {"../evil": b"evil"})
    _bundle_with_manifest(inputs / "not-json.tar", b"{not json")
    _bundle_with_manifest(inputs / "deep-json.tar", b"[" * 200_000 + b"]" * 200_000)
    _bundle_with_manifest(inputs / "latin-json.tar", b'{"format": "\xe9"}')
    _bundle_with_manifest(inputs / "other-format.tar", b'{"format": "tarball"}')
    _hostile_bundles(inputs)
    # outputs that are not regular files: links (to one of moatbridge's files, to nothing)
    (inputs / "generated.yaml").write_text("# Generated by moatbridge: an older job\n")
    os.symlink("generated.yaml", inputs / "gen-link.yaml")
    os.symlink("nowhere.yaml", inputs / "dangling.yaml")
    for linked in (".devcontainer/devcontainer.json", ".github/workflows/moatbridge-cuda.yml"):
        (root / "proj-link" / linked).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(inputs / "unknown.yaml", root / "proj-link" / linked)


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under root: its kind and, for files, its content's digest."""
    seen: dict[str, str] = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(directory) / name
            relative = str(path.relative_to(root))
            if path.is_symlink():
                seen[relative] = "link " + os.readlink(path)
            elif path.is_fifo():
                seen[relative] = "fifo"
            elif path.is_file():
                seen[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif path.is_dir():
                seen[relative] = "dir"
    return seen


# --- hostile system trees for --root -------------------------------------------------------------

NODE = "sys/devices/virtual/kfd/kfd/topology/nodes"
GPU = "sys/devices/pci0000:00/0000:03:00.0"


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


def _tree_mutations() -> dict[str, Callable[[Path], None]]:
    def named(name: str) -> Callable[[Path], None]:
        def change(root: Path) -> None:
            ids = root / "usr/share/libdrm/amdgpu.ids"
            ids.write_text(ids.read_text().replace("AMD Radeon RX 7900 XTX", name))

        return change

    def properties(text: str) -> Callable[[Path], None]:
        def change(root: Path) -> None:
            (root / NODE / "1/properties").write_text(text)

        return change

    def node_dir(name: str) -> Callable[[Path], None]:
        return lambda root: (root / NODE / "1").rename(root / NODE / name)

    return {
        "properties-fifo": lambda root: _replace(root / NODE / "1/properties", os.mkfifo),
        "properties-dev-zero": lambda root: _replace(root / NODE / "1/properties", lambda p: p.symlink_to("/dev/zero")),
        "properties-directory": lambda root: _replace(root / NODE / "1/properties", Path.mkdir),
        "vendor-dev-zero": lambda root: _replace(root / GPU / "vendor", lambda p: p.symlink_to("/dev/zero")),
        "vendor-fifo": lambda root: _replace(root / GPU / "vendor", os.mkfifo),
        "amdgpu-ids-fifo": lambda root: _replace(root / "usr/share/libdrm/amdgpu.ids", os.mkfifo),
        "osrelease-dev-zero": lambda root: _replace(root / "proc/sys/kernel/osrelease", lambda p: p.symlink_to("/dev/zero")),
        "node-superscript": node_dir("\u00b2"),
        "node-arabic-digit": node_dir("\u0661"),
        "properties-superscript": properties("gfx_target_version \u00b2\u2070\u2070\u2070\nsimd_count \u00b9\n"),
        "properties-arabic-digits": properties("gfx_target_version \u0661\u0661\u0660\u0660\u0660\u0660\n"),
        "properties-huge-number": properties("gfx_target_version " + "9" * 400 + "\nsimd_count 1\n"),
        "properties-binary": lambda root: (root / NODE / "1/properties").write_bytes(b"\xff\xfe\x00gfx\x1b[2J\n"),
        "vendor-unicode-hex": lambda root: (root / GPU / "vendor").write_text("0x\u0661\u0660\u0660\u0662\n"),
        "vram-superscript": lambda root: (root / GPU / "mem_info_vram_total").write_text("\u00b2\u00b3\n"),
        "group-file-odd-gids": lambda root: machines.Tree(root).group_file(
            "render:x:\u00b2:\nvideo:x:\u0661\u0660:\nbig:x:" + "9" * 400 + ":\n"
        ),
        "gpu-name-markup": named("Evil [/dim] [bold red]x"),
        "gpu-name-controls": named(f"Evil {OSC52} {CLEAR} \x9b end"),
        "gpu-name-bidi": named("Evil \u202egnp.exe \ufeff"),
        "gpu-name-accents": named("Radeon caf\u00e9 \u2122"),
    }  # fmt: skip


TREES = _tree_mutations()


def hostile_tree(base: Path, mutation: str) -> Path:
    root = machines.build("rdna3-desktop", base / f"root-{mutation}")
    TREES[mutation](root)
    return root


# --- the table -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)
    pin: bytes | str | None = None  # a .moatbridge-toolchain in cwd: bytes or a pin_shapes.SHAPES name
    tree: str | None = None  # a hostile --root tree, passed as {root}
    cwd_gone: bool = False  # run from a working directory deleted under it
    emulators: bytes | None = None  # the emulator settings file's bytes ({w}: the world)


def c(id: str, *args: str, code: int = 2, env: dict[str, str] | None = None,
      pin: bytes | str | None = None, tree: str | None = None, cwd_gone: bool = False,
      emulators: bytes | None = None) -> Case:  # fmt: skip
    return Case(id, args, code, env or {}, pin, tree, cwd_gone, emulators)


SETUP = ("setup", "--yes", "--target", "gfx1030")
# fmt: off
CASES = [
    # setup --answers: files that are not answers
    *(c(f"answers-{name}", *SETUP, "--answers", f"{{w}}/in/{name}") for name in (
        "latin.yaml", "dir.yaml", "fifo", "zero", "deep-list.yaml", "deep-map.yaml", "list.yaml",
        "nested.yaml", "name-list.yaml", "unknown.yaml", "flavour.yaml", "shell.yaml", "accept.yaml",
        "digits.yaml", "superscript.yaml", "alias.yaml", "control.yaml", "newline-name.yaml",
        "bad-syntax.yaml", "missing.yaml", "bad-date.yaml", "bad-int-tag.yaml", "bad-timestamp-tag.yaml",
        "huge-int.yaml",
    )),
    *(c(f"catalog-{name}", "image", "build", "--dry-run", env={"MOATBRIDGE_CATALOG": f"{{w}}/in/{name}.yaml"})
      for name in ("bad-date", "bad-int-tag", "huge-int")),
    c("answers-non-utf8-path", *SETUP, "--answers", f"{{w}}/in/{BAD}.yaml"),
    # setup flags
    c("setup-target-newline", "setup", "--yes", "--target", "gfx1030\n"),
    c("setup-target-superscript", "setup", "--yes", "--target", "gfx\u00b9\u2070\u00b3\u2070"),
    c("setup-target-arabic", "setup", "--yes", "--target", "gfx\u0661\u0660\u0663\u0660"),
    c("setup-target-escape", "setup", "--yes", "--target", f"gfx1030{CLEAR}"),
    c("setup-name-osc52", *SETUP, "--name", f"x{OSC52}"),
    c("setup-name-dotdot", *SETUP, "--name", "../evil"),
    c("setup-name-too-long", *SETUP, "--name", "a" * 64),
    c("setup-name-markup", *SETUP, "--name", "[bold red]x[/bold red]"),
    c("setup-name-non-utf8", *SETUP, "--name", BAD),
    c("setup-flavour", *SETUP, "--flavour", "closed"),
    c("setup-shell", *SETUP, "--shell", "tcsh"),
    c("setup-cuda-newline", *SETUP, "--cuda-version", "12.4\n"),
    c("setup-distro-escape", *SETUP, "--distro", f"sid{CLEAR}"),
    c("setup-distro-markup", *SETUP, "--distro", "[bold red]sid[/bold red]"),
    c("setup-distro-non-utf8", *SETUP, "--distro", BAD),
    c("setup-distro-newline", *SETUP, "--distro", "sid\n"),
    c("setup-rdna4-on-trixie", "setup", "--yes", "--target", "gfx1201", "--distro", "trixie"),
    c("setup-unknown-option", "setup", "--frobnicate"),
    # detect / doctor --root: not a system tree
    c("detect-root-missing", "detect", "--root", "{w}/nowhere"),
    c("detect-root-file", "detect", "--root", "{w}/in/latin.yaml"),
    c("detect-root-fifo", "detect", "--root", "{w}/in/fifo"),
    c("doctor-root-file", "doctor", "--root", "{w}/in/latin.yaml"),
    c("detect-root-non-utf8", "detect", "--root", f"{{w}}/{BAD}"),
    # detect --root: hostile trees are read as far as they make sense, exit 0, never hang
    *(c(f"detect-tree-{name}", "detect", "--root", "{root}", code=0, tree=name) for name in TREES),
    *(c(f"detect-json-tree-{name}", "detect", "--json", "--root", "{root}", code=0, tree=name)
      for name in ("properties-fifo", "gpu-name-controls", "group-file-odd-gids")),
    *(c(f"doctor-tree-{name}", "doctor", "--root", "{root}", code=1, tree=name)  # 1: no engine here
      for name in ("gpu-name-markup", "gpu-name-controls", "properties-dev-zero")),
    # k8s
    c("k8s-output-directory", "k8s", "-o", "{w}/out", "--", "make"),
    c("k8s-output-fifo", "k8s", "-o", "{w}/in/fifo", "--", "make"),
    c("k8s-output-device", "k8s", "-o", "/dev/null", "--", "make"),
    c("k8s-output-dev-zero-link", "k8s", "-o", "{w}/in/zero", "--", "make"),
    c("k8s-output-foreign", "k8s", "-o", "{w}/in/unknown.yaml", "--", "make"),
    c("k8s-output-non-utf8", "k8s", "-o", f"{{w}}/out/{BAD}.yaml", "--", "make"),
    c("k8s-output-symlink", "k8s", "-o", "{w}/in/gen-link.yaml", "--", "make"),
    c("k8s-output-dangling-symlink", "k8s", "-o", "{w}/in/dangling.yaml", "--", "make"),
    c("k8s-gpus-negative", "k8s", "--gpus", "-1", "--", "make"),
    c("k8s-gpus-superscript", "k8s", "--gpus", "\u00b2", "--", "make"),
    c("k8s-name-newline", "k8s", "--name", "job\n", "--", "make"),
    c("k8s-image-yaml", "k8s", "--image", "reg/x:1\n  hostPID: true", "--", "make"),
    c("k8s-no-command", "k8s"),
    c("k8s-command-non-utf8", "k8s", "--", "make", BAD),
    c("k8s-unknown-toolchain", "k8s", "-t", "nosuch", "--", "make"),
    c("k8s-toolchain-escape", "k8s", "-t", f"x{CLEAR}", "--", "make"),
    # slurm
    c("slurm-output-directory", "slurm", "-o", "{w}/out", "--", "make"),
    c("slurm-output-fifo", "slurm", "-o", "{w}/in/fifo", "--", "make"),
    c("slurm-output-non-utf8", "slurm", "-o", f"{{w}}/out/{BAD}.sh", "--", "make"),
    c("slurm-time-injection", "slurm", "--time", "1\n#SBATCH --uid=0", "--", "make"),
    c("slurm-partition-newline", "slurm", "--partition", "gpu\n", "--", "make"),
    c("slurm-job-name-newline", "slurm", "--job-name", "job\nrm -rf ~", "--", "make"),
    c("slurm-gres-newline", "slurm", "--gres", "gpu:1\n", "--", "make"),
    c("slurm-no-command", "slurm"),
    c("slurm-runtime", "slurm", "--runtime", "lxc", "--", "make"),
    c("slurm-sif-non-utf8", "slurm", "--runtime", "apptainer", "--sif", BAD, "--", "make"),
    # export, devcontainer, ci
    c("export-output-directory", "export", "apptainer", "-o", "{w}/out"),
    c("export-output-fifo", "export", "apptainer", "-o", "{w}/in/fifo"),
    c("export-output-device", "export", "apptainer", "-o", "/dev/null"),
    c("export-output-non-utf8", "export", "apptainer", "-o", f"{{w}}/out/{BAD}.def"),
    c("export-output-dangling-symlink", "export", "apptainer", "-o", "{w}/in/dangling.yaml"),
    c("export-format", "export", "docker"),
    c("devcontainer-dir-file", "devcontainer", "--dir", "{w}/in/latin.yaml"),
    c("devcontainer-dir-missing", "devcontainer", "--dir", "{w}/nowhere"),
    c("devcontainer-json-fifo", "devcontainer", "--dir", "{w}/proj-fifo"),
    c("devcontainer-json-directory", "devcontainer", "--dir", "{w}/proj-dir"),
    c("devcontainer-json-symlink", "devcontainer", "--dir", "{w}/proj-link", "--force"),
    c("ci-dir-file", "ci", "github", "--dir", "{w}/in/latin.yaml"),
    c("ci-output-symlink", "ci", "github", "--dir", "{w}/proj-link", "--force"),
    c("ci-image-yaml", "ci", "gitlab", "--image", "reg/x:1\n  script: evil"),
    c("ci-provider", "ci", "jenkins"),
    c("ci-dir-non-utf8", "ci", "github", "--dir", f"{{w}}/{BAD}"),
    # bundles
    c("bundle-inspect-directory", "bundle", "inspect", "{w}/out"),
    c("bundle-inspect-fifo", "bundle", "inspect", "{w}/in/fifo"),
    c("bundle-inspect-dev-zero", "bundle", "inspect", "/dev/zero"),
    c("bundle-inspect-dev-zero-link", "bundle", "inspect", "{w}/in/zero"),
    c("bundle-inspect-missing", "bundle", "inspect", "{w}/in/missing.tar"),
    c("bundle-inspect-empty", "bundle", "inspect", "{w}/in/empty.tar"),
    c("bundle-inspect-random", "bundle", "inspect", "{w}/in/random.tar"),
    c("bundle-inspect-escaping-member", "bundle", "inspect", "{w}/in/escape.tar"),
    c("bundle-inspect-manifest-not-json", "bundle", "inspect", "{w}/in/not-json.tar"),
    c("bundle-inspect-manifest-deep", "bundle", "inspect", "{w}/in/deep-json.tar"),
    c("bundle-inspect-manifest-latin", "bundle", "inspect", "{w}/in/latin-json.tar"),
    c("bundle-inspect-manifest-format", "bundle", "inspect", "{w}/in/other-format.tar"),
    c("bundle-inspect-non-utf8", "bundle", "inspect", f"{{w}}/in/{BAD}.tar"),
    c("bundle-load-fifo", "bundle", "load", "{w}/in/fifo"),
    c("bundle-load-directory", "bundle", "load", "{w}/out"),
    c("bundle-load-manifest-deep", "bundle", "load", "{w}/in/deep-json.tar"),
    c("bundle-load-escaping-member", "bundle", "load", "{w}/in/escape.tar"),
    # members the engine's loader honours and a check skipped; members hashed for minutes
    *(c(f"bundle-load-{name}", "bundle", "load", f"{{w}}/in/{name}.tar")
      for name in ("dot-manifest", "repositories", "foreign-member", "sparse-layer", "sparse", "oversized")),
    c("bundle-inspect-sparse", "bundle", "inspect", "{w}/in/sparse.tar"),
    c("bundle-inspect-oversized", "bundle", "inspect", "{w}/in/oversized.tar"),
    c("bundle-save-output-directory", "bundle", "save", "-o", "{w}/out"),
    c("bundle-save-output-non-utf8", "bundle", "save", "-o", f"{{w}}/out/{BAD}.tar"),
    c("bundle-save-output-dev-stdout", "bundle", "save", "-o", "/dev/stdout", "--force"),
    c("bundle-save-output-dev-full", "bundle", "save", "-o", "/dev/full", "--force"),
    c("bundle-save-output-fifo", "bundle", "save", "-o", "{w}/in/fifo", "--force"),
    c("bundle-save-output-symlink", "bundle", "save", "-o", "{w}/in/gen-link.yaml", "--force"),
    # licences
    c("license-show-unknown", "license", "show", "nosuch"),
    c("license-show-escape", "license", "show", f"x{OSC52}"),
    c("license-accept-no-use", "license", "accept", "scale-free"),
    c("license-accept-wrong-use", "license", "accept", "scale-free", "--use", "commercial", "--yes"),
    c("license-accept-no-terminal", "license", "accept", "scale-free", "--use", "non-commercial"),
    c("license-accept-use-choice", "license", "accept", "scale-free", "--use", "personal"),
    c("license-revoke-unknown", "license", "revoke", "nosuch"),
    c("license-no-action", "license"),
    # default, uninstall, run, shell
    c("default-unknown", "default", "nosuch"),
    c("default-osc52", "default", f"x{OSC52}"),
    c("default-non-utf8", "default", BAD),
    c("uninstall-unknown", "uninstall", "nosuch", "--keep-images"),
    c("uninstall-no-name", "uninstall", "--keep-images"),
    c("uninstall-dotdot", "uninstall", "../x", "--keep-images"),
    c("run-unknown-toolchain", "run", "-t", "nosuch", "--", "true"),
    c("run-no-command", "run"),
    # run on an emulated GPU: a GPU name, and an emulator named by the environment
    c("run-emulate-not-a-gfx", "run", "--emulate=../gfx1100", "--", "true"),
    c("run-emulate-controls", "run", f"--emulate=gfx{OSC52}", "--", "true"),
    c("run-emulate-not-a-target", "run", "--emulate=gfx1100", "--", "true"),
    c("run-emulate-non-utf8", "run", f"--emulate={BAD}", "--", "true"),
    *(c(f"run-emulator-{label}", "run", "--emulate", "--", "true", env={"MOATBRIDGE_EMULATOR": value})
      for label, value in (("relative", "bin/rocjitsu"), ("missing", "{w}/nosuch/bin/rocjitsu"),
                           ("a-directory", "{w}/in"), ("not-executable", "{w}/in/latin.yaml"),
                           ("newline", "/opt/emu\n/bin/rocjitsu"), ("controls", f"/opt/{OSC52}rocjitsu"))),
    # the emulator a toolchain uses (the world has a usable one in {w}/emu, for gfx1100 and
    # others, not the toolchain's gfx1030): refused before the lock file is made
    *(c(f"emulator-set-{label}", "emulator", "set", *args) for label, args in (
        ("relative", ("bin/rocjitsu",)), ("missing", ("{w}/nosuch/bin/rocjitsu",)),
        ("controls", (f"/opt/{OSC52}rocjitsu",)), ("newline", ("/opt/emu\n/bin/rocjitsu",)),
        ("non-utf8", (f"{{w}}/{BAD}",)), ("not-executable", ("{w}/in/latin.yaml",)), ("a-directory", ("{w}/in",)),
        ("profile-relative", ("{w}/emu", "--profile", "gpu.json")),
        ("profile-missing", ("{w}/emu", "--profile", "{w}/in/missing.json")),
        ("profile-fifo", ("{w}/emu", "--profile", "{w}/in/fifo")),
        ("profile-dev-zero", ("{w}/emu", "--profile", "{w}/in/zero")),
        ("profile-controls", ("{w}/emu", "--profile", f"{{w}}/in/{CLEAR}.json")),
        ("profile-not-a-gpu", ("{w}/emu", "--profile", "{w}/in/latin.yaml")),
        ("profile-other-target", ("{w}/emu", "--profile", "{w}/emu/share/rocjitsu/configs/gfx1100_w7900.json")),
        ("unknown-toolchain", ("-t", "nosuch", "{w}/emu")), ("toolchain-escape", ("-t", f"x{OSC52}", "{w}/emu")),
        ("no-path", ()),
    )),
    c("emulator-show-toolchain-escape", "emulator", "show", "-t", f"x{CLEAR}"),
    c("emulator-unset-unknown", "emulator", "unset", "-t", "nosuch"),
    c("emulator-no-action", "emulator"),
    *(c(f"emulator-settings-{label}-{verb}", *args, emulators=data) for label, data in (
        ("not-json", b"{"), ("latin1", b'{"version": 1, "toolchains": {"\xe9": 1}}'),
        ("relative", b'{"version": 1, "toolchains": {"open-gfx1030": {"emulator": "bin/rocjitsu"}}}'),
        ("controls", b'{"version": 1, "toolchains": {"open-gfx1030": {"emulator": "/opt/\\u001b[2J"}}}'),
    ) for verb, args in (
        ("show", ("emulator", "show")), ("set", ("emulator", "set", "{w}/emu")), ("unset", ("emulator", "unset")),
        ("run", ("run", "--emulate", "--", "true")),
    )),
    c("emulator-settings-damaged-status", "status", code=0, emulators=b"{"),
    *(c(f"emulator-setting-{label}-{verb}", *args, emulators=data) for label, data in (
        ("gone", b'{"version": 1, "toolchains": {"open-gfx1030": {"emulator": "{w}/gone/bin/rocjitsu"}}}'),
        ("profile-gone", b'{"version": 1, "toolchains": {"open-gfx1030": {"emulator": "{w}/emu/bin/rocjitsu", '
                         b'"profile": "{w}/in/gone.json"}}}'),
    ) for verb, args in (("show", ("emulator", "show")), ("run", ("run", "--emulate", "--", "true")))),
    *(c(f"{verb}-empty-toolchain", *args) for verb, args in (
        ("run", ("run", "-t", "", "--", "true")), ("k8s", ("k8s", "-t", "", "--", "make")),
        ("devcontainer", ("devcontainer", "-t", "", "--dry-run", "--dir", "{w}/out")), ("shell", ("shell", "-t", "")),
        ("emulator", ("emulator", "set", "-t", "", "{w}/emu")),
        ("slurm", ("slurm", "-t", "", "--", "make")), ("export", ("export", "apptainer", "-t", "")),
    )),
    c("shell-unknown-toolchain", "shell", "-t", f"nosuch{CLEAR}"),
    # image references (refused before any engine is asked)
    c("image-pull-newline", "image", "pull", "reg/x:1\n"),
    c("image-pull-upper", "image", "pull", "Reg/X:1"),
    c("image-pull-escape", "image", "pull", f"reg/x:{CLEAR}"),
    c("image-pull-retries-superscript", "image", "pull", "reg/x:1", "--retries", "\u00b2"),
    # numbers out of range or not plain ASCII digits: refused by the parser, before any engine
    *(c(f"{verb}-{option[2:]}-{label}", *args, option, value) for verb, args, option in (
        ("image-pull", ("image", "pull", "reg/x:1"), "--retries"),
        ("image-push", ("image", "push", "reg/x:1"), "--retries"),
        ("image-pull", ("image", "pull", "reg/x:1"), "--stall-timeout"),
        ("image-push", ("image", "push", "reg/x:1"), "--stall-timeout"),
    ) for label, value in (("zero", "0"), ("negative", "-3"), ("underscore", "1_0"), ("huge", "9" * 40))),
    c("k8s-gpus-underscore", "k8s", "--gpus", "1_0", "--", "make"),
    c("k8s-gpus-huge", "k8s", "--gpus", "9" * 40, "--", "make"),
    c("k8s-gpus-space", "k8s", "--gpus", " 1", "--", "make"),
    c("image-push-bad", "image", "push", "reg/x:1 2"),
    c("image-remove-none", "image", "remove", "--dry-run"),
    c("image-remove-path", "image", "remove", "../../containers/x", "--dry-run"),
    c("image-remove-escape", "image", "remove", f"reg/x:{CLEAR}"),
    c("image-remove-dash", "image", "remove", "-", "--force"),
    c("image-build-flavour", "image", "build", "--flavour", "closed", "--dry-run"),
    c("image-build-target-newline", "image", "build", "--target", "gfx1030\n", "--dry-run"),
    c("image-build-cuda-newline", "image", "build", "--cuda-version", "12.4\n", "--dry-run"),
    c("image-build-variant-escape", "image", "build", "--variant", f"devel{CLEAR}", "--dry-run"),
    c("image-build-distro-dotdot", "image", "build", "--distro", "../x", "--dry-run"),
    c("image-build-distro-escape", "image", "build", "--distro", f"sid{OSC52}", "--dry-run"),
    c("image-build-rdna4-on-trixie", "image", "build", "--target", "gfx1201", "--dry-run"),
    c("image-build-build-arg", "image", "build", "--build-arg", "NOT AN ARG", "--dry-run"),
    c("image-build-secret-build-arg", "image", "build", "--build-arg", "API_KEY=x", "--dry-run"),
    # a secret by its value's shape, under a name that does not say so
    *(c(f"{verb}-build-arg-{kind}", *args, "--build-arg", value, "--dry-run") for kind, value in (
        ("github-token", f"GH_PAT=ghp_{FAKE}"), ("gitlab-token", f"EXTRA=glpat-{FAKE}"),
        ("aws-key-id", f"EXTRA=AKIA{FAKE[:16].upper()}"), ("url-password", "MIRROR=https://u:hunter2@m.example/d"),
        ("jwt", f"EXTRA=eyJhbGciOiJIUzI1NiJ9.eyJ{FAKE}.{FAKE}"), ("random-pat", f"GH_PAT={FAKE}"),
    ) for verb, args in (
        ("image-build", ("image", "build")), ("setup", ("setup", "--yes", "--flavour", "open", "--target", "gfx1030")),
    )),
    c("setup-build-arg", "setup", "--yes", "--flavour", "open", "--target", "gfx1030",
      "--build-arg", "NOT AN ARG", "--dry-run"),
    c("image-build-apt-mirror", "image", "build", "--apt-mirror", "deb.example.org/debian", "--dry-run"),
    c("image-build-apt-mirror-token", "image", "build", "--apt-mirror", "http://m.example/d?token=x", "--dry-run"),
    c("setup-apt-mirror-space", "setup", "--yes", "--flavour", "open", "--target", "gfx1030",
      "--apt-mirror", "http://m.example/a b", "--dry-run"),
    c("image-build-mirror-newline", "image", "build", "--mirror", "http://deb\n.example/debian", "--dry-run"),
    c("image-build-repo-url-escape", "image", "build", "--flavour", "scale", "--repo-url", f"https://x{CLEAR}",
      "--dry-run"),
    c("image-build-base-image", "image", "build", "--flavour", "scale", "--base-image", "ubuntu:24.04\n",
      "--dry-run"),
    c("setup-registry-newline", *SETUP, "--source", "pull", "--registry", f"reg.example/team\n{CLEAR}"),
    # more verbs that name a toolchain
    c("upgrade-unknown", "upgrade", "nosuch", "--dry-run"),
    c("upgrade-escape", "upgrade", f"x{CLEAR}"),
    c("warm-unknown", "toolchain-warm", f"x{OSC52}"),
    c("bundle-load-bad-name", "bundle", "load", "{w}/in/escape.tar", "--name", "x\n"),
    c("bundle-save-unknown", "bundle", "save", "-t", "nosuch", "-o", "{w}/out/b.tar"),
    c("devcontainer-unknown", "devcontainer", "-t", "nosuch", "--dir", "{w}/out"),
    c("k8s-namespace-newline", "k8s", "--namespace", "team\n  hostPID: true", "--", "make"),
    c("detect-root-device", "detect", "--root", "/dev/null"),
    c("run-toolchain-non-utf8", "run", "-t", BAD, "--", "true"),
    c("run-command-non-utf8", "run", "--", "printf", "%s", BAD),  # the engine would pass U+FFFD
    c("shell-login-unknown", "shell", "--login", "-t", "nosuch"),
    # pin files in the working directory
    c("pin-fifo", "k8s", "--", "make", pin="fifo"),
    c("pin-dev-zero", "k8s", "--", "make", pin="dev-zero"),
    c("pin-directory", "k8s", "--", "make", pin="directory"),
    c("pin-latin1", "k8s", "--", "make", pin=b"open-gfx1030\xe9\n"),
    c("pin-escape", "k8s", "--", "make", pin=f"open-gfx1030{CLEAR}\n".encode()),
    c("pin-empty", "k8s", "--", "make", pin=b"\n\n"),
    c("pin-huge", "k8s", "--", "make", pin=b" " * (1 << 20)),
    c("pin-broken-link", "k8s", "--", "make", pin="broken-link"),
    c("pin-osc52", "k8s", "--", "make", pin=f"open{OSC52}\n".encode()),
    c("pin-nul", "k8s", "--", "make", pin=b"open-\x00gfx1030\n"),
    *(c(f"pin-{shape}-{verb}", *args, pin=shape) for shape in ("fifo", "broken-link")
      for verb, args in (("run", ("run", "--", "true")), ("shell", ("shell",)))),
    # the environment
    c("home-is-a-file-list", "list", env={"MOATBRIDGE_HOME": "{w}/in/latin.yaml"}),
    c("home-is-a-file-accept", "license", "accept", "scale-free", "--use", "non-commercial", "--yes",
      env={"MOATBRIDGE_HOME": "{w}/in/latin.yaml/sub"}),
    c("home-is-a-file-uninstall", "uninstall", "--all", "--keep-images", env={"MOATBRIDGE_HOME": "{w}/in/latin.yaml"}),
    c("home-is-a-file-default", "default", "x", env={"MOATBRIDGE_HOME": "{w}/in/latin.yaml"}),
    c("home-non-utf8-default", "default", "open-gfx1030", env={"MOATBRIDGE_HOME": f"{{w}}/mbh-{BAD}"}),
    c("home-non-utf8-accept", "license", "accept", "scale-free", "--use", "non-commercial", "--yes",
      env={"MOATBRIDGE_HOME": f"{{w}}/mbh-{BAD}"}),
    c("user-home-non-utf8-list", "list", env={"MOATBRIDGE_HOME": "", "HOME": f"{{w}}/{BAD}"}),
    c("docker-host-bad-port", "image", "list", env={"DOCKER_HOST": "tcp://localhost:99999"}),
    c("docker-host-bracket", "image", "list", env={"DOCKER_HOST": f"tcp://[::1{CLEAR}"}),
    c("docker-host-port-word", "bundle", "save", "-o", "{w}/out/b.tar", env={"DOCKER_HOST": "tcp://host:port"}),
    c("columns-superscript-detect", "detect", "--root", "{root}", code=0, tree="gpu-name-markup",
      env={"COLUMNS": "\u00b9\u00b2"}),
    c("columns-arabic-list", "list", code=0, env={"COLUMNS": "\u0661\u0662", "LINES": "\u00b2"}),
    c("columns-arabic-license-status", "license", "status", code=0, env={"COLUMNS": "\u0668\u0660"}),
    c("catalog-fifo", "image", "build", "--dry-run", env={"MOATBRIDGE_CATALOG": "{w}/in/fifo"}),
    c("catalog-dev-zero", "image", "build", "--dry-run", env={"MOATBRIDGE_CATALOG": "{w}/in/zero"}),
    c("catalog-latin1", "image", "build", "--dry-run", env={"MOATBRIDGE_CATALOG": "{w}/in/latin.yaml"}),
    c("catalog-deep", "setup", "--yes", "--target", "gfx1030", env={"MOATBRIDGE_CATALOG": "{w}/in/deep-map.yaml"}),
    c("licences-fifo", "license", "status", env={"MOATBRIDGE_LICENSES": "{w}/in/licences"}),
    c("toolchain-env-escape", "k8s", "--", "make", env={"MOATBRIDGE_TOOLCHAIN": f"x{OSC52}"}),
    c("toolchain-env-unknown", "run", "--", "true", env={"MOATBRIDGE_TOOLCHAIN": "nosuch"}),
    # a malformed fault setting is refused before the command starts, not met half way
    *(c(f"fault-at-{label}", "default", "open-gfx1030", env={"MOATBRIDGE_FAULT_AT": value}) for label, value in (
        ("word-count", "state.locked:abc"), ("zero-count", "state.locked:0"), ("no-name", ":1"),
        ("superscript", "state.locked:\u00b2"), ("newline", "state.locked\n"), ("escape", f"state{CLEAR}"),
    )),
    c("fault-action-unknown", "default", "open-gfx1030",
      env={"MOATBRIDGE_FAULT_AT": "state.locked", "MOATBRIDGE_FAULT_ACTION": "pause"}),
    # the working directory deleted under the shell: one sentence for every command
    *(c(f"cwd-gone-{args[0]}{'-' + args[1] if args[0] in ('bundle', 'image') else ''}", *args, cwd_gone=True)
      for args in (
        ("run", "--", "true"), ("shell",), ("slurm", "--", "make"), ("k8s", "--", "make"),
        ("devcontainer", "--dry-run"), ("ci", "github", "--dry-run"), ("export", "apptainer"),
        ("bundle", "save", "-o", "b.tar"), ("bundle", "inspect", "b.tar"), ("list",),
        ("default", "open-gfx1030"), ("setup", "--yes", "--target", "gfx1030", "--dry-run"),
        ("uninstall", "--all", "--keep-images"), ("upgrade", "--dry-run"), ("image", "list"),
        ("license", "status"), ("toolchain-warm", "open-gfx1030"), ("detect",),
    )),
    c("cwd-gone-status", "status", code=0, cwd_gone=True),  # the first look: a note, and the rest
    # paths the file system refuses: a name longer than NAME_MAX (or one that is not, until the
    # temp file beside it adds its suffix), a symlink loop on the way, a folder that takes no files
    *(c(f"{verb}-{kind}", *(path if a == "{p}" else a for a in args)) for kind, path in (
        ("name-too-long", f"{{w}}/out/{LONG}"), ("name-near-limit", f"{{w}}/out/{'n' * 250}"),
        ("symlink-loop", "{w}/in/loop/x"), ("in-proc", "/proc/1/x"),
    ) for verb, args in (
        ("k8s-output", ("k8s", "-o", "{p}", "--", "make")), ("slurm-output", ("slurm", "-o", "{p}", "--", "make")),
        ("export-output", ("export", "apptainer", "-o", "{p}")), ("devcontainer-dir", ("devcontainer", "--dir", "{p}")),
        ("ci-dir", ("ci", "github", "--dir", "{p}")), ("bundle-inspect", ("bundle", "inspect", "{p}")),
        ("bundle-save", ("bundle", "save", "-o", "{p}")), ("answers", (*SETUP, "--answers", "{p}")),
    ) if verb != "bundle-save" or kind in ("name-too-long", "symlink-loop")),  # the rest reach the engine
    *(c(f"home-{kind}-{key.lower()}", "license", "accept", "scale-free", "--use", "non-commercial", "--yes",
        env={"MOATBRIDGE_HOME": "", key: path}) for kind, path in (
        ("name-too-long", f"{{w}}/{LONG}"), ("symlink-loop", "{w}/in/loop/x"), ("a-file", "{w}/in/latin.yaml"),
    ) for key in ("MOATBRIDGE_HOME", "XDG_DATA_HOME")),
    # HOME that is not absolute: `~` (rc files) and platformdirs (moatbridge's files) part ways
    *(c(f"home-env-{kind}-{verb}", *args, env={"HOME": value, "MOATBRIDGE_HOME": ""}) for kind, value in (
        ("empty", ""), ("relative", "rel"),
    ) for verb, args in (
        ("accept", ("license", "accept", "scale-free", "--use", "non-commercial", "--yes")),
        ("setup", (*SETUP, "--dry-run")), ("uninstall", ("uninstall", "--all", "--keep-images")), ("status", ("status",)),
    )),
    c("licences-name-too-long", "license", "status", env={"MOATBRIDGE_LICENSES": f"{{w}}/{LONG}"}),
    # a control character in a path-like variable: an rc block with a newline in its path is
    # one moatbridge can no longer recognise (or remove); refused before anything is written
    *(c(f"env-control-{key.lower().replace('_', '-')}-{kind}-{verb}", *args,
        env={key: value.replace("{v}", control)} | ({"MOATBRIDGE_HOME": ""} if key.startswith("XDG") else {}))
      for key, value in (
        ("MOATBRIDGE_HOME", "{w}/mb{v}h"), ("HOME", "{w}/home{v}x"), ("ZDOTDIR", "{w}/home{v}z"),
        ("MOATBRIDGE_HOMES_DIR", "{w}/homes{v}x"), ("XDG_CONFIG_HOME", "{w}/home/.config{v}x"), ("XDG_DATA_HOME", "{w}/data{v}x"),
        ("XDG_STATE_HOME", "{w}/state{v}x"), ("XDG_CACHE_HOME", "{w}/cache{v}x"),
      ) for kind, control in (("newline", "\n"), ("escape", CLEAR))
      for verb, args in (
        ("accept", ("license", "accept", "scale-free", "--use", "non-commercial", "--yes")),
        ("uninstall", ("uninstall", "--all", "--keep-images")),
      )),
    # a relative ZDOTDIR: zsh reads it from whatever directory a shell starts in
    *(c(f"zdotdir-relative-{verb}", *args, env={"ZDOTDIR": "rel"}) for verb, args in (
        ("setup", (*SETUP, "--dry-run")), ("uninstall", ("uninstall", "--all", "--keep-images")),
    )),
    # a relative registry of homes: each working directory would be another account's
    *(c(f"homes-dir-relative-{verb}", *args, env={"MOATBRIDGE_HOMES_DIR": "rel"}) for verb, args in (
        ("setup", (*SETUP, "--dry-run")), ("uninstall", ("uninstall", "--all", "--keep-images")),
    )),
    # the command line itself
    c("unknown-command", "frobnicate"),
    c("unknown-option", "--frobnicate"),
    c("non-utf8-command", BAD),
    c("detect-ascii-terminal", "detect", "--root", "{root}", code=0, tree="gpu-name-accents",
      env={"PYTHONIOENCODING": "ascii"}),
]
# fmt: on


def test_the_table_covers_the_cli_surface() -> None:
    assert len(CASES) >= 80
    assert len({case.id for case in CASES}) == len(CASES)
    verbs = {case.args[0] for case in CASES}
    assert {"setup", "detect", "doctor", "k8s", "slurm", "export", "devcontainer", "ci", "bundle",
            "license", "default", "uninstall", "run", "shell", "image", "list", "emulator"} <= verbs  # fmt: skip


def _place_pin(cwd: Path, pin: bytes | str) -> None:
    path = cwd / ".moatbridge-toolchain"
    if isinstance(pin, str):
        place_pin(path, pin)
    else:
        path.write_bytes(pin)


def prepare(case: Case, world: Path) -> Path | None:
    """The world for one row; returns its hostile --root tree, if it has one."""
    make_world(world)
    root = hostile_tree(world / "trees", case.tree) if case.tree else None
    if case.pin is not None:
        _place_pin(world / "cwd", case.pin)
    if case.emulators is not None:
        settings = world / "mbh" / "state" / "emulators.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_bytes(case.emulators.replace(b"{w}", str(world).encode()))
    return root


def run_case(case: Case, world: Path, root: Path | None) -> subprocess.CompletedProcess[bytes]:
    def fill(text: str) -> str:
        return text.replace("{w}", str(world)).replace("{root}", str(root))

    env = environ_without("MOATBRIDGE_", "XDG_")
    env.update(HOME=str(world / "home"), MOATBRIDGE_HOME=str(world / "mbh"),
               DOCKER_HOST="unix:///nonexistent/docker.sock", COLUMNS="200")  # fmt: skip
    env.update({k: fill(v) for k, v in case.env.items()})
    command = [sys.executable, "-m", "moatbridge", *(fill(a) for a in case.args)]
    if case.cwd_gone:  # made and removed by the shell that then runs moatbridge in it
        command = ["sh", "-c", 'mkdir gone && cd gone && rmdir ../gone && exec "$@"', "sh", *command]
    return subprocess.run(
        command, capture_output=True, env=env, cwd=world / "cwd", stdin=subprocess.DEVNULL, timeout=TIMEOUT,
    )  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_input_is_a_clean_refusal(case: Case, tmp_path: Path) -> None:
    world = tmp_path / "world"
    root = prepare(case, world)
    before = snapshot(world)
    result = run_case(case, world, root)
    stdout = result.stdout.decode("utf-8", "replace")
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == case.code, (
        f"exit {result.returncode}\nstdout: {stdout[-2000:]}\nstderr: {stderr}"
    )
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    lines = stderr.splitlines()
    said = [line for line in lines if line.startswith("moatbridge:")]
    hints = [line for line in lines if line.startswith("hint:")]
    if case.code == 2:
        assert len(said) == 1, stderr
        assert len(hints) <= 1, stderr
        assert lines[-1] in (said[0], *hints), stderr  # nothing after the error
    else:
        assert said == [], stderr
    for control in TERMINAL_CONTROLS:
        assert control not in stdout and control not in stderr, repr(stdout + stderr)
    assert not list(world.rglob("crash-*.log"))
    assert snapshot(world) == before


# The toolchain's image (TOOLCHAIN's image_id, which no engine holds) removed behind moatbridge's
# back: the engine is asked, so these rows need the real one.
IMAGE_GONE = [
    c("image-gone-warm", "toolchain-warm", "open-gfx1030"),  # what the first shim call runs
    c("image-gone-bundle-save", "bundle", "save", "-o", "{w}/out/b.tar"),
]


@pytest.mark.parametrize("case", IMAGE_GONE, ids=[case.id for case in IMAGE_GONE])
def test_a_toolchain_image_removed_outside_is_a_clean_refusal(
    case: Case, tmp_path: Path, engine_version: str
) -> None:
    with_engine = replace(
        case, env={"DOCKER_HOST": os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")}
    )
    test_hostile_input_is_a_clean_refusal(with_engine, tmp_path / "first")
    make_world(tmp_path / "second")
    said = run_case(with_engine, tmp_path / "second", None).stderr.decode()
    assert "is gone from the container engine" in said and "moatbridge upgrade open-gfx1030" in said, said


# --- markup and terminal controls from sysfs and bundles (defect 6) ------------------------------

HOSTILE_NAME = f"Evil [/dim] [bold red]x {OSC52} {CLEAR} end"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock", "COLUMNS": "300", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args],
        capture_output=True, text=True, env=full, stdin=subprocess.DEVNULL, timeout=TIMEOUT,
    )  # fmt: skip


def _no_controls(result: subprocess.CompletedProcess[str]) -> None:
    for control in TERMINAL_CONTROLS:
        assert control not in result.stdout and control not in result.stderr, repr(result.stdout)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


def test_gpu_names_from_sysfs_are_text_not_markup_or_controls(tmp_path: Path) -> None:
    root = machines.build("rdna3-desktop", tmp_path / "root")
    ids = root / "usr/share/libdrm/amdgpu.ids"
    ids.write_text(ids.read_text().replace("AMD Radeon RX 7900 XTX", HOSTILE_NAME))

    detect = _cli("detect", "--root", str(root))
    assert detect.returncode == 0, detect.stderr
    _no_controls(detect)
    assert "Evil [/dim] [bold red]x \\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J end" in detect.stdout

    doctor = _cli("doctor", "--root", str(root))
    assert doctor.returncode == 1, doctor.stderr  # the engine check fails here; the GPU's is read
    _no_controls(doctor)
    assert "[/dim] [bold red]x \\x1b]52;c;ZXZpbA==\\x07" in doctor.stdout

    as_json = _cli("detect", "--json", "--root", str(root))
    assert as_json.returncode == 0, as_json.stderr
    _no_controls(as_json)  # json.dumps writes \u001b: the bytes never reach the terminal
    assert json.loads(as_json.stdout)["gpus"][0]["name"] == HOSTILE_NAME


def _hostile_bundle(path: Path) -> None:
    from moatbridge.adapters import bundle_archive
    from moatbridge.adapters.records import load_catalog, load_licences

    toolchain = make_toolchain(
        "open-gfx1030", "open", "base", ("gfx1030",), "11.8", "moatbridge/open:x", "sha256:" + "a" * 64,
        "open-components",
    )  # fmt: skip
    manifest = bundle.build_manifest(
        toolchain, load_catalog().flavour("open"), load_licences(), "9.9.9", "2026-01-01T00:00:00+00:00"
    ).to_json()
    manifest["created"] = f"2026 {CLEAR}"
    manifest["flavour"]["variant_description"] = f"[bold red]base[/bold red] {OSC52}"
    manifest["licences"][0]["summary"] = f"terms{CLEAR}\x1b[31mred\x07"
    manifest["notices"] = [f"notice [/dim] {OSC52}"]
    raw = json.dumps(manifest).encode()
    bundle_archive.write_bundle(path, raw, iter([b"image bytes"]), force=False)


def test_bundle_inspect_shows_the_manifest_as_text(tmp_path: Path) -> None:
    path = tmp_path / "hostile.tar"
    _hostile_bundle(path)
    result = _cli("bundle", "inspect", str(path))
    assert result.returncode == 0, result.stderr
    _no_controls(result)
    assert "[bold red]base[/bold red] \\x1b]52;c;ZXZpbA==\\x07" in result.stdout
    assert "terms\\x1b[2J\\x1b[31mred\\x07" in result.stdout
    assert "notice [/dim] \\x1b]52" in result.stdout
    as_json = _cli("bundle", "inspect", "--json", str(path))
    assert as_json.returncode == 0, as_json.stderr
    _no_controls(as_json)
    assert json.loads(as_json.stdout)["manifest"]["notices"] == [f"notice [/dim] {OSC52}"]


def test_printable_escapes_controls_and_keeps_text() -> None:
    assert printable("Radeon caf\u00e9 \u2122\tx\ny") == "Radeon caf\u00e9 \u2122\tx\ny"
    assert printable(f"a{OSC52}b") == "a\\x1b]52;c;ZXZpbA==\\x07b"
    assert printable("a\rb\x9bc\u202ed\ufeff") == "a\\x0db\\x9bc\\u202ed\\ufeff"
    assert printable(os.fsdecode(b"x\xffy")) == "x\\xffy"  # an undecodable byte, not a crash
    assert printable("a\nb\tc", newlines=False) == "a\\x0ab\\x09c"


@pytest.mark.parametrize(
    ("text", "value"),
    [("42\n", 42), (" 7 ", 7), ("\u00b2", None), ("\u0661\u0660", None), ("1_000", None), ("-1", None),
     ("", None), ("9" * 31, None), ("0x10", None)],
)  # fmt: skip
def test_integers_from_outside_are_ascii_digits(text: str, value: int | None) -> None:
    assert parse_uint(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("0x1002\n", 0x1002), ("744c", 0x744C), ("0x\u0661\u0660", None), ("0x", None), ("1_0", None), ("g", None)],
)  # fmt: skip
def test_hex_from_outside_is_ascii(text: str, value: int | None) -> None:
    assert parse_hex(text) == value


def test_the_bounded_reader_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    (tmp_path / "small").write_bytes(b"x" * 10)
    assert read_limited(tmp_path / "small", 10) == b"x" * 10
    with pytest.raises(OSError, match="larger than 9 bytes"):
        read_limited(tmp_path / "small", 9)
    os.mkfifo(tmp_path / "fifo")  # opened non-blocking: refused at once, no writer needed
    (tmp_path / "zero").symlink_to("/dev/zero")
    for name in ("fifo", "zero"):
        with pytest.raises(OSError, match="not a regular file"):
            read_limited(tmp_path / name, 1 << 20)
    with pytest.raises(IsADirectoryError):
        read_limited(tmp_path, 1 << 20)


# --- Ctrl-D at every kind of question, on a real terminal (defect 5) ----------------------------


def _on_terminal(
    args: list[str], env: dict[str, str], keys: str, timeout: float = 60
) -> tuple[int | None, str]:
    """Run the CLI on a pty; once it has asked (printed something, then nothing for a second),
    type ``keys``. Its exit status (None: killed at the timeout) and everything it wrote."""
    deadline = time.monotonic() + timeout
    session = PtySession([sys.executable, "-m", "moatbridge", *args], env)
    if session.goes_quiet(1.0, timeout):
        session.send(keys, settle=0)
    code = session.finish(max(0.0, deadline - time.monotonic()), until_eof=True)
    return code, session.raw


@pytest.mark.parametrize(
    "args",
    [
        ["license", "accept", "scale-free", "--use", "non-commercial"],
        ["uninstall", "open-gfx1030"],
        ["setup"],
        ["setup", "--flavour", "open"],  # the first question: the target picker
    ],
    ids=["license-accept", "uninstall-question", "setup-wizard", "target-picker"],
)
def test_ctrl_d_at_a_question_cancels_with_nothing_changed(tmp_path: Path, args: list[str]) -> None:
    make_world(tmp_path)
    before = snapshot(tmp_path)
    env = environ_without("MOATBRIDGE_", "XDG_")
    env.update(HOME=str(tmp_path / "home"), MOATBRIDGE_HOME=str(tmp_path / "mbh"), TERM="xterm",
               DOCKER_HOST="unix:///nonexistent/docker.sock")  # fmt: skip
    code, output = _on_terminal(args, env, "\x04")
    assert code == 2, output
    assert "moatbridge: Input ended (Ctrl-D) before an answer; nothing changed." in output
    assert "Traceback" not in output and "internal error" not in output
    after = snapshot(tmp_path)
    after.pop("mbh/state", None), after.pop("mbh/state/state.lock", None)  # uninstall asks under the lock
    assert after == before


# --- a uid with no passwd entry (defect 5) -------------------------------------------------------


def test_a_uid_without_a_passwd_entry_is_named_by_number(shared_tmp: Path) -> None:
    import pwd
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("switching to another uid needs root and setpriv")
    uid = 54321
    with pytest.raises(KeyError):
        pwd.getpwuid(uid)
    (shared_tmp / "home").mkdir(mode=0o777)
    (shared_tmp / "home").chmod(0o777)
    home = shared_tmp / "home"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "MOATBRIDGE_HOME": str(home / "mbh")}
    for args, expected in (
        (
            ["license", "accept", "scale-free", "--use", "non-commercial", "--yes", "--dry-run"],
            f"by uid {uid}",
        ),
        (["detect", "--root", str(machines.build("rdna3-desktop", shared_tmp / "root"))], "GPUs"),
    ):
        result = subprocess.run(
            ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-m", "moatbridge",
             *args],
            capture_output=True, text=True, env=env, timeout=TIMEOUT,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert expected in result.stdout and "Traceback" not in result.stderr
    # No HOME either: nowhere to keep files is one clear error, not platformdirs' RuntimeError.
    del env["HOME"], env["MOATBRIDGE_HOME"]
    for args in (["list"], ["license", "accept", "scale-free", "--use", "non-commercial", "--yes"]):
        result = subprocess.run(
            ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-m", "moatbridge",
             *args],
            capture_output=True, text=True, env=env, cwd=home, timeout=TIMEOUT,
        )  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("moatbridge: There is no home directory"), result.stderr
    assert list(home.iterdir()) == []  # nothing written anywhere, not even under ./~


def test_paths_and_engine_output_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from moatbridge.adapters.docker_api import StreamEvent
    from moatbridge.adapters.progress import BuildView, TransferView

    with BuildView(f"build {CLEAR}", verbose=True) as view:
        view(StreamEvent("step", f"Step 1/2 : RUN echo {OSC52}"))
        view(StreamEvent("log", "[/dim] \x1b[31mred"))
    with TransferView(f"pull {CLEAR}") as transfer:
        transfer(StreamEvent("status", f"Digest: {OSC52}"))
    shown = capsys.readouterr()
    for control in TERMINAL_CONTROLS:
        assert control not in shown.out + shown.err
    assert "[/dim] \\x1b[31mred" in shown.out and "Digest: \\x1b]52" in shown.out

    make_world(tmp_path)
    output = tmp_path / "out" / f"job{CLEAR}.yaml"  # a legal file name, shown escaped
    env = {"HOME": str(tmp_path / "home"), "MOATBRIDGE_HOME": str(tmp_path / "mbh")}
    result = _cli("k8s", "-o", str(output), "--", "make", env=env)
    assert result.returncode == 0, result.stderr
    _no_controls(result)
    assert "job\\x1b[2J.yaml" in result.stdout and output.exists()


def test_a_moatbridge_home_with_terminal_controls_is_refused_without_them(tmp_path: Path) -> None:
    """Even a read-only command: the path would go into every warning that quotes it."""
    home = tmp_path / f"home{CLEAR}"
    home.mkdir()
    (home / "state.json").write_text("{damaged")
    result = _cli("list", env={"MOATBRIDGE_HOME": str(home)})
    assert result.returncode == 2, result.stderr
    _no_controls(result)
    assert "MOATBRIDGE_HOME holds a control character" in result.stderr
    assert (home / "state.json").read_text() == "{damaged"


# --- a state file whose fields are not of moatbridge's form --------------------------------------

_DAMAGED_STATES = {
    "name-controls": {"toolchains": [{**TOOLCHAIN, "name": f"x{CLEAR}"}], "default": f"x{CLEAR}"},
    "name-markup": {"toolchains": [{**TOOLCHAIN, "name": "[red]x"}], "default": "[red]x"},
    "targets-nested": {"toolchains": [{**TOOLCHAIN, "targets": [["gfx1030"]]}]},
    "targets-string": {"toolchains": [{**TOOLCHAIN, "targets": "gfx1030"}]},
    "image-osc52": {"toolchains": [{**TOOLCHAIN, "image": f"reg/x:1{OSC52}"}]},
    "default-list": {"default": ["open-gfx1030"]},
    "toolchains-object": {"toolchains": {"open-gfx1030": TOOLCHAIN}},
    "file-path-number": {"files": [{"path": 3, "kind": "shim", "created": True}]},
    "file-without-created": {"files": [{"path": "/etc/passwd", "kind": "shim"}]},
    "file-relative": {"files": [{"path": "../x", "kind": "shim", "created": True}]},
}


@pytest.mark.parametrize("damage", list(_DAMAGED_STATES), ids=list(_DAMAGED_STATES))
@pytest.mark.parametrize(
    "args",
    [("list",), ("status", "--json"), ("k8s", "--", "make"), ("uninstall", "--all", "--dry-run", "--keep-images"),
     ("devcontainer", "--dry-run", "--dir", "{w}/out")],
    ids=["list", "status", "k8s", "uninstall", "devcontainer"],
)  # fmt: skip
def test_a_state_file_not_of_moatbridges_form_is_damaged_not_a_crash(
    tmp_path: Path, damage: str, args: tuple[str, ...]
) -> None:
    """Names from the state file reach file names, generated files and the terminal: a field that
    is not of the form moatbridge writes makes the state damaged (a warning, read as empty, left
    where it is by these commands), never a crash, a terminal control or a generated file."""
    world = tmp_path / "world"
    make_world(world)
    state = json.loads((world / "mbh" / "state.json").read_text())
    (world / "mbh" / "state.json").write_text(json.dumps({**state, **_DAMAGED_STATES[damage]}))
    before = snapshot(world)
    result = run_case(Case("state", args), world, None)
    stderr = result.stderr.decode("utf-8", "replace")
    stdout = result.stdout.decode("utf-8", "replace")
    assert result.returncode in (0, 2), stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert "state.json cannot be used (it is damaged or from another version)" in stderr, stderr
    for control in TERMINAL_CONTROLS:
        assert control not in stdout and control not in stderr, repr(stdout + stderr)
    assert "[red]x" not in stdout
    after = snapshot(world)
    after.pop("mbh/state", None), after.pop("mbh/state/state.lock", None)  # uninstall takes the lock
    assert after == before
