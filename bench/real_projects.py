"""Build real projects' CUDA backends (PyPI sdists, unmodified, with their own CMake) with the
open toolkit through the host shims, for each mimicked CUDA release, and write the table into
docs/compat/real-projects.md.

    python bench/real_projects.py [--projects lightgbm,xgboost] [--cuda-versions 12.4,13.0]
                                  [--target gfx1030] [--distro trixie] [--output FILE]

The second corpus beside NVIDIA's cuda-samples: projects that build CUDA code with their own
build system and need no PyTorch to build. For each project and release, `moatbridge setup
--yes` installs the toolchain into a throwaway HOME (building or reusing its image); the
sdist is unpacked there and the project's own CMake configures with its documented CUDA
switch, from the host shell through the shims, as a user would; `ninja -k 0` then tries every
object. The table gives, per project and release, how many CUDA objects (`.cu.o`) compile,
whether the project's library links, and each failure's first error, grouped by cause. Tens
of minutes per project on two cores: not for CI.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import toolchain  # noqa: E402
from ggml import first_errors, table  # noqa: E402

from support import pypi  # noqa: E402


@dataclass(frozen=True)
class Project:
    name: str
    pypi: str
    version: str
    source: str  # the CMake project's directory inside the unpacked sdist
    configure: str  # the project's documented CUDA switch, as its install guide gives it
    library: str  # a glob, under the project's directory, of the library it builds


PROJECTS = {
    "lightgbm": Project(
        "LightGBM", "lightgbm", "4.7.0", "lightgbm-4.7.0", "-DUSE_CUDA=ON", "**/lib_lightgbm.so"
    ),
    "ctransformers": Project(
        "ctransformers",
        "ctransformers",
        "0.2.27",
        "ctransformers-0.2.27",
        "-DCT_CUBLAS=ON",
        "**/libctransformers.so",
    ),
    "xgboost": Project(
        "XGBoost", "xgboost", "3.4.1", "xgboost-3.4.1/cpp_src", "-DUSE_CUDA=ON", "**/libxgboost.so"
    ),
}
_CUDA_OBJECT = re.compile(r"^(\S+\.cu\.o):", re.M)


@dataclass(frozen=True)
class Outcome:
    project: str
    release: str
    identified: str  # what CMake identified the CUDA compiler as
    configured: bool
    objects: tuple[tuple[str, str, str], ...]  # (object, built|failed|not tried, first error)
    linked: bool
    configure_error: str = ""

    @property
    def built(self) -> int:
        return sum(1 for _, status, _ in self.objects if status == "built")


def build_project(project: Project, release: str, target: str, distro: str | None) -> Outcome:
    sdist = pypi.download_sdist(project.pypi, project.version)
    with toolchain.toolchain_home(target, f"project-{project.pypi}", distro, release) as env:
        source = Path(env["HOME"]) / "src"
        source.mkdir()
        with tarfile.open(sdist) as archive:
            archive.extractall(source, filter="data")
        directory = source / project.source
        configure = toolchain.in_shell(
            env, f"cmake -S . -B build -G Ninja {project.configure}", str(directory), timeout=1800
        )
        output = configure.stdout + configure.stderr
        identified = re.search(r"The CUDA compiler identification is (.*)", output)
        named = identified.group(1).strip() if identified else "?"
        if configure.returncode != 0:
            error = re.search(r"CMake Error.*?:\n\s*(.*)", output)
            return Outcome(
                project.name, release, named, False, (), False, error.group(1) if error else output[-300:]
            )
        build = directory / "build"
        listed = toolchain.in_shell(env, "ninja -t targets all", str(build), timeout=600).stdout
        names = sorted(set(_CUDA_OBJECT.findall(listed)))
        result = toolchain.in_shell(env, "ninja -k 0", str(build), timeout=4 * 3600)
        errors = first_errors(result.stdout + result.stderr)
        rows = table(names, build, errors)
        others = {name: error for name, error in errors.items() if name not in names}
        rows += [(name, "failed", error) for name, error in sorted(others.items())]  # links, host objects
        linked = any(directory.glob(project.library))  # LightGBM writes it beside its sources
    return Outcome(project.name, release, named, True, tuple(rows), linked)


def markdown(outcomes: list[Outcome], header: str) -> str:
    lines = [header, "", "| project | CUDA release | CUDA objects compiled | library | compiler CMake saw |",
             "|---|---|---|---|---|"]  # fmt: skip
    for outcome in outcomes:
        cuda = [row for row in outcome.objects if row[0].endswith(".cu.o")]
        compiled = f"{outcome.built} of {len(cuda)}" if outcome.configured else "not configured"
        library = "links" if outcome.linked else "not linked"
        compiler = _cell(outcome.identified)
        lines.append(f"| {outcome.project} | {outcome.release} | {compiled} | {library} | {compiler} |")
    for outcome in outcomes:
        lines += ["", f"## {outcome.project}, CUDA {outcome.release}", ""]
        if not outcome.configured:
            lines.append(f"CMake stopped: {_cell(outcome.configure_error)}")
            continue
        causes = Counter(detail for _, status, detail in outcome.objects if status == "failed")
        if not causes:
            lines.append("Every object compiled" + (" and the library links." if outcome.linked else "."))
            continue
        lines += ["| first error | targets |", "|---|---|"]
        for cause, count in causes.most_common():
            names = [
                name for name, status, detail in outcome.objects if status == "failed" and detail == cause
            ]
            lines.append(
                f"| {_cell(cause)} | {count}: {', '.join(n.rsplit('/', 1)[-1] for n in names[:8])} |"
            )
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:200]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--projects", default=",".join(PROJECTS))
    parser.add_argument("--cuda-versions", default="12.4,13.0")
    parser.add_argument("--target", default="gfx1030")
    parser.add_argument("--distro", help="the open flavour's stack (default: setup's choice)")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "compat" / "real-projects.md")
    args = parser.parse_args()
    chosen = [name for name in args.projects.split(",") if name]
    unknown = sorted(set(chosen) - set(PROJECTS))
    if unknown:
        parser.error(f"no such project: {', '.join(unknown)} (known: {', '.join(PROJECTS)})")
    commit = toolchain.commit()
    outcomes = []
    for name in chosen:
        for release in [r for r in args.cuda_versions.split(",") if r]:
            outcome = build_project(PROJECTS[name], release, args.target, args.distro)
            print(f"{outcome.project} {release}: {outcome.built} built, linked={outcome.linked}", flush=True)
            outcomes.append(outcome)
    sources = ", ".join(f"{PROJECTS[n].pypi} {PROJECTS[n].version}" for n in chosen)
    header = (
        f"# Real projects' CUDA backends on the open toolkit\n\nGenerated by `python bench/real_projects.py` "
        f"on {datetime.date.today().isoformat()} at commit {commit}: PyPI sdists ({sources}), unmodified, "
        f"configured with their own CMake and documented CUDA switch and built with `ninja -k 0` through "
        f"the host shims, for {args.target}" + (f" on {args.distro}" if args.distro else "") + "."
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(markdown(outcomes, header), encoding="utf-8")
    print(f"-> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
