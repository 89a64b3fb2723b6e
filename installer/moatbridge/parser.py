"""The command line's grammar: every verb, option and help text (argparse).

Kept import-light like cli.py: option types import what they check on use.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from moatbridge import __version__
from moatbridge.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message[0].upper()}{message[1:]}.", f"run '{self.prog} --help' for usage")


BASE_SOURCES = ("auto", "pull", "bootstrap")


def _image_reference(value: str) -> str:
    """--image values go into generated YAML and Dockerfiles: an image reference, nothing else."""
    from moatbridge.core.references import parse_reference
    from moatbridge.errors import InputError

    try:
        parse_reference(value)
    except InputError as error:
        raise argparse.ArgumentTypeError(f"{value!r} is not an image reference") from error
    return value


def _count(low: int, high: int) -> Callable[[str], int]:
    """An option's whole number from ``low`` to ``high``: ASCII digits only (``int()`` takes
    '1_0', ' 7' and other scripts' digits), refused by argparse as one usage error."""

    def parse(value: str) -> int:
        from moatbridge.core.textsafe import parse_uint

        number = parse_uint(value) if value == value.strip() else None
        if number is None or not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number from {low} to {high}")
        return number

    return parse


def _base_default() -> str:
    """--base's default; sites without Docker Hub set MOATBRIDGE_BASE_SOURCE=bootstrap once."""
    value = os.environ.get("MOATBRIDGE_BASE_SOURCE", "auto")
    return value if value in BASE_SOURCES else "auto"


def _add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        metavar="DIR",
        default="/",
        help="inspect the system tree under DIR (sys, proc, dev, opt, usr) instead of /",
    )


def emulate_words(words: list[str]) -> list[str]:
    """`run --emulate=GFX` as `run --emulate --emulate-as=GFX`: an option whose value is
    optional would otherwise take the command's first word (`run --emulate ./prog`). Only
    run's own options are read, up to `--` or the first word of the command."""
    if "run" not in words:
        return words
    at = words.index("run") + 1
    if any(not w.startswith("-") for w in words[: at - 1]):  # `run` is a word of another verb
        return words
    out = words[:at]
    rest = words[at:]
    while rest:
        word = rest.pop(0)
        if word.startswith("--emulate="):
            out += ["--emulate", "--emulate-as=" + word.split("=", 1)[1]]
            continue
        out.append(word)
        if word in ("-t", "--toolchain") and rest:
            out.append(rest.pop(0))
        elif word == "--" or not word.startswith("-"):
            out += rest
            break
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="moatbridge",
        description="Set up CUDA-on-AMD toolchains in containers.",
    )
    parser.add_argument("--version", action="version", version=f"moatbridge {__version__}")
    verbs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    detect = verbs.add_parser("detect", help="report GPUs, driver, ROCm and device access")
    detect.add_argument("--json", action="store_true", help="machine-readable output")
    _add_root(detect)

    doctor = verbs.add_parser("doctor", help="check whether this machine is ready")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    _add_root(doctor)
    status = verbs.add_parser(
        "status", help="toolchains, default, warm containers, GPUs and what to try next (also: no command)"
    )
    status.add_argument("--json", action="store_true", help="machine-readable output")
    _add_root(status)
    _add_image_commands(verbs)
    _add_license_commands(verbs)
    _add_toolchain_commands(verbs)
    _add_beyond_commands(verbs)
    return parser


# Verbs whose module name differs from the verb.
# The verb module of each command (``moatbridge.commands.<module>``) whose name is not the
# command's own; a sub-command that is a verb of its own is keyed "COMMAND SUBCOMMAND".
MODULES = {
    "image build": "image_build",
    "image pull": "image_transfer",
    "image push": "image_transfer",
    "licence": "license",
    "list": "toolchain_list",
    "default": "toolchain_default",
    "uninstall": "toolchain_uninstall",
    "toolchain-warm": "toolchain_warm",
    "ci": "ci_templates",
    "export": "export_image",
}


def _toolchain_option(parser: _Parser) -> None:
    parser.add_argument("-t", "--toolchain", metavar="NAME", help="toolchain (default: pin, env, default)")


def _add_beyond_commands(verbs: argparse._SubParsersAction[_Parser]) -> None:
    """Devcontainers, CI, air-gapped bundles and clusters (one module per verb)."""
    devcontainer = verbs.add_parser(
        "devcontainer", help="write .devcontainer/devcontainer.json for a toolchain"
    )
    _toolchain_option(devcontainer)
    devcontainer.add_argument("--dir", default=".", metavar="PATH", help="project directory (default: .)")
    devcontainer.add_argument("--force", action="store_true", help="replace an existing devcontainer.json")
    devcontainer.add_argument(
        "--gpu", action="store_true",
        help="pass /dev/kfd and /dev/dri even if this machine has no GPU (for a file a team commits; "
        "the container then starts only where they exist)",
    )  # fmt: skip
    devcontainer.add_argument(
        "--dry-run", action="store_true", help="show the file and the diff, write nothing"
    )

    ci = verbs.add_parser("ci", help="write a CI workflow that builds the project in the toolchain image")
    ci.add_argument("provider", choices=("github", "gitlab"))
    _toolchain_option(ci)
    ci.add_argument("--dir", default=".", metavar="PATH", help="project directory (default: .)")
    ci.add_argument("--build", metavar="CMD", help="build command (default: CMake configure + build)")
    ci.add_argument("--test", metavar="CMD", help="test command run on the GPU runner (default: ctest)")
    ci.add_argument("--gpu-runner", metavar="LABEL", help="self-hosted runner label/tag with an AMD GPU")
    ci.add_argument(
        "--emulate", nargs="?", const="", metavar="GFX",
        help="also test on an emulated AMD GPU on an ordinary runner (default GFX: the toolchain's target)",
    )  # fmt: skip
    ci.add_argument(
        "--image", metavar="REF", type=_image_reference,
        help="image reference the runners pull (default: the toolchain's)",
    )  # fmt: skip
    ci.add_argument("--force", action="store_true", help="replace an existing file")
    ci.add_argument("--dry-run", action="store_true", help="print the file, write nothing")

    bundle = verbs.add_parser("bundle", help="save or load a toolchain as one file (air-gapped machines)")
    actions = bundle.add_subparsers(dest="action", metavar="ACTION", required=True)
    save = actions.add_parser("save", help="write the toolchain's image(s), manifest and checksums to FILE")
    _toolchain_option(save)
    save.add_argument("-o", "--output", required=True, metavar="FILE",
                      help="the bundle file ('-' streams it to stdout)")  # fmt: skip
    save.add_argument("--force", action="store_true", help="replace FILE if it exists")
    load = actions.add_parser("load", help="verify FILE, load its image and register the toolchain")
    load.add_argument("file", metavar="FILE")
    load.add_argument("--name", metavar="NAME", help="register under this toolchain name")
    load.add_argument("--dry-run", action="store_true", help="verify and say what would change")
    load.add_argument("--move-tag", action="store_true",
                      help="move the image's tag to it even when that tag is not moatbridge's")  # fmt: skip
    inspect = actions.add_parser("inspect", help="show a bundle's manifest (verifies checksums)")
    inspect.add_argument("file", metavar="FILE")
    inspect.add_argument("--json", action="store_true", help="machine-readable output")

    slurm = verbs.add_parser("slurm", help="a Slurm batch script that runs CMD in the toolchain")
    _toolchain_option(slurm)
    slurm.add_argument("-o", "--output", metavar="FILE", help="write the script here (default: print it)")
    slurm.add_argument("--submit", action="store_true", help="submit it with sbatch")
    slurm.add_argument("--runtime", choices=("docker", "podman", "apptainer"), default="docker")
    slurm.add_argument("--gres", default="gpu:1", metavar="SPEC", help="GPUs to request ('' for none)")
    slurm.add_argument("--partition", metavar="NAME")
    slurm.add_argument("--time", metavar="D-HH:MM:SS")
    slurm.add_argument("--job-name", metavar="NAME")
    slurm.add_argument("--sif", metavar="FILE", help="apptainer: the converted image (see export apptainer)")
    slurm.add_argument("command_args", nargs=argparse.REMAINDER, metavar="-- CMD ...")

    k8s = verbs.add_parser("k8s", help="a Kubernetes Job manifest that runs CMD in the toolchain")
    _toolchain_option(k8s)
    k8s.add_argument("-o", "--output", metavar="FILE", help="write the manifest here (default: print it)")
    k8s.add_argument(
        "--gpus", type=_count(0, 64), default=1, metavar="N", help="amd.com/gpu to request (0: none)"
    )
    k8s.add_argument("--namespace", metavar="NS")
    k8s.add_argument("--name", metavar="NAME", help="Job name (default: from the toolchain)")
    k8s.add_argument(
        "--image", metavar="REF", type=_image_reference,
        help="image reference the cluster pulls (e.g. a team registry)",
    )  # fmt: skip
    k8s.add_argument("command_args", nargs=argparse.REMAINDER, metavar="-- CMD ...")

    export = verbs.add_parser("export", help="hand a toolchain image to another runtime")
    targets = export.add_subparsers(dest="format", metavar="FORMAT", required=True)
    apptainer = targets.add_parser("apptainer", help="an Apptainer definition file and conversion commands")
    _toolchain_option(apptainer)
    apptainer.add_argument("-o", "--output", metavar="FILE", help="write the definition file here")


_VALID_UNTIL_HELP = (
    "apt: refuse (--check-valid-until) or accept (--no-check-valid-until) Debian Release files past "
    "their Valid-Until date, as from a snapshot or stale mirror (default: the stack's catalog entry)"
)


def _add_recipe_inputs(group: argparse._ActionsContainer) -> None:
    """What a build takes beyond the catalog (setup's and `image build`'s): each lands in
    the ImageSource field of its dest's name (core.image_spec), which the recipe reads."""
    group.add_argument("--base-image", metavar="REF", help="base image instead of the catalog's Ubuntu")
    group.add_argument(
        "--repo-url", metavar="URL", help="package repository instead of the catalog's (a mirror)"
    )
    group.add_argument(
        "--tarball", metavar="FILE|URL",
        help="build from the vendor's tarball (scale-<version>-amd64.tar.xz) on any base: a local file "
        "(served on 127.0.0.1 during the build; air-gapped sites) or an http(s) URL",
    )  # fmt: skip
    group.add_argument(
        "--apt-mirror", metavar="URL",
        help="open: the Debian mirror the image's packages come from (default: the base image's)",
    )  # fmt: skip
    group.add_argument(
        "--build-arg", action="append", dest="build_args", metavar="NAME=VALUE",
        help="extra recipe argument (never a secret: build args are kept in the image history)",
    )  # fmt: skip


def _add_toolchain_commands(verbs: argparse._SubParsersAction[_Parser]) -> None:
    setup = verbs.add_parser("setup", help="install a CUDA-on-AMD toolchain (wizard, or --yes with flags)")
    setup.add_argument(
        "--yes", "-y", action="store_true",
        help="do not ask: flags, answers file, defaults (a licence still needs --accept-license)",
    )  # fmt: skip
    setup.add_argument("--flavour", "--flavor", choices=("open", "scale"))
    setup.add_argument("--target", action="append", metavar="GFX", help="gfx target (repeatable)")
    setup.add_argument("--variant", choices=("devel", "runtime", "base"))
    setup.add_argument("--cuda-version", metavar="X.Y", help="CUDA version the toolchain mimics")
    setup.add_argument(
        "--distro", metavar="STACK",
        help="open flavour: trixie (ROCm 5.7), sid (ROCm 6.4) or experimental (ROCm 7.2); "
        "default: the oldest stable stack that serves the targets",
    )  # fmt: skip
    setup.add_argument("--check-valid-until", action=argparse.BooleanOptionalAction, help=_VALID_UNTIL_HELP)
    setup.add_argument("--source", choices=("build", "pull"), help="build the image here, or pull it")
    setup.add_argument("--registry", metavar="HOST/PATH", help="team registry to pull from")
    setup.add_argument("--use", choices=("non-commercial", "commercial"), help="intended use (licence)")
    setup.add_argument("--accept-license", action="store_true", help="accept the flavour's licence")
    setup.add_argument(
        "--customer", metavar="NAME", help="scale, commercial use: the customer name in its repository URL"
    )
    setup.add_argument(
        "--credentials-file", metavar="FILE",
        help='scale, commercial use: JSON {"username","password"}, mode 600 (default: '
        "$MOATBRIDGE_HOME/credentials/scale.json); only the path is saved, never the content",
    )  # fmt: skip
    setup.add_argument("--shell", action="append", choices=("bash", "zsh", "fish", "dash"), help="repeatable")
    setup.add_argument("--no-modify-rc", action="store_true", help="do not add a block to shell rc files")
    setup.add_argument("--name", metavar="NAME", help="toolchain name (default: <flavour>-<targets>)")
    setup.add_argument("--default", action="store_true", help="make it the default toolchain")
    setup.add_argument("--answers", metavar="FILE.yaml", help="answers file (flags win over it)")
    setup.add_argument("--base", choices=BASE_SOURCES, default=_base_default(), help="base image source")
    setup.add_argument("--mirror", metavar="URL", help="Debian mirror for debootstrap")
    _add_recipe_inputs(setup.add_argument_group("build inputs"))
    setup.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    setup.add_argument("--json", action="store_true", help=argparse.SUPPRESS)

    for verb, helptext in (("run", "run a command in the toolchain"), ("shell", "a shell in the toolchain")):
        parser = verbs.add_parser(verb, help=helptext)
        parser.add_argument(
            "-t", "--toolchain", metavar="NAME", help="toolchain (default: pin, env, default)"
        )
        if verb == "run":
            parser.add_argument(
                "--emulate", action="store_true",
                help="run on an emulated AMD GPU (--emulate=GFX: that one; default: the toolchain's target)",
            )  # fmt: skip
            # `--emulate=GFX` arrives here (emulate_words): `--emulate ./prog` keeps ./prog.
            parser.add_argument("--emulate-as", metavar="GFX", help=argparse.SUPPRESS)
            parser.add_argument("command_args", nargs=argparse.REMAINDER, metavar="-- CMD ...")
        else:
            parser.add_argument("--login", action="store_true", help="a login shell")

    listing = verbs.add_parser("list", help="installed toolchains")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    default = verbs.add_parser("default", help="set the default toolchain")
    default.add_argument("name", metavar="NAME")
    default.add_argument("--dry-run", action="store_true", help="say what would change")
    uninstall = verbs.add_parser("uninstall", help="remove a toolchain (or --all) and what setup wrote")
    uninstall.add_argument("name", nargs="?", metavar="NAME")
    uninstall.add_argument("--all", action="store_true", help="every toolchain, shims, env files, rc blocks")
    uninstall.add_argument(
        "--yes", "-y", action="store_true", help="answer yes to its question: also remove the images"
    )
    images = uninstall.add_mutually_exclusive_group()
    images.add_argument("--remove-images", action="store_true", help="also remove the images (no question)")
    images.add_argument("--keep-images", action="store_true", help="keep the images (no question)")
    uninstall.add_argument("--dry-run", action="store_true", help="say what would be removed")
    _add_emulator_commands(verbs)
    upgrade = verbs.add_parser("upgrade", help="move a toolchain (or all) to a newer image, verified first")
    upgrade.add_argument("name", nargs="?", metavar="NAME")
    upgrade.add_argument(
        "--rebuild", action="store_true", help="rebuild without the layer cache (newer packages)"
    )
    upgrade.add_argument("--dry-run", action="store_true", help="say what would be checked")
    warm = verbs.add_parser("toolchain-warm")  # for shims; not listed in help
    warm.add_argument("name")


def _add_emulator_commands(verbs: argparse._SubParsersAction[_Parser]) -> None:
    emulator = verbs.add_parser(
        "emulator", help="which GPU emulator a toolchain's `run --emulate` uses (set, unset, show)"
    )
    actions = emulator.add_subparsers(
        dest="emulator_command", metavar="ACTION", parser_class=_Parser, required=True
    )
    remember = actions.add_parser("set", help="remember the emulator (and a GPU profile) for a toolchain")
    _toolchain_option(remember)
    remember.add_argument(
        "path", metavar="PATH", help="the emulator's CLI (bin/rocjitsu or bin/mirage) or its install prefix"
    )
    remember.add_argument(
        "--profile", metavar="FILE", help="a GPU profile (JSON) for one of the toolchain's targets"
    )
    remember.add_argument("--dry-run", action="store_true", help="check and say what would be remembered")
    forget = actions.add_parser("unset", help="forget the toolchain's emulator setting")
    _toolchain_option(forget)
    forget.add_argument("--dry-run", action="store_true", help="say what would be forgotten")
    show = actions.add_parser("show", help="the emulator and profile `run --emulate` would use, and why")
    _toolchain_option(show)
    show.add_argument("--json", action="store_true", help="machine-readable output")


def _add_license_commands(verbs: argparse._SubParsersAction[_Parser]) -> None:
    licence = verbs.add_parser(
        "license", aliases=["licence"], help="show, accept or revoke toolchain licences"
    )
    actions = licence.add_subparsers(
        dest="license_command", metavar="ACTION", parser_class=_Parser, required=True
    )
    show = actions.add_parser("show", help="a licence's terms in plain words, and where the full text is")
    show.add_argument("id", metavar="LICENCE")
    status = actions.add_parser("status", help="which licences are accepted, for which use")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    accept = actions.add_parser(
        "accept", help="accept a licence (recorded with terms version, use, time, user)"
    )
    accept.add_argument("id", metavar="LICENCE")
    accept.add_argument("--use", choices=("non-commercial", "commercial"), help="how you will use it")
    accept.add_argument(
        "--yes", "-y", action="store_true", help="accept without the interactive confirmation"
    )
    accept.add_argument("--dry-run", action="store_true", help="say what would be recorded")
    revoke = actions.add_parser("revoke", help="withdraw a recorded acceptance")
    revoke.add_argument("id", metavar="LICENCE")
    revoke.add_argument("--dry-run", action="store_true", help="say what would change")


def _add_image_commands(verbs: argparse._SubParsersAction[_Parser]) -> None:
    image = verbs.add_parser("image", help="build, pull, push, list and remove toolchain images")
    actions = image.add_subparsers(
        dest="image_command", metavar="ACTION", parser_class=_Parser, required=True
    )

    build = actions.add_parser("build", help="build a toolchain image from the catalog's recipe")
    build.add_argument("--flavour", "--flavor", default="open", help="open (default) or scale")
    build.add_argument(
        "--target", action="append", metavar="GFX", help="gfx target to keep (repeatable; default: all)"
    )
    build.add_argument("--variant", help="devel (default), runtime or base")
    build.add_argument("--cuda-version", help="CUDA version the toolchain mimics")
    build.add_argument(
        "--distro", metavar="STACK",
        help="open: trixie (ROCm 5.7, default), sid (ROCm 6.4), experimental (ROCm 7.2); "
        "scale: ubuntu22.04, ubuntu24.04, rocky9",
    )  # fmt: skip
    build.add_argument("--check-valid-until", action=argparse.BooleanOptionalAction, help=_VALID_UNTIL_HELP)
    build.add_argument(
        "--base", choices=BASE_SOURCES, default=_base_default(),
        help="base image: local copy, else pull, else debootstrap (auto); or force one",
    )  # fmt: skip
    build.add_argument("--mirror", metavar="URL", help="Debian mirror for debootstrap")
    _add_recipe_inputs(build.add_argument_group("build inputs"))
    scale = build.add_argument_group("scale flavour (built from Spectral's apt repository)")
    scale.add_argument("--commercial", action="store_true", help="use the commercial (customer) repository")
    scale.add_argument("--customer", metavar="NAME", help="customer name in the commercial repository URL")
    scale.add_argument(
        "--credentials-file", metavar="FILE",
        help='JSON {"username","password"}, mode 600 (default with --commercial: '
        "$MOATBRIDGE_HOME/credentials/scale.json); never stored in the image",
    )  # fmt: skip
    build.add_argument("--no-cache", action="store_true", help="rebuild every layer")
    build.add_argument("--no-space-check", action="store_true", help="skip the free-disk check")
    build.add_argument("--dry-run", action="store_true", help="show the plan, build nothing")
    build.add_argument("--verbose", action="store_true", help="show the builder's full output")
    build.add_argument("--json", action="store_true", help="machine-readable result")

    for verb, helptext in (
        ("pull", "pull an image with per-layer progress"),
        ("push", "push an image to a registry"),
    ):
        transfer = actions.add_parser(verb, help=helptext)
        transfer.add_argument("reference", metavar="REF")
        transfer.add_argument(
            "--retries", type=_count(1, 100), default=4, help="attempts for transient failures"
        )
        transfer.add_argument(
            "--stall-timeout",
            type=_count(1, 86400),
            default=60,
            metavar="S",
            help="give up an attempt after S s without progress",
        )
        transfer.add_argument("--json", action="store_true", help="machine-readable result")
        if verb == "pull":
            transfer.add_argument("--no-space-check", action="store_true", help="skip the free-disk check")
        if verb == "push":
            transfer.add_argument(
                "--from", dest="source", metavar="IMAGE", help="local image to tag as REF first"
            )

    listing = actions.add_parser("list", help="images moatbridge made or fetched")
    listing.add_argument("--json", action="store_true", help="machine-readable output")

    stacks = actions.add_parser("stacks", help="the open flavour's stacks and the GPUs each serves")
    stacks.add_argument("--json", action="store_true", help="machine-readable output")
    stacks.add_argument("--markdown", action="store_true", help="the coverage table as Markdown (docs)")

    remove = actions.add_parser("remove", help="remove moatbridge images")
    remove.add_argument("references", nargs="*", metavar="REF")
    remove.add_argument("--all-managed", action="store_true", help="every image labelled as moatbridge's")
    remove.add_argument(
        "--force", action="store_true", help="also images moatbridge did not make; in use too"
    )
    remove.add_argument("--dry-run", action="store_true", help="say what would be removed")
    remove.add_argument("--json", action="store_true", help="machine-readable output")
