"""The device link: what `clang --hip-link -fgpu-rdc` does internally, stopped at an object
that defines __hip_fatbin, so any host linker can finish (as after nvcc -dlink). Pure."""

from __future__ import annotations

import os

from .config import ToolkitConfig
from .steps import Run, Step, WriteText


def device_link_steps(
    config: ToolkitConfig, gfx_targets: tuple[str, ...], objects: list[str], output: str, work_dir: str,
    debug: bool = False,
) -> list[Step]:  # fmt: skip
    """Link the device code of relocatable objects into one object defining __hip_fatbin."""
    bundler = config.tool("clang-offload-bundler")
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
                        f"-targets=hip-amdgcn-amd-amdhsa-{gfx}",
                        f"-input={obj}",
                        f"-output={part}",
                        "-unbundle",
                        "-allow-missing-bundles",
                    )
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
    targets = ",".join(["host-x86_64-unknown-linux", *(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in gfx_targets)])
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


def fatbin_wrapper_assembly(fatbin_path: str) -> str:
    """The object that carries the linked device image, as clang's HIP toolchain writes it."""
    quoted = fatbin_path.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "# moatbridge nvcc device link: the linked AMD code objects for the HIP runtime\n"
        "  .protected __hip_fatbin\n"
        "  .type __hip_fatbin,@object\n"
        '  .section .hip_fatbin,"a",@progbits\n'
        "  .globl __hip_fatbin\n"
        "  .p2align 12\n"
        "__hip_fatbin:\n"
        f'  .incbin "{quoted}"\n'
    )
