"""Setup's checks of a toolchain image: verification per flavour and variant, the shim
commands the image really has, and the GPU flags a run here gets."""

from __future__ import annotations

from typing import Any

from moatbridge.adapters import proc
from moatbridge.adapters.containers import transient_label_args
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.shims import candidate_tools, probe_script, probed_tools
from moatbridge.core.toolkit_env import ACTIVATORS
from moatbridge.errors import MoatbridgeError
from moatbridge.services.runtime import nvidia_gpu_access

SAMPLE_CUDA = r"""
#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
// Exit 0 without a GPU (compile check only); with one, the device must answer.
int main() { int n = 0; return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1; }
"""


def _in_image(
    reference: str, script: str, gpu_args: tuple[str, ...] = (), argv: tuple[str, ...] = ()
) -> tuple[int, str]:
    result = proc.run_captured(
        ["docker", "run", "--rm", *transient_label_args(), "--network", "host", *gpu_args,
         "--entrypoint", "bash", "-e", "SCALE_LICENSE_ACCEPT=1", reference, "-c", script, *argv],
        timeout=600,
    )  # fmt: skip
    return result.returncode, result.stdout + result.stderr


def gpu_run_args(report: Any, target: str) -> tuple[str, ...]:
    """Device and group flags when a usable GPU of this target is present, else nothing.
    SCALE's NVIDIA mode (sm_NN) takes docker's NVIDIA path: --gpus all."""
    if is_nvidia_target(target):
        usable = any(g.vendor == "nvidia" and g.usable for g in report.gpus)
        return ("--gpus", "all") if usable and nvidia_gpu_access() else ()
    if not any(g.usable and g.gfx_target == target for g in report.amd_gpus) or not report.kfd.accessible:
        return ()
    groups = sorted({n.gid for n in (report.kfd, *report.render_nodes) if n.exists and n.gid is not None})
    return ("--device", "/dev/kfd", "--device", "/dev/dri", *(f"--group-add={g}" for g in groups))


def probe_tools(reference: str, spec: ImageSpec) -> tuple[str, ...]:
    """The shim commands the image really has after activation (one container for all)."""
    tools = candidate_tools(spec.flavour_name)
    activate = ACTIVATORS.get(spec.flavour_name, ACTIVATORS["open"])
    code, output = _in_image(reference, probe_script(activate, tools), argv=(spec.build_targets[0],))
    if code != 0:
        raise MoatbridgeError(
            f"Could not ask the toolchain image {reference} which commands it has.",
            "its output:\n" + output[-2000:],
        )
    return probed_tools(output, tools)


# SCALE's NVIDIA mode compiles with SCALE and links NVIDIA's CUDA libraries: after activation
# CUDA_PATH (scaleenv picks an NVIDIA install) must be an NVIDIA toolkit, not SCALE's own tree.
# When activation itself fails, the standard places are looked at to tell which problem it is.
_NVIDIA_TOOLKIT = r"""
nvidia_toolkit() {
    case "$1" in "" | /opt/scale | /opt/scale/*) return 1 ;; esac
    [ -f "$1/include/cuda_runtime.h" ] || return 1
    for lib in "$1"/lib64/libcudart.so* "$1"/targets/x86_64-linux/lib/libcudart.so*; do
        [ -e "$lib" ] && return 0
    done
    return 1
}
any_nvidia_toolkit() {
    for dir in /usr/local/cuda /usr/local/cuda-*; do nvidia_toolkit "$dir" && return 0; done
    return 1
}
"""
NVIDIA_TOOLKIT_HINT = (
    "SCALE brings only the compiler: build on an image that has NVIDIA's cuda-toolkit-12-x "
    "(setup --source build --base-image REF), or pull your own SCALE image extended with it "
    '(--registry HOST/PATH); docs/images.md, "SCALE\'s NVIDIA mode", shows both'
)


def _activation(flavour: str) -> str:
    """What shims, `moatbridge run` and Slurm scripts run in the container, followed by the
    target ("$0"): the same prefix, so setup checks what users get."""
    return f'{ACTIVATORS.get(flavour, ACTIVATORS["open"])} "$0"'


def verify(reference: str, spec: ImageSpec, gpu_args: tuple[str, ...] = ()) -> str | None:
    """Check the image per flavour and variant; returns a note when a check was skipped.

    scale devel: the shims' activation selects the target, `nvcc --version` says SCALE, a
    sample compiles, and for an sm_NN target CUDA_PATH is an NVIDIA CUDA toolkit; scale
    runtime/base: the target's libredscale.so is where the vendor keeps it (an sm_NN
    target has no AMD runtime: skipped, said so); open devel: the sample compiles through
    its nvcc (and runs when the GPU is here, ``gpu_args``); open runtime/base: the HIP
    runtime library and rocminfo."""
    target = spec.build_targets[0]
    failures = {1: f"could not compile a sample for {target}"}
    if spec.flavour == "scale" and spec.variant != "devel":
        if is_nvidia_target(target):
            return (
                f"{target} is SCALE's NVIDIA mode: the image's AMD runtime was not checked "
                "(NVIDIA's CUDA libraries run the programs)"
            )
        library = f"/opt/scale/targets/{target}/lib/libredscale.so"
        script = f"test -e {library}"
        failures = {1: f"has no {library} (SCALE's runtime for {target})"}
    elif spec.flavour == "scale":
        nvidia = is_nvidia_target(target)
        script = (
            (_NVIDIA_TOOLKIT if nvidia else "")
            + f"{_activation('scale')} >/dev/null 2>/tmp/activate.err || "
            + ("{ any_nvidia_toolkit || exit 5; " if nvidia else "{ ")
            + "cat /tmp/activate.err >&2; exit 3; }\n"
            "nvcc --version | grep -q SCALE || exit 4\n"
            + ('nvidia_toolkit "${CUDA_PATH:-${CUDA_HOME:-}}" || '
               '{ echo "CUDA_PATH after activation: ${CUDA_PATH:-unset}" >&2; exit 5; }\n' if nvidia else "")
            + "echo 'int main(){}' > /tmp/s.cu && nvcc /tmp/s.cu -o /tmp/s"
        )  # fmt: skip
        failures = {
            1: f"could not compile a sample for {target}",
            3: f"could not activate {target} with /opt/scale/bin/scaleenv",
            4: "has an nvcc whose --version does not mention SCALE",
        }
        gpu_args = ()
    elif spec.variant != "devel":
        script = "ldconfig -p | grep -q libamdhip64 && command -v rocminfo"
        failures = {1: "does not carry the HIP runtime"}
        gpu_args = ()
    else:
        # The toolchain's promise: unmodified CUDA through its nvcc, for this target.
        script = (
            f"cat > /tmp/moatbridge-sample.cu <<'EOF'\n{SAMPLE_CUDA}\nEOF\n"
            f"{_activation('open')} && "
            "nvcc -o /tmp/moatbridge-sample /tmp/moatbridge-sample.cu"
            + (" && /tmp/moatbridge-sample" if gpu_args else "")
        )
    code, output = _in_image(reference, script, gpu_args, argv=(target,))
    if code == 5 and spec.flavour == "scale":
        raise MoatbridgeError(
            f"The toolchain image {reference} has no NVIDIA CUDA toolkit, which SCALE's NVIDIA mode "
            f"({target}) needs for CUDA's headers and libraries.",
            f"{NVIDIA_TOOLKIT_HINT}; its output:\n" + output[-1000:],
        )
    if code != 0:
        what = failures.get(code, failures[1])
        raise MoatbridgeError(f"The toolchain image {reference} {what}.", "its output:\n" + output[-2000:])
    return None
