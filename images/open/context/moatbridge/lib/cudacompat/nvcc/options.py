"""nvcc's command-line grammar, parsed into an ordered list of canonical options.

The rules follow NVIDIA's nvcc documentation (section "Command Option Types and Notation"):
every option has a long and usually a short spelling, either may be written with one or two
dashes, values follow after `=` or as the next argument, list options take comma-separated
values and may repeat, and the gcc-style -I/-L/-l/-D/-U (and -O) also take attached values.
Pure: no I/O, so the grammar is unit-tested on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

Kind = Literal["flag", "value", "list", "bool"]


class NvccUsageError(Exception):
    """A command line nvcc itself would reject; the message mimics nvcc's."""


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
_BY_NAME: dict[str, OptionSpec] = {}
for _spec in SPECS:
    _BY_NAME[_spec.name] = _spec
    if _spec.short:
        _BY_NAME.setdefault(_spec.short, _spec)

# gcc-style options whose value may be attached: -Idir, -lfoo, -DX=1, -O3.
_ATTACHED = (("isystem", "system-include"), ("I", "include-path"), ("L", "library-path"),
             ("l", "library"), ("D", "define-macro"), ("U", "undefine-macro"), ("O", "optimize"))  # fmt: skip
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
# Values some options accept (nvcc rejects the rest with "Value ... is not defined").
_CHOICES = {
    "machine": ("64",),
    "cudadevrt": ("none", "static"),
    "host-linker-script": ("use-lcs", "gen-lcs"),
    "Werror": ("all-warnings", "cross-execution-space-call", "default-stream-launch",
               "deprecated-declarations", "ext-lambda-captures-this", "missing-launch-bounds",
               "reorder"),
}  # fmt: skip


class CommandLine(NamedTuple):
    """The parsed command line: options in order (canonical name, value) and the inputs."""

    options: tuple[tuple[str, str], ...] = ()
    inputs: tuple[str, ...] = ()
    forwarded: tuple[str, ...] = ()  # unknown options for the host compiler
    ignored: tuple[str, ...] = ()  # accepted options with no AMD meaning
    forwarded_to_linker: tuple[str, ...] = ()  # unknown options for the host linker

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for key, value in self.options if key in names]

    def last(self, *names: str) -> str | None:
        found = self.values(*names)
        return found[-1] if found else None

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self.last(name)
        return default if value is None else value == "true"


def split_list(value: str) -> list[str]:
    """nvcc's list syntax: pieces at commas; `\\c` is c (so `\\,` is a comma inside a piece);
    a comma between double quotes does not split, and the quotes stay in the piece."""
    if "\\" not in value and '"' not in value:
        return [part for part in value.split(",") if part != ""]
    pieces: list[str] = []
    current: list[str] = []
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        index += 1
        if char == "\\" and index < len(value):
            current.append(value[index])
            index += 1
        elif char == '"':
            quoted = not quoted
            current.append(char)
        elif char == "," and not quoted:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    pieces.append("".join(current))
    return [piece for piece in pieces if piece != ""]


_SHELL_SPECIAL = frozenset("'\"\\ \t\n")


def shell_words(text: str) -> list[str]:
    """POSIX /bin/sh word splitting and quote removal (no expansions), as real nvcc's host
    command line gets from the shell it runs it through."""
    if not any(char in _SHELL_SPECIAL for char in text):
        return [text] if text else []
    words: list[str] = []
    current: list[str] = []
    in_word = False
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char in " \t\n":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            index += 1
            continue
        in_word = True
        if char == "\\":
            if index + 1 < length:
                if text[index + 1] != "\n":
                    current.append(text[index + 1])
                index += 2
            else:
                current.append(char)
                index += 1
        elif char == "'":
            end = text.find("'", index + 1)
            if end < 0:
                raise NvccUsageError(f"Unterminated quote in host compiler option '{text}'")
            current.append(text[index + 1 : end])
            index = end + 1
        elif char == '"':
            index += 1
            while index < length and text[index] != '"':
                if text[index] == "\\" and index + 1 < length and text[index + 1] in '$`"\\\n':
                    current.append(text[index + 1])
                    index += 2
                else:
                    current.append(text[index])
                    index += 1
            if index >= length:
                raise NvccUsageError(f"Unterminated quote in host compiler option '{text}'")
            index += 1
        else:
            current.append(char)
            index += 1
    if in_word:
        words.append("".join(current))
    return words


def _list_values(spec: OptionSpec, value: str) -> list[str]:
    if spec.split == "none":
        return [value]
    if spec.split == "host":
        return shell_words(" ".join(split_list(value)))
    if spec.split == "linker":
        # nvcc writes `-Xlinker piece` for each comma piece (no backslash escapes here) into
        # the shell command line, so a piece with a space becomes two host-linker arguments.
        pieces = [part for part in value.split(",") if part != ""]
        return shell_words(" ".join(f"-Xlinker {piece}" for piece in pieces))
    return split_list(value)


def _normalise_bool(name: str, value: str) -> str:
    lowered = value.lower()
    if lowered in _TRUE:
        return "true"
    if lowered in _FALSE:
        return "false"
    raise NvccUsageError(f"Value '{value}' is not defined for option '{name}'")


def _check_choice(spec: OptionSpec, name: str, value: str) -> None:
    choices = _CHOICES.get(spec.name)
    if choices is not None and value not in choices:
        raise NvccUsageError(f"Value '{value}' is not defined for option '{name}'")


def parse(argv: Sequence[str]) -> CommandLine:
    """Parse nvcc arguments (after NVCC_PREPEND/APPEND_FLAGS and options files are expanded)."""
    options: list[tuple[str, str]] = []
    inputs: list[str] = []
    forwarded: list[str] = []
    to_linker: list[str] = []
    ignored: list[str] = []
    args = list(argv)
    index = 0
    present = {arg.lstrip("-") for arg in args if arg.startswith("-")}
    forward_all = "forward-unknown-opts" in present
    forward_compiler = forward_all or "forward-unknown-to-host-compiler" in present
    forward_linker = forward_all or "forward-unknown-to-host-linker" in present
    while index < len(args):
        arg = args[index]
        index += 1
        if not arg.startswith("-") or arg == "-":
            inputs.append(arg)
            continue
        body = arg.lstrip("-")
        name, has_inline, inline = body.partition("=")
        spec = _BY_NAME.get(name)
        if spec is None:
            attached = _attached(body)
            if attached is not None:
                canonical, value = attached
                spec = _BY_NAME[canonical]
                options.extend(
                    (canonical, v) for v in (_list_values(spec, value) if spec.kind == "list" else [value])
                )
                continue
            if forward_compiler or forward_linker:
                # nvcc hands an unknown option to the host compiler (compiles and links) and/or,
                # as `-Xlinker option`, to the host linker.
                if forward_compiler:
                    forwarded.append(arg)
                if forward_linker:
                    to_linker.append(arg)
                continue
            raise NvccUsageError(f"Unknown option '{arg}'")
        if spec.kind == "flag":
            if has_inline:
                raise NvccUsageError(f"Option '{name}' does not take a value")
            options.append((spec.name, ""))
            if spec.ignored:
                ignored.append(arg)
            continue
        if has_inline:
            value = inline
        else:
            if index >= len(args):
                raise NvccUsageError(f"Option '{name}' requires a value")
            value = args[index]
            index += 1
        if spec.kind == "bool":
            options.append((spec.name, _normalise_bool(name, value)))
        elif spec.kind == "list":
            for part in _list_values(spec, value):
                _check_choice(spec, name, part)
                options.append((spec.name, part))
        else:
            _check_choice(spec, name, value)
            options.append((spec.name, value))
        if spec.ignored:
            ignored.append(arg if has_inline else f"{arg} {value}")
    return CommandLine(tuple(options), tuple(inputs), tuple(forwarded), tuple(ignored), tuple(to_linker))


def _attached(body: str) -> tuple[str, str] | None:
    for prefix, canonical in _ATTACHED:
        if body.startswith(prefix) and len(body) > len(prefix):
            return canonical, body[len(prefix) :]
    return None


def expand_options_files(argv: Sequence[str], reader: Callable[[str], str]) -> list[str]:
    """Replace `--options-file F` / `-optf F` by F's arguments (shell-style quoting), recursively."""
    result: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        body = arg.lstrip("-")
        name, has_inline, inline = body.partition("=")
        if arg.startswith("-") and name in ("options-file", "optf"):
            if has_inline:
                files = split_list(inline)
            elif index < len(argv):
                files = split_list(argv[index])
                index += 1
            else:
                raise NvccUsageError(f"Option '{name}' requires a value")
            import shlex  # only here: it pulls in `re`

            for path in files:
                result.extend(expand_options_files(shlex.split(reader(path)), reader))
            continue
        result.append(arg)
    return result


def environment_flags(environ: dict[str, str], key: str) -> list[str]:
    """NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS, split like a shell would."""
    value = environ.get(key, "")
    if not value.strip():
        return []
    import shlex  # only when used: it pulls in `re`

    return shlex.split(value)
