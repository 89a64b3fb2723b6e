"""The environment a toolchain's in-image activation sets, as data.

Shells get it by sourcing `/opt/moatbridge/bin/activate <gfx>` (open) or `scaleenv <gfx>`
(SCALE). Devcontainers, Kubernetes, CI container jobs and Apptainer override the image's
entrypoint and start no login shell, so their generated files must spell the same
variables out; this is the one place that knows them (tests compare it with what the real
activate script exports).

SCALE's `scaleenv` is not public, so what it sets is inferred from the vendor's documented
layout (/opt/scale/targets/<gfx>/lib holds libredscale.so, /opt/scale/lib64 the CUDA API
libraries; scale-validation's runtime images set the same LD_LIBRARY_PATH). When the
toolchain's image is here, core.scale_env builds the environment from a measurement of
the real script instead; NVIDIA targets (sm_NN), whose layout is undocumented, are only
ever served from a measurement.
"""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.gfx import is_nvidia_target
from moatbridge.errors import InputError

MIMIC_ARCHITECTURE = "86"
DOCUMENTED = "documented layout"
DEFAULT_CLANG = "17"  # trixie's, the default stack's (the activate script's own default)
SCALE_HOME = "/opt/scale"
SCALE_TOOLS_DIR = f"{SCALE_HOME}/bin"  # scaleinfo, scalediag: not put on PATH by scaleenv

# In-image activation: an sh prefix the shim runner and Slurm scripts follow with the target
# ("$0") and `>/dev/null && exec "$@"`. For SCALE: /opt/scale/bin on PATH (scaleenv puts
# only the target's bin first, before it), and NVCC_APPEND_FLAGS gains --require-scale
# (appended to the user's flags), which SCALE's nvcc accepts as a no-op and NVIDIA's nvcc
# rejects, so a build that reaches a real nvcc by accident fails instead of going on.
# What a licence-gated flavour's container gets once its consent holds: the vendor's own
# acceptance variable (the consent rule stands in front of it; services.consent).
LICENCE_ENV: dict[str, tuple[str, ...]] = {"scale": ("SCALE_LICENSE_ACCEPT=1",)}
OPEN_ACTIVATE = ". /opt/moatbridge/bin/activate"
SCALE_ACTIVATE = (
    'case " ${NVCC_APPEND_FLAGS:-} " in *" --require-scale "*) ;; '
    '*) NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }--require-scale" ;; esac; '
    f'export NVCC_APPEND_FLAGS; PATH="{SCALE_TOOLS_DIR}${{PATH:+:$PATH}}"; export PATH; '
    f". {SCALE_TOOLS_DIR}/scaleenv"
)
ACTIVATORS = {"open": OPEN_ACTIVATE, "scale": SCALE_ACTIVATE}
# The same guard in the files that spell the environment out (devcontainer, Kubernetes, CI,
# Apptainer): they start no shell that could append to a user's value.
REQUIRE_SCALE = ("NVCC_APPEND_FLAGS", "--require-scale")


@dataclass(frozen=True)
class ToolkitEnv:
    variables: tuple[tuple[str, str], ...]
    path: tuple[str, ...]  # PATH entries, in order, ahead of the image's own PATH
    library_path: tuple[str, ...]  # LIBRARY_PATH: where the linker looks
    ld_library_path: tuple[str, ...] = ()  # LD_LIBRARY_PATH: where the loader looks (empty: unset)
    source: str = DOCUMENTED  # or "measured in <image>"

    def as_dict(self) -> dict[str, str]:
        return dict(self.variables)

    def origin(self, flavour: str) -> str | None:
        """One comment line for a generated file saying where SCALE's variables come from
        (None for the open flavour: its activate script is moatbridge's own)."""
        if flavour != "scale":
            return None
        if self.source == DOCUMENTED:
            return "SCALE's environment: the vendor's documented layout (its image was not here to measure)."
        return f"SCALE's environment: what scaleenv set when {self.source}."

    @property
    def path_prepend(self) -> str:
        """The PATH entries joined, to go in front of a PATH."""
        return ":".join(self.path)

    def path_before(self, rest: str) -> str:
        """PATH: these entries, then ``rest`` (no empty entry, which would mean the working
        directory, when there are none)."""
        return ":".join((*self.path, rest))

    def library_paths(self) -> tuple[tuple[str, str], ...]:
        """LIBRARY_PATH and LD_LIBRARY_PATH as (name, value), those that are set. Never with
        an empty entry: the loader reads one as the working directory."""
        pairs = (("LIBRARY_PATH", self.library_path), ("LD_LIBRARY_PATH", self.ld_library_path))
        return tuple((name, ":".join(entries)) for name, entries in pairs if entries)


def toolkit_root(flavour: str, target: str) -> str:
    return f"{SCALE_HOME}/targets/{target}" if flavour == "scale" else f"/opt/moatbridge/targets/{target}"


def toolkit_env(flavour: str, target: str, clang: str | None = None) -> ToolkitEnv:
    """The documented environment (no measurement). An NVIDIA target of SCALE is refused:
    its layout is undocumented, so only a measurement of the real scaleenv serves it.
    ``clang``: the open stack's clang major version (the catalog's distros.<stack>.clang;
    trixie's 17 when not known), which CC/CXX name as the activate script does."""
    if flavour == "scale" and is_nvidia_target(target):
        raise InputError(
            f"SCALE's environment for the NVIDIA target {target} is not documented, so moatbridge "
            "measures it in the toolchain's image, which is not on this machine.",
            "pull or build the toolchain's image first (moatbridge setup, or moatbridge image pull), "
            "then generate the file again",
        )
    root = toolkit_root(flavour, target)
    nvcc = f"{root}/bin/nvcc"
    variables: list[tuple[str, str]] = []
    if flavour == "scale":
        variables.append(("SCALE_ENV", target))  # scaleenv names the active target here
    else:
        variables += [
            ("MOATBRIDGE_TARGET", target),
            ("HIP_PLATFORM", "amd"),
            ("HCC_AMDGPU_TARGET", target),
            ("CMAKE_HIP_ARCHITECTURES", target),
            # The stack's clang (17 on trixie, 21 on sid, 22 on experimental) is the image's
            # C/C++ compiler and has no cc/c++ alternatives.
            ("CC", f"clang-{clang or DEFAULT_CLANG}"),
            ("CXX", f"clang++-{clang or DEFAULT_CLANG}"),
            # NVIDIA's devel images install NCCL in /usr; here nccl.h and libnccl are the
            # toolkit's, where projects' FindNCCL modules look with NCCL_ROOT
            ("NCCL_ROOT", root),
        ]
    variables += [
        ("CUDA_HOME", root), ("CUDA_PATH", root), ("CUDA_ROOT", root), ("CUDA_DIR", root),
        ("CUDA_BIN_PATH", f"{root}/bin"), ("CUDA_INC_DIR", f"{root}/include"),
        ("CUDACXX", nvcc), ("CUCC", nvcc), ("CUDAToolkit_ROOT", root),
        ("CUDAARCHS", MIMIC_ARCHITECTURE),
    ]  # fmt: skip
    if flavour == "scale":
        variables += [("CUDA_CXX", nvcc), REQUIRE_SCALE]
        # libredscale.so is in the target's lib (not lib64); the CUDA API libraries are in
        # /opt/scale/lib64. Both at link and at run time, as scale-validation's images set.
        libraries = (f"{root}/lib", f"{SCALE_HOME}/lib64")
        return ToolkitEnv(tuple(variables), (f"{root}/bin", SCALE_TOOLS_DIR), libraries, libraries)
    return ToolkitEnv(tuple(variables), (f"{root}/bin",), (f"{root}/lib64",))
