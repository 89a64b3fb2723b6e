"""The file tree of the SCALE STAND-IN: /opt/scale and /opt/rocm-scale as the vendor lays them out.

Shared by the stand-in packages (the .deb in scale_standin.py, the .rpm and the tarball
stand-ins) so that every channel installs the same layout. The layout follows the
vendor's public material (docs/images.md, /work/shared/reference/anchors.md section 1.3):

    /opt/scale/bin/{scaleenv,scaleinfo,scalediag,hsakmtsysinfo,scale_bugreport}
    /opt/scale/targets/<gfx>/{bin/nvcc, lib/libredscale.so, include/, share/scale/ccmap.conf}
    /opt/scale/targets/sm_any/...   NVIDIA mode without an NVIDIA toolkit (a guess, see SCALEENV)
    /usr/local/cuda-12.9            write_fake_nvidia_toolkit(): a FAKE NVIDIA toolkit, on request
    /opt/scale/llvm/bin/nvcc
    /opt/scale/lib/libcublas.so ...  /opt/scale/lib64 -> lib
    /opt/rocm-scale/lib/librocblas.so
    /opt/scale/LICENSE.txt, NOTICES.txt

Nothing here is SCALE. When a C compiler is on the host (``real_shared_objects()``),
``libredscale.so`` is a real shared object and the stand-in nvcc "compiles" by copying
a real program linked against it (DT_NEEDED libredscale.so, no rpath), so a test can
reproduce "libredscale.so: cannot open shared object file" and show that
LD_LIBRARY_PATH=/opt/scale/targets/<t>/lib fixes it. Without a compiler the library is a
placeholder and the program is a shell script that imitates the loader's check and
message, so tests behave the same way.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path

DEFAULT_TARGETS = ("gfx1030", "gfx1100")
NVIDIA_TARGET_DIR = "sm_any"  # the stand-in's guess at where NVIDIA mode lives (undocumented)

LICENSE_TEXT = """\
TEST STAND-IN -- NOT SPECTRAL COMPUTE'S LICENCE

This file belongs to a stand-in package named "scale" that moatbridge's test
suite builds to exercise its image recipes. It is not SCALE, contains no part of
SCALE, and this text is not the SCALE licence. The real licence is at
https://docs.scale-lang.com/stable/licensing/ and in /opt/scale/LICENSE.txt of a
real SCALE installation.
"""

NOTICES_TEXT = """\
TEST STAND-IN -- third-party notices placeholder for moatbridge's recipe tests.
The stand-in package contains only shell scripts written for those tests.
"""

# The message glibc's loader prints when a DT_NEEDED library is not found.
LOADER_ERROR = "error while loading shared libraries: libredscale.so: cannot open shared object file"

SCALEENV = """\
# scaleenv -- TEST STAND-IN for SCALE's environment script (moatbridge tests); not SCALE.
# Usage: . <install>/bin/scaleenv <target>   (gfxNNNN, or sm_NN for NVIDIA mode);
# `deactivate` undoes it. Sets what the vendor documents or is known to set
# (anchors.md 1.4): CUDA_HOME/CUDA_PATH/... = <install>/targets/<t>, PATH gets
# targets/<t>/bin, LD_LIBRARY_PATH gets targets/<t>/lib, SCALE_ENV, CUDAARCHS.
# Works sourced from bash, zsh or sh, and under set -u / set -e.
# (POSIX sh passes no arguments to `.`: there, SCALE_TARGET=<t> names the target.)
_scale_target="${1:-${SCALE_TARGET:-}}"
_scale_self="${BASH_SOURCE:-}"
if [ -z "$_scale_self" ] && [ -n "${ZSH_VERSION:-}" ]; then _scale_self="$0"; fi
case "$_scale_self" in
    scaleenv | */scaleenv) _scale_root="$(cd "$(dirname "$_scale_self")/.." && pwd)" ;;
    *) _scale_root="@SCALE_ROOT@" ;;  # plain sh cannot tell which file it sources
esac
if [ -z "$_scale_target" ]; then
    echo "scaleenv (stand-in): usage: . scaleenv <gfxNNNN | sm_NN>" >&2
    unset _scale_target _scale_self _scale_root
    return 1 2>/dev/null || exit 1
fi
# NVIDIA mode (SCALE 1.6.1+): sm_NN, sm_NNa, sm_NNf; CUDAARCHS is the number (and suffix).
# The vendor's scaleenv picks an NVIDIA CUDA installation ("Using cuda install at ...") by
# an unpublished search and points CUDA_PATH at it; this stand-in looks at
# <sys>/usr/local/cuda, then <sys>/usr/local/cuda-*, where <sys> is / for /opt/scale (and
# the tree's root in host tests), and then puts SCALE's NVIDIA-mode nvcc (llvm/bin) first on
# PATH and the toolkit's lib64 on LD_LIBRARY_PATH (GUESSED). Without an NVIDIA install it
# falls back to an older GUESS, one shared toolkit directory targets/@NVIDIA_DIR@ (so that
# moatbridge's own check of CUDA_PATH, not this script, is what refuses such an image).
_scale_arch=86
_scale_nvcc_dir=
if printf '%s\\n' "$_scale_target" | grep -Eqx 'sm_[0-9]+[af]?'; then
    _scale_arch="${_scale_target#sm_}"
    _scale_dir="$_scale_root/targets/@NVIDIA_DIR@"
    case "$_scale_root" in */opt/scale) _scale_sys="${_scale_root%/opt/scale}" ;; *) _scale_sys= ;; esac
    for _scale_c in "$_scale_sys/usr/local/cuda" \
        $(find "$_scale_sys/usr/local" -mindepth 1 -maxdepth 1 -name 'cuda-*' 2>/dev/null | sort); do
        if [ -f "$_scale_c/include/cuda_runtime.h" ]; then
            echo "scaleenv (stand-in): Using cuda install at $_scale_c" >&2
            _scale_dir="$_scale_c"
            _scale_nvcc_dir="$_scale_root/llvm/bin"
            break
        fi
    done
    unset _scale_c _scale_sys
else
    _scale_dir="$_scale_root/targets/$_scale_target"
fi
if [ ! -d "$_scale_dir" ]; then
    echo "scaleenv (stand-in): unknown target $_scale_target" >&2
    unset _scale_target _scale_self _scale_root _scale_dir _scale_arch
    return 1 2>/dev/null || exit 1
fi
if [ -n "${SCALE_ENV:-}" ] && command -v deactivate >/dev/null 2>&1; then deactivate; fi
_SCALE_OLD_PATH="$PATH"
_SCALE_OLD_LD_LIBRARY_PATH="${LD_LIBRARY_PATH-}"
export SCALE_ENV="$_scale_target"
export CUDA_HOME="$_scale_dir" CUDA_PATH="$_scale_dir" CUDA_DIR="$_scale_dir" CUDA_ROOT="$_scale_dir"
export CUDA_BIN_PATH="$_scale_dir/bin" CUDA_INC_DIR="$_scale_dir/include"
if [ -n "$_scale_nvcc_dir" ]; then  # NVIDIA mode with NVIDIA's toolkit: SCALE's compiler, NVIDIA's libraries
    export CUDACXX="$_scale_nvcc_dir/nvcc" CUDA_CXX="$_scale_nvcc_dir/nvcc" CUCC="$_scale_nvcc_dir/nvcc"
    export PATH="$_scale_nvcc_dir:$PATH"
    export LD_LIBRARY_PATH="$_scale_dir/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    export CUDACXX="$_scale_dir/bin/nvcc" CUDA_CXX="$_scale_dir/bin/nvcc" CUCC="$_scale_dir/bin/nvcc"
    export PATH="$_scale_dir/bin:$PATH"
    export LD_LIBRARY_PATH="$_scale_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export CUDAARCHS="$_scale_arch"
deactivate() {
    PATH="$_SCALE_OLD_PATH"
    if [ -n "$_SCALE_OLD_LD_LIBRARY_PATH" ]; then
        LD_LIBRARY_PATH="$_SCALE_OLD_LD_LIBRARY_PATH"
    else
        unset LD_LIBRARY_PATH
    fi
    unset SCALE_ENV CUDA_HOME CUDA_PATH CUDA_DIR CUDA_ROOT CUDA_BIN_PATH CUDA_INC_DIR \\
        CUDACXX CUDA_CXX CUCC CUDAARCHS _SCALE_OLD_PATH _SCALE_OLD_LD_LIBRARY_PATH
    unset -f deactivate
}
unset _scale_target _scale_self _scale_root _scale_dir _scale_arch _scale_nvcc_dir
"""


def _tool(name: str, kfd_message: str) -> str:
    return textwrap.dedent(f"""\
        #!/bin/sh
        # {name}: TEST STAND-IN for SCALE's tool of that name (moatbridge tests); not SCALE.
        echo "{name}: TEST STAND-IN for SCALE (version @VERSION@)"
        if [ -r /dev/kfd ] && [ -w /dev/kfd ]; then
            echo "{name}: /dev/kfd is usable (the stand-in queries no GPU)"
            exit 0
        fi
        echo "{kfd_message}" >&2
        exit 1
        """)


TOOLS = {
    "scaleinfo": _tool("scaleinfo", "Error getting device count: initialization error"),
    "scalediag": _tool("scalediag", "scalediag (stand-in): /dev/kfd is missing or not writable"),
    "hsakmtsysinfo": _tool("hsakmtsysinfo", "HSAKMT Error 20: Could not open KFD"),
    "scale_bugreport": '#!/bin/sh\necho "scale_bugreport: TEST STAND-IN for SCALE (version @VERSION@)"\n',
}

NVCC = """\
#!/bin/sh
# nvcc -- TEST STAND-IN for SCALE's nvcc (moatbridge tests); it translates no CUDA.
# --version names the stand-in and SCALE_CUDA_VERSION; --require-scale is accepted and
# ignored, as SCALE's nvcc does; with -o FILE it writes a program there: a copy of
# ../share/scale/standin-program, linked against libredscale.so (no rpath).
here="$(cd "$(dirname "$0")/.." && pwd)"
out=
for arg in "$@"; do
    case "$arg" in
        --version | -V)
            echo "nvcc: SCALE stand-in @VERSION@ (TEST STAND-IN for SCALE's nvcc, moatbridge tests)"
            echo "Cuda compilation tools, release ${SCALE_CUDA_VERSION:-unknown}"
            exit 0 ;;
    esac
done
while [ "$#" -gt 0 ]; do
    case "$1" in
        -o) out=${2-}; shift ;;
        -o*) out=${1#-o} ;;
    esac
    shift
done
if [ -z "$out" ]; then
    echo "nvcc (stand-in): cannot compile anything without -o; this is not SCALE" >&2
    exit 1
fi
cp "$here/share/scale/standin-program" "$out"
chmod 0755 "$out"
"""

# Used when the host has no C compiler: imitates the loader's DT_NEEDED lookup.
PROGRAM_SCRIPT = f"""\
#!/bin/sh
# A stand-in "compiled program" (no C compiler on the test host): looks for
# libredscale.so on LD_LIBRARY_PATH the way the loader would, and fails like it.
IFS=:
for dir in ${{LD_LIBRARY_PATH-}}; do
    if [ -n "$dir" ] && [ -f "$dir/libredscale.so" ]; then
        echo "stand-in program: libredscale $(cat "$dir/libredscale.so")"
        exit 0
    fi
done
echo "$0: {LOADER_ERROR}: No such file or directory" >&2
exit 127
"""

LIBRARY_C = """\
const char *redscale_standin_target(void) { return STANDIN_TARGET; }
"""

PROGRAM_C = """\
#include <stdio.h>
const char *redscale_standin_target(void);
int main(void) {
    printf("stand-in program: libredscale %s\\n", redscale_standin_target());
    return 0;
}
"""

CUDA_LIBRARIES = (
    "libcudart",
    "libcublas",
    "libcublasLt",
    "libcufft",
    "libcurand",
    "libcusparse",
    "libcusolver",
)
ROCM_LIBRARIES = ("librocblas", "librocfft", "librocsolver", "librocsparse", "librocrand")


def real_shared_objects() -> bool:
    """Whether the stand-in holds real ELF libraries and programs (a host C compiler exists)."""
    return shutil.which("gcc") is not None


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def _gcc(*argv: str, cwd: Path) -> None:
    subprocess.run(["gcc", "-O1", "-s", *argv], cwd=cwd, check=True, capture_output=True, text=True)


def _write_runtime(target_dir: Path, target: str) -> None:
    """targets/<t>/lib/libredscale.so and the program the stand-in nvcc hands out."""
    library = target_dir / "lib" / "libredscale.so"
    program = target_dir / "share" / "scale" / "standin-program"
    library.parent.mkdir(parents=True, exist_ok=True)
    program.parent.mkdir(parents=True, exist_ok=True)
    if not real_shared_objects():
        _write(library, f"{target}\n")  # a placeholder: no C compiler on the test host
        _write(program, PROGRAM_SCRIPT, 0o755)
        return
    with tempfile.TemporaryDirectory(prefix="redscale-") as scratch:
        work = Path(scratch)
        (work / "lib.c").write_text(LIBRARY_C)
        (work / "main.c").write_text(PROGRAM_C)
        _gcc("-shared", "-fPIC", f'-DSTANDIN_TARGET="{target}"', "-Wl,-soname,libredscale.so",
             "-o", "libredscale.so", "lib.c", cwd=work)  # fmt: skip
        _gcc("-o", "program", "main.c", "-L.", "-lredscale", cwd=work)
        shutil.copyfile(work / "libredscale.so", library)
        shutil.copyfile(work / "program", program)
    library.chmod(0o755)
    program.chmod(0o755)


def _write_stub_library(path: Path) -> None:
    if real_shared_objects():
        with tempfile.TemporaryDirectory(prefix="stublib-") as scratch:
            work = Path(scratch)
            (work / "stub.c").write_text("int standin_stub_library(void) { return 0; }\n")
            _gcc("-shared", "-fPIC", f"-Wl,-soname,{path.name}", "-o", "stub.so", "stub.c", cwd=work)
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(work / "stub.so", path)
        path.chmod(0o755)
    else:
        _write(path, "stand-in placeholder library\n")


def _toolkit(target_dir: Path, target: str, version: str, ccmap: str) -> None:
    nvcc = NVCC.replace("@VERSION@", version)
    _write(target_dir / "bin" / "nvcc", nvcc, 0o755)
    _write(target_dir / "include" / "cuda_runtime.h", "/* TEST STAND-IN: not SCALE's header */\n")
    _write(target_dir / "share" / "scale" / "ccmap.conf", ccmap)
    _write_runtime(target_dir, target)


def write_scale_prefix(
    prefix: Path, version: str, targets: Sequence[str] = DEFAULT_TARGETS, install_root: str = "/opt/scale"
) -> None:
    """Write the CONTENTS of /opt/scale (bin/, targets/, lib/, ...) into ``prefix``.

    ``install_root`` is where scaleenv assumes it lives when it cannot find its own
    path (sourced from a plain POSIX sh); bash and zsh find it themselves, so a
    tarball extracted anywhere works too.
    """
    scaleenv = SCALEENV.replace("@SCALE_ROOT@", install_root).replace("@NVIDIA_DIR@", NVIDIA_TARGET_DIR)
    _write(prefix / "bin" / "scaleenv", scaleenv, 0o755)
    for name, text in TOOLS.items():
        _write(prefix / "bin" / name, text.replace("@VERSION@", version), 0o755)
    for target in targets:
        ccmap = f"# TEST STAND-IN ccmap: every compute capability maps to {target}\n{target}\n"
        _toolkit(prefix / "targets" / target, target, version, ccmap)
    # NVIDIA mode: the vendor's layout is undocumented; GUESSED, see SCALEENV.
    _toolkit(prefix / "targets" / NVIDIA_TARGET_DIR, NVIDIA_TARGET_DIR, version, "# NVIDIA mode: no map\n")
    _write(prefix / "llvm" / "bin" / "nvcc", NVCC.replace("@VERSION@", version), 0o755)
    (prefix / "llvm" / "share" / "scale").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(
        prefix / "targets" / NVIDIA_TARGET_DIR / "share" / "scale" / "standin-program",
        prefix / "llvm" / "share" / "scale" / "standin-program",
    )
    (prefix / "llvm" / "share" / "scale" / "standin-program").chmod(0o755)
    _write(prefix / "include" / "redscale_impl" / "README", "TEST STAND-IN headers directory\n")
    for name in CUDA_LIBRARIES:
        _write_stub_library(prefix / "lib" / f"{name}.so")
    lib64 = prefix / "lib64"
    if not lib64.is_symlink():
        lib64.symlink_to(
            "lib"
        )  # "has CUDA API libs" per the vendor's runtime Dockerfiles; an alias [inferred]
    _write(prefix / "LICENSE.txt", LICENSE_TEXT)
    _write(prefix / "NOTICES.txt", NOTICES_TEXT)


def write_rocm_scale(prefix: Path) -> None:
    """Write the CONTENTS of /opt/rocm-scale (the ROCm subset SCALE bundles) into ``prefix``."""
    for name in ROCM_LIBRARIES:
        _write_stub_library(prefix / "lib" / f"{name}.so")
    _write(prefix / "lib" / "rocblas" / "library" / "README", "TEST STAND-IN rocBLAS kernels directory\n")
    _write(prefix / "include" / "README", "TEST STAND-IN ROCm headers directory\n")


def write_scale_tree(root: Path, version: str, targets: Sequence[str] = DEFAULT_TARGETS) -> None:
    """Write root/opt/scale and root/opt/rocm-scale, as a package installs them (``root`` = /)."""
    write_scale_prefix(root / "opt" / "scale", version, targets)
    write_rocm_scale(root / "opt" / "rocm-scale")


# A FAKE NVIDIA CUDA toolkit for SCALE's NVIDIA mode: where NVIDIA's cuda-toolkit-12-9 package
# puts it (/usr/local/cuda-12.9, /usr/local/cuda -> it), with only what moatbridge checks:
# include/cuda_runtime.h and libcudart in targets/x86_64-linux/lib (lib64 -> it). Not NVIDIA's.
FAKE_NVIDIA_CUDA = "/usr/local/cuda-12.9"
FAKE_NVIDIA_NVCC = """\
#!/bin/sh
# nvcc -- FAKE NVIDIA nvcc, TEST STAND-IN (moatbridge tests); not NVIDIA's. Like NVIDIA's,
# it rejects SCALE's --require-scale (moatbridge's guard against reaching it by accident).
for arg in "$@" ${NVCC_APPEND_FLAGS-}; do
    if [ "$arg" = --require-scale ]; then echo "nvcc fatal   : Unknown option '--require-scale'" >&2; exit 1; fi
done
echo "nvcc: FAKE NVIDIA nvcc (TEST STAND-IN, moatbridge tests); it compiles nothing" >&2
exit 1
"""


def write_fake_nvidia_toolkit(root: Path) -> str:
    """Write a FAKE NVIDIA CUDA toolkit under ``root`` (= /) at FAKE_NVIDIA_CUDA; returns that path."""
    base = root / FAKE_NVIDIA_CUDA.lstrip("/")
    _write(base / "README.TEST-STAND-IN", "FAKE NVIDIA CUDA toolkit for moatbridge's tests; not NVIDIA's.\n")
    _write(
        base / "include" / "cuda_runtime.h", "/* FAKE NVIDIA CUDA header, TEST STAND-IN: not NVIDIA's */\n"
    )
    _write_stub_library(base / "targets" / "x86_64-linux" / "lib" / "libcudart.so.12")
    _write(base / "bin" / "nvcc", FAKE_NVIDIA_NVCC, 0o755)
    (base / "lib64").symlink_to("targets/x86_64-linux/lib")
    (base.parent / "cuda").symlink_to(base.name)
    return FAKE_NVIDIA_CUDA


DKMS_LEFTOVERS = ("usr/src/amdgpu-standin", "var/lib/dkms/amdgpu-standin", "boot/standin-initrd")


def write_dkms_leftovers(root: Path) -> list[str]:
    """The files the real package leaves through amdgpu-dkms (the vendor's clean.sh removes
    them from images): /usr/src/amdgpu-standin, /var/lib/dkms/amdgpu-standin,
    /boot/standin-initrd. Returns their absolute paths."""
    _write(root / "usr" / "src" / "amdgpu-standin" / "dkms.conf", 'PACKAGE_NAME="amdgpu-standin"\n')
    _write(root / "var" / "lib" / "dkms" / "amdgpu-standin" / "README", "stand-in dkms state\n")
    _write(root / "boot" / "standin-initrd", "stand-in initrd\n")
    return [f"/{path}" for path in DKMS_LEFTOVERS]
