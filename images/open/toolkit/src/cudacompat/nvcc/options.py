"""nvcc's command-line grammar, parsed into an ordered list of canonical options.

The rules follow NVIDIA's nvcc documentation (section "Command Option Types and Notation"):
every option has a long and usually a short spelling, either may be written with one or two
dashes, values follow after `=` or as the next argument, list options take comma-separated
values and may repeat, and the gcc-style -I/-L/-l/-D/-U (and -O) also take attached values.
Pure: no I/O, so the grammar is unit-tested on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from .option_table import BY_NAME, CHOICES, OptionSpec


class NvccUsageError(Exception):
    """A command line nvcc itself would reject; the message mimics nvcc's."""


# gcc-style options whose value may be attached: -Idir, -lfoo, -DX=1, -O3.
_ATTACHED = (("isystem", "system-include"), ("I", "include-path"), ("L", "library-path"),
             ("l", "library"), ("D", "define-macro"), ("U", "undefine-macro"), ("O", "optimize"))  # fmt: skip
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


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
    choices = CHOICES.get(spec.name)
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
        spec = BY_NAME.get(name)
        if spec is None:
            attached = _attached(body)
            if attached is not None:
                canonical, value = attached
                spec = BY_NAME[canonical]
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
