"""nvcc's options, as data: every option of NVIDIA nvcc 12.4's `--help` and those CUDA 12.5-13.0
added, each with its long and short spelling, its kind, whether it has any meaning on AMD
GPUs, and how a list value splits. Pure."""

from __future__ import annotations

from typing import Literal, NamedTuple

Kind = Literal["flag", "value", "list", "bool"]


class OptionSpec(NamedTuple):
    name: str  # canonical (nvcc's long spelling, without dashes)
    short: str | None
    kind: Kind
    ignored: bool = False  # accepted for compatibility; no meaning on AMD GPUs
    # How a list option's value is split: "nvcc" (commas, `\\,` escapes, double quotes kept),
    # "none" (one value), "host" (nvcc's split, then /bin/sh word splitting, as the host
    # compiler's command line is run through the shell), "linker" (each comma piece becomes
    # `-Xlinker piece`, then the shell's word splitting).
    split: str = "nvcc"


def _specs() -> tuple[OptionSpec, ...]:
    """Every option of NVIDIA's nvcc 12.4 `--help` (tests compare this table with it), and
    those CUDA 12.5-13.0 added."""

    def flag(name: str, short: str | None = None, *, ignored: bool = False) -> OptionSpec:
        return OptionSpec(name, short, "flag", ignored)

    def value(name: str, short: str | None = None, *, ignored: bool = False) -> OptionSpec:
        return OptionSpec(name, short, "value", ignored)

    def listed(
        name: str, short: str | None = None, *, ignored: bool = False, split: str = "nvcc"
    ) -> OptionSpec:
        return OptionSpec(name, short, "list", ignored, split)

    def boolean(name: str, short: str | None = None, *, ignored: bool = False) -> OptionSpec:
        return OptionSpec(name, short, "bool", ignored)

    return (
        # what to do
        flag("cuda", "cuda"),
        flag("compile", "c"),
        flag("device-c", "dc"),
        flag("device-w", "dw"),
        flag("device-link", "dlink"),
        flag("lib", "lib"),
        flag("link", "link"),
        flag("preprocess", "E"),
        flag("generate-dependencies", "M"),
        flag("generate-nonsystem-dependencies", "MM"),
        flag("generate-dependencies-with-compile", "MD"),
        flag("generate-nonsystem-dependencies-with-compile", "MMD"),
        flag("generate-dependency-targets", "MP"),
        value("dependency-output", "MF"),
        value("dependency-target-name", "MT"),
        flag("run", "run"),
        listed("run-args", "run-args"),
        flag("ptx", "ptx"),
        flag("cubin", "cubin"),
        flag("fatbin", "fatbin"),
        flag("optix-ir", "optix-ir"),
        flag("fdevice-syntax-only", "fdevice-syntax-only"),
        flag("version", "V"),
        flag("verbose", "v"),
        flag("dryrun", "dryrun"),
        flag("list-gpu-arch", "arch-ls"),
        flag("list-gpu-code", "code-ls"),
        flag("help", "h"),
        # files and paths
        value("output-file", "o"),
        value("output-directory", "odir"),
        flag("objdir-as-tempdir", "objtemp", ignored=True),
        value("x", "x"),
        listed("options-file", "optf"),
        listed("include-path", "I"),
        listed("system-include", "isystem"),
        listed("pre-include", "include"),
        listed("library-path", "L"),
        listed("library", "l"),
        listed("define-macro", "D"),
        listed("undefine-macro", "U"),
        value("compiler-bindir", "ccbin"),
        flag("allow-unsupported-compiler", "allow-unsupported-compiler"),
        value("archiver-binary", "arbin"),
        value("cudart", "cudart"),
        value("cudadevrt", "cudadevrt"),
        value("libdevice-directory", "ldir", ignored=True),
        value("target-directory", "target-dir", ignored=True),
        flag("use-local-env", "use-local-env", ignored=True),
        value("std", "std"),
        flag("shared", "shared"),
        flag("keep", "keep"),
        value("keep-dir", "keep-dir"),
        flag("save-temps", "save-temps"),
        flag("clean-targets", "clean"),
        value("time", "time", ignored=True),
        value("input-drive-prefix", "idp", ignored=True),
        value("dependency-drive-prefix", "ddp", ignored=True),
        value("drive-prefix", "dp", ignored=True),
        # GPU code
        listed("gpu-architecture", "arch"),
        listed("gpu-code", "code"),
        listed("generate-code", "gencode", split="none"),
        boolean("relocatable-device-code", "rdc"),
        flag("extensible-whole-program", "ewp"),
        flag("no-device-link", "nodlink"),
        flag("device-debug", "G"),
        flag("debug", "g"),
        flag("profile", "pg"),
        flag("generate-line-info", "lineinfo"),
        value("optimize", "O"),
        value("dopt", "dopt"),
        listed("optimization-info", "opt-info", ignored=True),
        flag("use_fast_math", "use_fast_math"),
        boolean("ftz", "ftz"),
        boolean("prec-div", "prec-div"),
        boolean("prec-sqrt", "prec-sqrt"),
        boolean("fmad", "fmad"),
        flag("expt-relaxed-constexpr", "expt-relaxed-constexpr"),
        flag("extended-lambda", "extended-lambda"),
        flag("expt-extended-lambda", "expt-extended-lambda"),
        value("default-stream", "default-stream"),
        flag("resource-usage", "res-usage"),
        value("ftemplate-backtrace-limit", "ftemplate-backtrace-limit"),
        value("ftemplate-depth", "ftemplate-depth"),
        flag("no-exceptions", "noeh"),
        # passing options on
        listed("compiler-options", "Xcompiler", split="host"),
        listed("linker-options", "Xlinker", split="linker"),
        listed("archive-options", "Xarchive"),
        flag("forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler"),
        flag("forward-unknown-to-host-linker", "forward-unknown-to-host-linker"),
        flag("forward-unknown-opts", "forward-unknown-opts"),
        listed("ptxas-options", "Xptxas", ignored=True),
        listed("nvlink-options", "Xnvlink", ignored=True),
        listed("fatbin-options", "Xfatbin", ignored=True),
        listed("cudafe-options", "Xcudafe", ignored=True),
        # warnings
        listed("Werror", "Werror"),
        flag("disable-warnings", "w"),
        flag("Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", ignored=True),
        flag("Wno-deprecated-declarations", "Wno-deprecated-declarations"),
        flag("Wreorder", "Wreorder"),
        flag("Wdefault-stream-launch", "Wdefault-stream-launch", ignored=True),
        flag("Wmissing-launch-bounds", "Wmissing-launch-bounds", ignored=True),
        flag("Wext-lambda-captures-this", "Wext-lambda-captures-this", ignored=True),
        listed("diag-suppress", "diag-suppress", ignored=True),
        listed("diag-warn", "diag-warn", ignored=True),
        listed("diag-error", "diag-error", ignored=True),
        flag("display-error-number", "err-no", ignored=True),
        flag("no-display-error-number", "no-err-no", ignored=True),
        boolean("brief-diagnostics", "brief-diag", ignored=True),
        # NVIDIA-toolchain specifics with no AMD meaning
        value("machine", "m"),
        flag("m64", "m64", ignored=True),
        value("threads", "t", ignored=True),
        value("split-compile", "split-compile", ignored=True),
        value("split-compile-extended", "split-compile-extended", ignored=True),
        value("maxrregcount", "maxrregcount", ignored=True),
        flag("source-in-ptx", "src-in-ptx", ignored=True),
        flag("restrict", "restrict", ignored=True),
        flag("dlink-time-opt", "dlto", ignored=True),
        flag("lto", "lto", ignored=True),
        flag("gen-opt-lto", "gen-opt-lto", ignored=True),
        flag("no-host-device-initializer-list", "nohdinitlist", ignored=True),
        flag("no-host-device-move-forward", "nohdmoveforward", ignored=True),
        flag("expt-relaxed-constexpr-warn", "expt-relaxed-constexpr-warn", ignored=True),
        flag("static-global-template-stub", "static-global-template-stub", ignored=True),
        flag("dont-use-profile", "noprof", ignored=True),
        flag("keep-device-functions", "keep-device-functions", ignored=True),
        flag("extra-device-vectorization", "extra-device-vectorization", ignored=True),
        flag("no-align-double", None, ignored=True),
        flag("no-compress", "no-compress", ignored=True),
        flag("qpp-config", "qpp-config", ignored=True),
        flag("compile-as-tools-patch", "astoolspatch", ignored=True),
        value("host-linker-script", "hls", ignored=True),
        flag("augment-host-linker-script", "aug-hls", ignored=True),
        flag("host-relocatable-link", "r", ignored=True),
        value("jump-table-density", "jtd", ignored=True),
        listed("entries", "e", ignored=True),
        value("nvlink-options-file", "nvlink-optf", ignored=True),
        # newer than 12.4 (CUDA 12.5-13.0): accepted so newer build recipes work
        flag("ltoir", "ltoir"),
        flag("relocatable-ptx", "reloc-ptx"),
        flag("force-cl-env-setup", "force-cl-env-setup", ignored=True),
        value("Ofast-compile", "Ofc", ignored=True),
        boolean("device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", ignored=True),
        value("fdevice-time-trace", "fdevice-time-trace", ignored=True),
        boolean("device-stack-protector", "device-stack-protector", ignored=True),
        value("frandom-seed", "frandom-seed"),
        value("sanitize", "sanitize", ignored=True),
        flag("jobserver", "jobserver", ignored=True),
    )


SPECS: tuple[OptionSpec, ...] = _specs()
BY_NAME: dict[str, OptionSpec] = {}
for _spec in SPECS:
    BY_NAME[_spec.name] = _spec
    if _spec.short:
        BY_NAME.setdefault(_spec.short, _spec)


# Values some options accept (nvcc rejects the rest with "Value ... is not defined").
CHOICES = {
    "machine": ("64",),
    "cudadevrt": ("none", "static"),
    "host-linker-script": ("use-lcs", "gen-lcs"),
    "Werror": ("all-warnings", "cross-execution-space-call", "default-stream-launch",
               "deprecated-declarations", "ext-lambda-captures-this", "missing-launch-bounds",
               "reorder"),
}  # fmt: skip
