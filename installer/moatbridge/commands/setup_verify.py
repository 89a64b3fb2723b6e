"""Setup's checks of a toolchain image: verification per flavour and variant, the shim
commands the image really has, and the GPU flags a run here gets."""

from __future__ import annotations

import subprocess
from typing import Any

from moatbridge.commands import _toolchain as tc
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.setup_plan import SetupPlan
from moatbridge.core.shims import candidate_tools, probe_script, probed_tools
from moatbridge.errors import MoatbridgeError

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
    result = subprocess.run(
        ["docker", "run", "--rm", "--network", "host", *gpu_args, "--entrypoint", "bash",
         "-e", "SCALE_LICENSE_ACCEPT=1", reference, "-c", script, *argv],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return result.returncode, result.stdout + result.stderr


def gpu_run_args(report: Any, target: str) -> tuple[str, ...]:
    """Device and group flags when a usable GPU of this target is present, else nothing.
    SCALE's NVIDIA mode (sm_NN) takes docker's NVIDIA path: --gpus all."""
    if is_nvidia_target(target):
        usable = any(g.vendor == "nvidia" and g.usable for g in report.gpus)
        return ("--gpus", "all") if usable and tc.nvidia_gpu_access() else ()
    if not any(g.usable and g.gfx_target == target for g in report.amd_gpus) or not report.kfd.accessible:
        return ()
    groups = sorted({n.gid for n in (report.kfd, *report.render_nodes) if n.exists and n.gid is not None})
    return ("--device", "/dev/kfd", "--device", "/dev/dri", *(f"--group-add={g}" for g in groups))


def probe_tools(reference: str, plan: SetupPlan) -> tuple[str, ...]:
    """The shim commands the image really has after activation (one container for all)."""
    tools = candidate_tools(plan.flavour)
    activate = tc.ACTIVATORS.get(plan.flavour, tc.ACTIVATORS["open"])
    code, output = _in_image(reference, probe_script(activate, tools), argv=(plan.targets[0],))
    if code != 0:
        raise MoatbridgeError(
            f"Could not ask the toolchain image {reference} which commands it has.",
            "its output:\n" + output[-2000:],
        )
    return probed_tools(output, tools)


def verify(reference: str, plan: SetupPlan, gpu_args: tuple[str, ...] = ()) -> str | None:
    """Check the image per flavour and variant; returns a note when a check was skipped.

    scale devel: scaleenv activates the target, `nvcc --version` says SCALE and a sample
    compiles; scale runtime/base: the target's libredscale.so is where the vendor keeps it
    (an sm_NN target has no AMD runtime: skipped, said so); open devel: the sample compiles
    through its nvcc (and runs when the GPU is here, ``gpu_args``); open runtime/base:
    the HIP runtime library and rocminfo."""
    target = plan.targets[0]
    failures = {1: f"could not compile a sample for {target}"}
    if plan.flavour == "scale" and plan.variant != "devel":
        if is_nvidia_target(target):
            return (
                f"{target} is SCALE's NVIDIA mode: the image's AMD runtime was not checked "
                "(NVIDIA's CUDA libraries run the programs)"
            )
        library = f"/opt/scale/targets/{target}/lib/libredscale.so"
        script = f"test -e {library}"
        failures = {1: f"has no {library} (SCALE's runtime for {target})"}
    elif plan.flavour == "scale":
        script = (
            f". /opt/scale/bin/scaleenv {target} >/dev/null || exit 3\n"
            "nvcc --version | grep -q SCALE || exit 4\n"
            "echo 'int main(){}' > /tmp/s.cu && nvcc /tmp/s.cu -o /tmp/s"
        )
        failures = {
            1: f"could not compile a sample for {target}",
            3: f"could not activate {target} with /opt/scale/bin/scaleenv",
            4: "has an nvcc whose --version does not mention SCALE",
        }
        gpu_args = ()
    elif plan.variant != "devel":
        script = "ldconfig -p | grep -q libamdhip64 && command -v rocminfo"
        failures = {1: "does not carry the HIP runtime"}
        gpu_args = ()
    else:
        # The toolchain's promise: unmodified CUDA through its nvcc, for this target.
        script = (
            f"cat > /tmp/moatbridge-sample.cu <<'EOF'\n{SAMPLE_CUDA}\nEOF\n"
            f". /opt/moatbridge/bin/activate {target} && "
            "nvcc -o /tmp/moatbridge-sample /tmp/moatbridge-sample.cu"
            + (" && /tmp/moatbridge-sample" if gpu_args else "")
        )
    code, output = _in_image(reference, script, gpu_args)
    if code != 0:
        what = failures.get(code, failures[1])
        raise MoatbridgeError(f"The toolchain image {reference} {what}.", "its output:\n" + output[-2000:])
    return None
