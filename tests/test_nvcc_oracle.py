"""NVIDIA's real nvcc (Debian's CUDA 12.4, `--dryrun`) is the oracle for our driver's command line.

For the lines build systems send (CMake's native CUDA language, the legacy FindCUDA module,
Meson, cuda-samples Makefiles) and for every option real `nvcc --help` lists, both drivers
must agree on: accepted or rejected, what reaches the host compiler and the host linker,
and the output file. Where we differ on purpose, DIFFERENCES says what and why; a listed
difference that no longer occurs fails too, so the table stays true.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import nvcc_oracle, nvidia_pypi, nvidia_toolkit

SRC = "k.cu"


@pytest.fixture(scope="module")
def real_nvcc() -> Path:
    return nvidia_toolkit.required(nvidia_toolkit.real_nvcc)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sources and files the lines name (real nvcc checks that inputs and -ccbin dirs exist)."""
    root = tmp_path_factory.mktemp("oracle")
    for name in ("k.cu", "main.cu", "host.cpp", "plain.c"):
        (root / name).write_text("int f() { return 0; }\n")
    for name in ("k.o", "main.o", "libdep.a", "objs.txt"):
        (root / name).write_text("")
    (root / "opts.rsp").write_text('-DFROM_RSP=1 -Xcompiler "-fno-strict-aliasing"\n')
    (root / "inc").mkdir()
    (root / "tools").mkdir()  # a -ccbin directory: nvcc runs the gcc and g++ in it
    for compiler in ("gcc", "g++"):
        (root / "tools" / compiler).symlink_to(f"/usr/bin/{compiler}")
    return root


# --- the lines build systems send --------------------------------------------------------
# (id, argv). Paths are relative to the work directory; the shapes are the build systems'.
BUILD_SYSTEM_LINES: list[tuple[str, list[str]]] = [
    # CMake's CUDA language (Makefile and Ninja generators, 3.2x)
    ("cmake-compile", ["-forward-unknown-to-host-compiler", "-DSCALE=2", "-Dkern_EXPORTS", "-Iinc",
                       "-isystem", "inc", "-O3", "-DNDEBUG",
                       "--generate-code=arch=compute_75,code=[compute_75,sm_75]", "-Xcompiler=-fPIC",
                       "-std=c++17", "-MD", "-MT", "obj/k.cu.o", "-MF", "obj/k.cu.o.d", "-x", "cu",
                       "-rdc=true", "-c", SRC, "-o", "obj/k.cu.o"]),
    ("cmake-compile-options-file", ["-forward-unknown-to-host-compiler", "--options-file", "opts.rsp",
                                    "-O3", "-DNDEBUG", "-std=c++17", "-x", "cu", "-c", SRC, "-o", "k2.o"]),
    ("cmake-device-link-shared", ["-forward-unknown-to-host-compiler", "-O3", "-DNDEBUG",
                                  "--generate-code=arch=compute_75,code=[compute_75,sm_75]",
                                  "-Xcompiler=-fPIC", "-Wno-deprecated-gpu-targets", "-shared", "-dlink",
                                  "k.o", "-o", "cmake_device_link.o", "-lcudadevrt", "-lcudart_static"]),
    ("cmake-link", ["-forward-unknown-to-host-compiler", "-O3", "-DNDEBUG", "main.o", "-o", "app",
                    "-Xlinker=-rpath,/opt/lib", "-lcudadevrt", "-lcudart_static", "-lrt", "-lpthread", "-ldl"]),
    ("cmake-forwarded-host-flags", ["-forward-unknown-to-host-compiler", "-fvisibility=hidden", "-Wall",
                                    "-fopenmp", "-c", SRC, "-o", "k3.o"]),
    # FindCUDA (cuda_add_executable / cuda_add_library)
    ("findcuda-depend", ["-M", "-D__CUDACC__", SRC, "-o", "k.cu.o.NVCC-depend", "-ccbin", "/usr/bin/cc",
                         "-m64", "-Xcompiler", ',"-fPIC","-O3","-DNDEBUG"', "-gencode",
                         "arch=compute_75,code=sm_75", "-O3", "-DNDEBUG", "-DNVCC", "-Iinc"]),
    ("findcuda-compile", [SRC, "-c", "-o", "generated_k.cu.o", "-ccbin", "/usr/bin/cc", "-m64",
                          "-Xcompiler", ',"-fPIC","-O3 -DNDEBUG"', "-gencode", "arch=compute_75,code=sm_75",
                          "-DNVCC", "-Iinc"]),
    ("findcuda-separable-dlink", ["-m64", "-ccbin", "/usr/bin/cc", "-dlink", "k.o", "main.o",
                                  "-o", "intermediate_link.o", "-Xcompiler", ',"-fPIC"']),
    # Meson (CUDA language, shared_library + executable)
    ("meson-compile", ["-D_GLIBCXX_ASSERTIONS=1", "-Ilibk.so.p", "-Xcompiler=-Wall,-Winvalid-pch", "-G",
                       "-g", "-Xcompiler=-fPIC", "-DSCALE=2", "-I..", "-I.", "-MD", "-MT", "libk.so.p/k.cu.o",
                       "-MF", "libk.so.p/k.cu.o.d", "-o", "libk.so.p/k.cu.o", "-c", SRC]),
    ("meson-shared-link", ["-o", "libk.so", "k.o", "-shared", "-Xcompiler=-fPIC",
                           "-Xcompiler=-Wl\\,-soname\\,libk.so"]),
    ("meson-exe-link", ["-o", "app", "main.o", "-Xcompiler=-Wl\\,-rpath\\,'$ORIGIN/'", "-Xlinker=libk.so"]),
    ("meson-exe-link-as-needed", ["-o", "app", "main.o", "-Xlinker=--as-needed", "-Xlinker=--no-undefined",
                                  "-Xcompiler=-Wl\\,-z\\,defs", "-lm"]),
    # cuda-samples Makefiles
    ("samples-compile", ["-ccbin", "g++", "-I../../../Common", "-m64", "--threads", "0", "--std=c++11",
                         "-gencode", "arch=compute_50,code=sm_50", "-gencode", "arch=compute_86,code=sm_86",
                         "-gencode", "arch=compute_90,code=compute_90", "-o", "matrixMul.o", "-c", SRC]),
    ("samples-link", ["-ccbin", "g++", "-m64", "-gencode", "arch=compute_86,code=sm_86", "-o", "matrixMul",
                      "main.o", "-lcublas"]),
    ("samples-cpp-source", ["-ccbin", "g++", "-I../../../Common", "-m64", "-Xcompiler", "-fopenmp",
                            "-o", "host.o", "-c", "host.cpp"]),
    ("samples-dc-rdc", ["-ccbin", "g++", "-m64", "-dc", "-gencode", "arch=compute_86,code=sm_86",
                        "-o", "k.o", "-c", SRC]),
    ("samples-link-libraries", ["-ccbin", "g++", "-m64", "-o", "app", "main.o", "-L../lib", "-lcurand,cufft",
                                "-lcusparse", "-Xlinker", "-rpath,/x y"]),
    # Hand-written Makefiles and scripts
    ("quoted-host-options", ["-Xcompiler", "-fPIC -fopenmp", "-Xcompiler", "'-DZ=1 2'", "-c", SRC]),
    ("quoted-define", ["-D", 'NAME="a,b"', "-DA=1,B=2", "-D", "C=1\\,2", "-c", SRC]),
    ("ccbin-directory", ["-ccbin", "tools", "main.o", "-o", "app"]),
    ("ccbin-gcc-links-with-gxx", ["-ccbin", "gcc", "main.o", "-o", "app"]),
    ("ccbin-versioned-gcc", ["-ccbin", "/usr/bin/gcc-12", "main.o", "-o", "app"]),
    ("cudart-none", ["-cudart", "none", "main.o", "-o", "app"]),
    ("cudart-shared", ["-cudart=shared", "main.o", "-o", "app"]),
    ("forward-to-linker", ["-forward-unknown-to-host-linker", "-Wl,--foo", "main.o", "-o", "app"]),
    ("forward-both", ["-forward-unknown-opts", "-fopenmp", "main.o", "-o", "app"]),
    ("werror-kinds", ["-Werror", "reorder,deprecated-declarations,cross-execution-space-call", "-c", SRC]),
    ("profile-noeh-template-depth", ["-pg", "-noeh", "-ftemplate-depth", "64", "-c", SRC]),
    ("lto", ["-lto", "-c", SRC, "-o", "lto.o"]),
    ("rdc-no-device-link", ["-rdc=true", "-nodlink", "main.o", "-o", "app"]),
    ("machine-64", ["--machine", "64", "-c", SRC]),
    ("machine-32", ["-m", "32", "-c", SRC]),
    ("unknown-option", ["-fno-such-thing", "-c", SRC]),
    ("odir", ["-odir", "inc", "-c", SRC]),
    ("preprocess-to-stdout", ["-E", SRC]),
    ("cuda-output", ["-cuda", SRC]),
    ("lib", ["-lib", "k.o", "main.o", "-o", "libx.a"]),
]  # fmt: skip

# Where we differ from real nvcc on purpose: id -> (only in real, only in ours, why).
DIFFERENCES: dict[str, tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]], str]] = {
    "samples-compile": (
        {"compile": ("-std=c++11",)}, {"compile": ("-std=c++17", "-Wno-register")},
        "ROCm 5.7's HIP and rocThrust headers need C++17; CUDA sources asking for less get C++17",
    ),
    "forward-both": (
        {}, {"link": ("-Wl,-rpath,/usr/lib/llvm-17/lib",)},
        "clang's -fopenmp needs LLVM's OpenMP runtime (it also serves libgomp's ABI), found there",
    ),
    "cuda-output": (
        {}, {}, "nvcc's -cuda output is its front end's C++ translation; ours is clang's host-side "
        "preprocessed source, under the same name",
    ),
}  # fmt: skip


# Mode options, by either spelling, and the baseline mode each is measured against.
_MODES = {
    "c": "-c", "compile": "-c", "dc": "-c", "device-c": "-c", "dw": "-c", "device-w": "-c",
    "dlink": "-dlink", "device-link": "-dlink", "lib": "-lib", "E": "-E", "preprocess": "-E",
    "M": "-M", "generate-dependencies": "-M", "MM": "-M", "generate-nonsystem-dependencies": "-M",
    "cuda": "-cuda",
}  # fmt: skip


_OUTPUT_OPTIONS = {"-o", "--output-file", "-MT", "-MF", "-MQ"}


def _base(argv: list[str]) -> list[str]:
    """The same mode with no options: what the line's options are measured against."""
    # an output or dependency target (`-o k.o`, `-MT obj/k.cu.o`) is not an input
    values = {index + 1 for index, word in enumerate(argv) if word in _OUTPUT_OPTIONS}
    inputs = [
        a for index, a in enumerate(argv)
        if index not in values and not a.startswith("-") and a.endswith((".cu", ".cpp", ".o", ".c"))
    ]  # fmt: skip
    modes = [_MODES[a.lstrip("-")] for a in argv if a.startswith("-") and a.lstrip("-") in _MODES]
    return [*dict.fromkeys(modes), *inputs[:1]]


def _interpretations(
    real_nvcc: Path, workdir: Path, argv: list[str], release: str = "12.4"
) -> tuple[nvcc_oracle.Interpretation, nvcc_oracle.Interpretation]:
    base = _base(argv)
    real = nvcc_oracle.difference(
        nvcc_oracle.real(real_nvcc, base, workdir), nvcc_oracle.real(real_nvcc, argv, workdir)
    )
    config = nvcc_oracle.CONFIGS[release]
    ours = nvcc_oracle.difference(
        nvcc_oracle.ours(base, workdir, config), nvcc_oracle.ours(argv, workdir, config)
    )
    return real, ours


def _real_nvcc_of(release: str) -> Path:
    """NVIDIA's nvcc of each mimicked release: Debian's 12.4, PyPI's 13.0."""
    if release == "13.0":
        return nvidia_pypi.nvcc_13_0()
    return nvidia_toolkit.required(nvidia_toolkit.real_nvcc)


@pytest.mark.parametrize("release", sorted(nvcc_oracle.CONFIGS))
@pytest.mark.parametrize(("line_id", "argv"), BUILD_SYSTEM_LINES, ids=[i for i, _ in BUILD_SYSTEM_LINES])
def test_build_system_lines_agree_with_real_nvcc(
    workdir: Path, line_id: str, argv: list[str], release: str
) -> None:
    """Each line as NVIDIA's nvcc of the release sees it and as ours mimicking that release does
    (CUDA 13.0 refuses architectures below sm_75, and so does ours in 13.0 mode)."""
    real, ours = _interpretations(_real_nvcc_of(release), workdir, argv, release)
    assert ours.accepted == real.accepted, f"real: {real.message!r}; ours: {ours.message!r}"
    if not real.accepted:
        return
    real_only, ours_only, _why = DIFFERENCES.get(line_id, ({}, {}, ""))
    for part in ("compile", "link"):
        real_words = set(getattr(real, f"{part}_words"))
        our_words = set(getattr(ours, f"{part}_words"))
        assert real_words - our_words == set(real_only.get(part, ())), f"{part}: missing in ours"
        assert our_words - real_words == set(ours_only.get(part, ())), f"{part}: extra in ours"
    assert ours.output == real.output
    assert ours.dependency_file == real.dependency_file


# --- every option real nvcc --help lists ------------------------------------------------

_HELP_LINE = re.compile(r"^--(\S+)(?: (<[^>]*>(?:,\.\.\.)?|\{[^}]*\}|entry,\.\.\.))?\s+(?:\((-\S+)\)|--\S+)")
# A sample value for each kind of argument the help names.
_SAMPLE_VALUES = {
    "<file>": "out.txt", "<file>,...": "opts.rsp", "<library>,...": "m", "<def>,...": "FOO=1",
    "<path>,...": "inc", "<path>": "tools", "<directory>": "inc", "<string>": "x86_64-linux",
    "<level>": "2", "<kind>": "on", "<kind>,...": "inline", "<limit>": "64", "<options>,...": "-Wall",
    "<number>": "2", "<file name>": "time.csv", "<arguments>,...": "a", "<prefix>": "/cygwin/",
    "<target>": "k.o", "<arch>": "sm_75", "<code>,...": "sm_75",
    "<specification>,...": "arch=compute_75,code=sm_75", "entry,...": "k", "<amount>": "32",
    "<error-number>,...": "177",
}  # fmt: skip
_VALUE_OVERRIDES = {"Werror": "reorder", "std": "c++11", "x": "cu", "cudart": "shared", "dopt": "on"}
# Options whose test line is not "-c k.cu": modes, and options that need a link.
_MODE_OPTIONS = {"cuda", "cubin", "fatbin", "ptx", "optix-ir", "preprocess", "generate-dependencies",
                 "generate-nonsystem-dependencies", "compile", "device-c", "device-w", "device-link",
                 "link", "lib", "run", "version", "help", "list-gpu-code", "list-gpu-arch", "dryrun",
                 "verbose"}  # fmt: skip
# Accepted by real nvcc, refused by ours on purpose: AMD GPUs run no PTX, cubin or fatbin.
REFUSED_ON_PURPOSE = {
    "cubin": "AMD GPUs run no cubin", "fatbin": "no NVIDIA fat binaries on AMD GPUs",
    "ptx": "AMD GPUs run no PTX", "optix-ir": "OptiX IR is NVIDIA-only",
}  # fmt: skip
# Accepted by ours, refused by real nvcc here, on purpose (none today).
ACCEPTED_ON_PURPOSE: dict[str, str] = {}
# Interpreted differently on purpose: option -> why.
HELP_DIFFERENCES: dict[str, str] = {
    "std": "ROCm 5.7's HIP and rocThrust headers need C++17: `--std c++03/11/14` compiles CUDA "
    "sources as C++17 (host-only sources keep the standard asked for)",
}


def _help_options(real_nvcc: Path, workdir: Path) -> Iterator[tuple[str, list[str]]]:
    result = nvcc_oracle.run_real(real_nvcc, ["--help"], workdir)
    text = result.stdout or result.stderr
    for line in text.splitlines():
        match = _HELP_LINE.match(line)
        if not match:
            continue
        name, argument, _short = match.groups()
        words = [f"--{name}"]
        if argument:
            if argument.startswith("{"):
                value = _VALUE_OVERRIDES.get(name, argument.strip("{}").split("|")[0])
            else:
                value = _VALUE_OVERRIDES.get(name, _SAMPLE_VALUES[argument])
            words.append(value)
        tail = [SRC] if name in _MODE_OPTIONS else ["-c", SRC]
        if name in ("device-link", "lib", "link"):
            tail = ["k.o"]
        yield name, [*words, *tail]


def test_every_option_of_real_nvcc_help_is_interpreted_alike(real_nvcc: Path, workdir: Path) -> None:
    listed = list(_help_options(real_nvcc, workdir))
    assert len(listed) > 120, "real nvcc --help was not parsed"
    disagreements: dict[str, str] = {}
    for name, argv in listed:
        real, ours = _interpretations(real_nvcc, workdir, argv)
        if name in REFUSED_ON_PURPOSE:
            assert real.accepted and not ours.accepted, name
            continue
        if name in ACCEPTED_ON_PURPOSE:
            assert ours.accepted and not real.accepted, name
            continue
        if real.accepted != ours.accepted:
            disagreements[name] = (
                f"accepted: real {real.accepted} ({real.message}), ours {ours.accepted} ({ours.message})"
            )
        elif real.accepted and set(real.compile_words) != set(ours.compile_words):
            disagreements[name] = f"compile: real {real.compile_words}, ours {ours.compile_words}"
        elif real.accepted and set(real.link_words) != set(ours.link_words):
            disagreements[name] = f"link: real {real.link_words}, ours {ours.link_words}"
    unexplained = {name: why for name, why in disagreements.items() if name not in HELP_DIFFERENCES}
    stale = set(HELP_DIFFERENCES) - set(disagreements)
    explained = len(REFUSED_ON_PURPOSE) + len(ACCEPTED_ON_PURPOSE) + len(HELP_DIFFERENCES)
    print(f"nvcc --help: {len(listed) - explained}/{len(listed)} options interpreted as real nvcc does; "
          f"{explained} differ on purpose")  # fmt: skip
    assert not unexplained, "\n".join(f"{k}: {v}" for k, v in unexplained.items())
    assert not stale, f"listed as different but now agree: {sorted(stale)}"
    assert len(listed) - explained >= 0.95 * len(listed)


def test_identity_and_architecture_lists_match_real_nvcc_of_the_mimicked_release(
    real_nvcc: Path, workdir: Path
) -> None:
    """What CMake, FindCUDA and `-arch=all` read: the version line and the architecture lists."""
    from cudacompat.nvcc import archs, report

    config = nvcc_oracle.CONFIG  # mimics 12.4.131, the oracle's release
    real_version = nvcc_oracle.run_real(real_nvcc, ["--version"], workdir).stdout
    ours_version = report.version_text(config)
    release = re.compile(r"Cuda compilation tools, release ([0-9.]+), V([0-9.]+)")
    assert release.search(ours_version).groups() == release.search(real_version).groups()  # type: ignore[union-attr]
    for flag, ours in (
        ("--list-gpu-arch", archs.list_gpu_arch(12)),
        ("--list-gpu-code", archs.list_gpu_code(12)),
    ):
        assert ours.split() == nvcc_oracle.run_real(real_nvcc, [flag], workdir).stdout.split()
