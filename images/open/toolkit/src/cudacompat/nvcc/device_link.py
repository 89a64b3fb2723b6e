"""The device link: what `clang --hip-link -fgpu-rdc` does internally, stopped at an object
that defines __hip_fatbin, so any host linker can finish (as after nvcc -dlink). Pure."""

from __future__ import annotations

import os
from collections.abc import Iterable

from .config import ToolkitConfig
from .steps import FatbinWrapper, Run, Step, WriteText


def bundle_triples(config: ToolkitConfig) -> tuple[str, str]:
    """The host triple and the device triple's prefix (up to the target ID) the stack's bundler
    takes: LLVM 18 and later want every triple with its environment field (clang itself names
    the host x86_64-unknown-linux-gnu there); LLVM 17 takes and writes the short forms."""
    if int(config.clang_version) >= 18:
        return "x86_64-unknown-linux-gnu", "amdgcn-amd-amdhsa--"
    return "x86_64-unknown-linux", "amdgcn-amd-amdhsa-"


def device_link_steps(
    config: ToolkitConfig, gfx_targets: tuple[str, ...], objects: list[str], output: str, work_dir: str,
    debug: bool = False,
) -> list[Step]:  # fmt: skip
    """Link the device code of relocatable objects into one object defining __hip_fatbin."""
    bundler = config.tool("clang-offload-bundler")
    host, device = bundle_triples(config)
    steps: list[Step] = []
    images: list[str] = []
    for gfx in gfx_targets:
        device_parts: list[str] = []
        for index, obj in enumerate(objects):
            archive = obj.endswith((".a", ".lib"))
            part = os.path.join(work_dir, f"dlink-{index}-{gfx}.{'a' if archive else 'o'}")
            steps.append(
                Run(
                    (
                        bundler,
                        f"-type={'a' if archive else 'o'}",
                        f"-targets=hip-{device}{gfx}",
                        f"-input={obj}",
                        f"-output={part}",
                        "-unbundle",
                        "-allow-missing-bundles",
                    ),
                    unbundles_archive=(obj, part) if archive else None,
                )
            )
            device_parts.append(part)
        image = os.path.join(work_dir, f"dlink-{gfx}.out")
        steps.append(
            Run(
                (
                    config.tool("lld"),
                    "-flavor",
                    "gnu",
                    "-m",
                    "elf64_amdgpu",
                    "--no-undefined",
                    "-shared",
                    "-plugin-opt=-amdgpu-internalize-symbols",
                    f"-plugin-opt=mcpu={gfx}",
                    f"-plugin-opt=O{0 if debug else 3}",
                    "--whole-archive",
                    "-o",
                    image,
                    *device_parts,
                    "--no-whole-archive",
                )
            )
        )
        images.append(image)
    fatbin = os.path.join(work_dir, "dlink.hipfb")
    targets = ",".join([f"host-{host}", *(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in gfx_targets)])
    steps.append(
        Run(
            (
                bundler,
                "-type=o",
                "-bundle-align=4096",
                f"-targets={targets}",
                "-input=/dev/null",
                *(f"-input={image}" for image in images),
                f"-output={fatbin}",
            )
        )
    )
    wrapper = os.path.join(work_dir, "dlink.mcin")
    if int(config.clang_version) >= 18:
        steps.append(FatbinWrapper(wrapper, os.path.abspath(fatbin), tuple(objects), config.tool("llvm-nm")))
    else:
        steps.append(WriteText(wrapper, fatbin_wrapper_assembly(os.path.abspath(fatbin))))
    steps.append(
        Run(
            (
                config.tool("llvm-mc"),
                "-triple",
                "x86_64-pc-linux-gnu",
                "-o",
                output,
                wrapper,
                "--filetype=obj",
            )
        )
    )
    return steps


def fatbin_wrapper_assembly(fatbin_path: str, symbols: Iterable[str] = ()) -> str:
    """The object that carries the linked device image, as clang's HIP toolchain writes it.
    `symbols`: the per-object names (clang 18+: __hip_fatbin_<hash>, __hip_gpubin_handle_<hash>)
    the relocatable objects refer to; each becomes an alias of the one fatbin or handle."""
    quoted = fatbin_path.replace("\\", "\\\\").replace('"', '\\"')
    text = (
        "# moatbridge nvcc device link: the linked AMD code objects for the HIP runtime\n"
        "  .protected __hip_fatbin\n"
        "  .type __hip_fatbin,@object\n"
        '  .section .hip_fatbin,"a",@progbits\n'
        "  .globl __hip_fatbin\n"
        "  .p2align 12\n"
        "__hip_fatbin:\n"
        f'  .incbin "{quoted}"\n'
    )
    names = sorted(set(symbols))
    handles = [name for name in names if name.startswith("__hip_gpubin_handle_")]
    if handles:
        # one module handle for all objects: the first registration loads the image, the
        # others find the handle set (what clang's own wrapper does)
        text += (
            "  .protected __hip_gpubin_handle\n"
            "  .type __hip_gpubin_handle,@object\n"
            '  .section .hip_gpubin_handle,"aw"\n'
            "  .globl __hip_gpubin_handle\n"
            "  .p2align 3\n"
            "__hip_gpubin_handle:\n"
            "  .zero 8\n"
        )
    for name in names:
        primary = "__hip_gpubin_handle" if name.startswith("__hip_gpubin_handle_") else "__hip_fatbin"
        text += f"  .globl {name}\n  .set {name},{primary}\n"
    return text


def references_fatbin(nm_output: str) -> bool:
    """Whether `nm -u -j` output names a fatbin to be linked: __hip_fatbin (clang 17), or
    the object's own __hip_fatbin_<hash> (clang 18 and later): relocatable device code."""
    return any(word == "__hip_fatbin" or word.startswith("__hip_fatbin_") for word in nm_output.split())


def wrapper_symbols(nm_output: str) -> list[str]:
    """The per-object fatbin and handle names in `nm -u -j` output."""
    return sorted(
        {word for word in nm_output.split() if word.startswith(("__hip_fatbin_", "__hip_gpubin_handle_"))}
    )
