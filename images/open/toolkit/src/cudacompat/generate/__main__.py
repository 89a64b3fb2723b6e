"""Build the open flavour's CUDA layer inside the image (run by images/open/Dockerfile):

python3 -m cudacompat.generate --prefix /opt/moatbridge --cuda-version 12.4 \
    --clang-version 17 --rocm-version 5.7
python3 -m cudacompat.generate --prefix /opt/moatbridge --only-targets --targets gfx1030,gfx1100 \
    --cuda-version 12.4 --clang-version 17 --rocm-version 5.7

The first writes what every image of the stack and CUDA version shares (minutes); the
second, one toolkit directory per target over it (seconds). Without --only-targets, the
directories of --targets are written at the end of the first.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
from pathlib import Path

from ..nvcc.config import ToolkitConfig, full_cuda_version
from . import (
    conflicts,
    cublaslt,
    deprecations,
    device_functions,
    fp16_kinds,
    headers,
    inventory,
    mappings,
    nvml,
    probe,
    shadows,
    signatures,
    stack,
    status_codes,
    toolkit,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cudacompat.generate")
    parser.add_argument("--prefix", default="/opt/moatbridge", type=Path)
    parser.add_argument("--targets", default="", help="comma-separated gfx targets")
    parser.add_argument(
        "--only-targets", action="store_true", help="only the targets' directories, over a generated toolkit"
    )
    parser.add_argument("--cuda-version", default="12.4")
    parser.add_argument("--mimic-cc", type=int, default=86)
    parser.add_argument("--hipify", default="/usr/bin/hipify-perl", type=Path)
    parser.add_argument("--hipsolver-include", default="/usr/include/hipsolver", type=Path)
    parser.add_argument("--system-include", default="/usr/include", type=Path)
    parser.add_argument("--clang-version", type=int, default=17, help="the stack's clang: clang++-N, llvm-N")
    parser.add_argument("--rocm-version", default="", help="the stack's ROCm release (the catalog's)")
    parser.add_argument("--clang", default="", help="C++ compiler for the probes (default: clang++-N)")
    args = parser.parse_args(argv)

    found = stack.detect(args.clang_version, args.rocm_version, args.system_include)
    if not found.rocm_version:
        found = stack.Stack(
            found.clang_version, found.hip_version, found.hip_version, found.hipblaslt, found.rccl
        )
    clangxx = args.clang or found.clangxx
    print(
        f"stack: clang {found.clang_version}, ROCm {found.rocm_version}, HIP {found.hip_version}, "
        f"hipBLASLt {'yes' if found.hipblaslt else 'no'}, RCCL {'yes' if found.rccl else 'no'}",
        flush=True,
    )
    toolkit.write_text(args.prefix / stack.STACK_ENV, found.env_text())
    shared = args.prefix / "toolkit"
    cuda_version = full_cuda_version(args.cuda_version)
    targets = [t for t in args.targets.split(",") if t]
    if args.only_targets:
        if not (shared / "lib64").is_dir():
            print(
                f"cudacompat.generate: no generated toolkit at {shared}: run without --only-targets first",
                file=sys.stderr,
            )
            return 2
        _write_targets(args.prefix, shared, targets, cuda_version, args.mimic_cc, found, clangxx)
        return 0

    include = shared / "include"
    # before anything is generated into include/: what the image context brought
    libraries = [name for name in ("hipblaslt", "rccl") if getattr(found, name)]
    header_plans = headers.plan(
        inventory.load(),
        toolkit.hand_written_headers(include),
        cuda_version,
        libraries,
        f"HIP {found.hip_version}",
    )
    fp16 = fp16_kinds.write(include, clangxx)
    print(f"cuda_fp16.h's host functions in HIP's header: {fp16_kinds.summary(fp16)}", flush=True)
    rows = mappings.parse_hipify(args.hipify.read_text(encoding="utf-8"))
    kept, dropped = mappings.select(rows)
    solver_text = "".join(p.read_text(encoding="utf-8") for p in sorted(args.hipsolver_include.rglob("*.h")))
    kept += mappings.cusolver_rules(solver_text)
    newer = "".join(
        path.read_text(encoding="utf-8")
        for directory in ("hipfft", "hiprand")
        for path in sorted((args.system_include / directory).glob("*.h"))
    )
    kept += mappings.prefix_rules(newer, (m.cuda for m in kept))
    api_functions = signatures.load_release(cuda_version)
    api = [" ".join((s.name, s.result, *s.parameters)) for s in api_functions if s.name.startswith("cuda")]
    hip_runtime = (args.system_include / "hip" / "hip_runtime_api.h").read_text(encoding="utf-8")
    kept += mappings.runtime_api_rules(api, hip_runtime, [m.cuda for m in kept] + [d.cuda for d in dropped])
    # one rule per CUDA name, the later one (a hand rule after hipify's): two would be a redefinition
    kept = list({m.cuda: m for m in kept}.values())
    # functions the mimicked release redeclared (moatbridge/runtime_13.h declares them) or
    # removed, and the status codes it removed
    gone = (
        mappings.redeclared(cuda_version)
        | signatures.removed_by(cuda_version)
        | status_codes.removed_by(status_codes.load(), cuda_version)
    )
    kept = [m for m in kept if m.cuda not in gone]

    emitted: dict[str, int] = {}
    resolved: dict[str, list[mappings.Mapping]] = {}
    sources: dict[str, str] = {}
    unresolved: list[mappings.Mapping] = []
    # CUDA name -> deprecated as NVIDIA has it, for the mappings declared as functions
    declared: dict[str, dict[str, bool]] = {}
    cuda_deprecated = deprecations.load()
    cuda_statuses = status_codes.of_release(status_codes.load(), cuda_version)
    statuses: list[tuple[status_codes.StatusEnum, status_codes.Definitions]] = []
    for family in mappings.FAMILIES:
        members = [m for m in kept if m.family == family]
        library = mappings.OPTIONAL_FAMILIES.get(family)
        if library is not None and not getattr(found, library):
            reason = f"no {library} in this stack (HIP {found.hip_version})"
            dropped += [mappings.Dropped(m.cuda, m.hip, family, reason) for m in members]
            print(f"{family}: not mapped ({reason}; {len(members)} names)", flush=True)
            continue
        result = probe.probe(clangxx, family, members, cuda_version)
        mapped = {m.cuda: m.hip for m in result.resolved}
        family_statuses = status_codes.for_family(family, cuda_statuses, mapped, args.system_include)
        statuses += family_statuses
        # a CUDA status folded into another's HIP status gets a value of its own instead
        folded = {name for _, each in family_statuses for name in each.unmapped}
        result = dataclasses.replace(
            result, resolved=tuple(m for m in result.resolved if m.cuda not in folded)
        )
        emitted[family] = len(result.resolved)
        resolved[family] = list(result.resolved)
        unresolved += result.unresolved
        source = f"{args.hipify.name}" if family != "cusolver" else "hipSOLVER's compat API (hand rule)"
        sources[family] = source
        declared[family] = deprecations.declared(
            clangxx, family, result.resolved, cuda_deprecated, cuda_version
        )
        toolkit.write_text(
            include / "moatbridge" / "generated" / f"{family}.h",
            toolkit.mapping_header(family, result.resolved, source, declared[family]),
        )
        print(
            f"{family}: {len(result.resolved)} mappings, {len(result.unresolved)} unresolved, "
            f"{len(declared[family])} declared for CUDA's deprecation",
            flush=True,
        )
    toolkit.write_text(
        include / "moatbridge" / "generated" / "version.h",
        toolkit.version_header(cuda_version, args.mimic_cc, include),
    )
    toolkit.write_text(
        include / "moatbridge" / "generated" / "status_codes.h",
        status_codes.header(each for _, each in statuses),
    )
    # every shadow is decided afresh: one left by an earlier run would be taken for HIP's header
    shutil.rmtree(include / "moatbridge" / "shadow", ignore_errors=True)
    shadowed = toolkit.write_thrust_shadows(include, args.system_include / "thrust")
    cub = toolkit.write_cub_headers(include, args.system_include / "hipcub")
    shadow_results = shadows.write_vector_shadows(include, args.system_include, clangxx)
    added = status_codes.write_shadows(include / "moatbridge" / "shadow", args.system_include, statuses)
    print(
        f"CUDA status codes HIP has no name for: {added} added, "
        + ", ".join(
            f"{spec.key} {len(each.aliases)} aliases, {len(each.unmapped)} unfolded"
            for spec, each in statuses
        ),
        flush=True,
    )
    for shadow in shadow_results:
        print(f"shadow {shadow.probe} (hip/{shadow.header}): {shadow.outcome}", flush=True)
    print(f"thrust shadow headers: {shadowed}; cub headers: {cub}")
    toolkit.write_libraries(shared / "lib64", found)
    print(nvml.build(shared / "lib64", include, found, args.system_include), flush=True)
    toolkit.write_text(
        shared / "nvvm" / "libdevice" / "README",
        "CUDA's libdevice has no meaning on AMD GPUs; this directory exists because CMake checks for it.\n",
    )
    toolkit.write_headers(include, header_plans)
    provided = sum(1 for p in header_plans if p.kind != "unsupported")

    def write_family(family: str, members: list[mappings.Mapping]) -> None:
        emitted[family] = len(members)
        toolkit.write_text(
            include / "moatbridge" / "generated" / f"{family}.h",
            toolkit.mapping_header(family, members, sources[family], declared.get(family, {})),
        )

    # Mappings onto names the hand-written headers define themselves (HIP gained them): the
    # hand-written definition wins; decided by compiling every provided header in this stack.
    collided, header_errors = conflicts.resolve(
        clangxx, include, [p.path for p in header_plans if p.kind != "unsupported"], cuda_version,
        resolved, write_family,
    )  # fmt: skip
    dropped += collided
    for item in collided:
        print(f"left out {item.cuda} -> {item.hip}: {item.reason}", flush=True)
    for error in header_errors:
        print(f"header error: {error}", flush=True)
    print(f"CUDA headers: {provided} of {len(header_plans)} provided (cuda_headers.tsv)", flush=True)
    # the functions listed as missing that this stack's HIP has after all are not gaps here
    listed_gaps = signatures.load_gaps()
    api_gaps = signatures.still_missing(
        listed_gaps, api_functions,
        lambda text: conflicts.compile_source(clangxx, include, cuda_version, text),
    )  # fmt: skip
    print(f"runtime and driver API gaps here: {len(api_gaps)} of {len(listed_gaps)} listed", flush=True)
    toolkit.write_report(
        shared, emitted, unresolved, dropped, header_plans, len(api_functions), api_gaps,
        device_functions.load(), signatures.load_gaps(device_functions.GAPS), found,
        [(r.probe, r.header, r.outcome + (f" ({r.detail})" if r.detail else "")) for r in shadow_results],
    )  # fmt: skip
    _write_targets(args.prefix, shared, targets, cuda_version, args.mimic_cc, found, clangxx)
    return 0


def _write_targets(
    prefix: Path,
    shared: Path,
    targets: list[str],
    cuda_version: str,
    mimic_cc: int,
    found: stack.Stack,
    clangxx: str,
) -> None:
    for gfx in targets:
        config = ToolkitConfig(
            root=str(prefix / "targets" / gfx), gfx=gfx, cuda_version=cuda_version,
            mimic_cc=mimic_cc, clangxx=clangxx, clang=found.clang, llvm_bin=found.llvm_bin,
            clang_version=str(found.clang_version), hip_version=found.hip_version,
        )  # fmt: skip
        toolkit.write_target(prefix, shared, config)
    if targets and not found.hipblaslt:
        nvcc = prefix / "targets" / targets[0] / "bin" / "nvcc"
        print(cublaslt.build(shared / "lib64", nvcc, targets, cuda_version), flush=True)
    print(
        f"toolkit directories: {len(targets)} ({', '.join(targets[:6])}{' ...' if len(targets) > 6 else ''})"
    )


if __name__ == "__main__":
    sys.exit(main())
