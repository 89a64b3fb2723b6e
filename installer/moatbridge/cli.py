"""Command line: parse, dispatch to ``moatbridge.commands.<verb>``, map errors to exit codes.

Kept import-light: heavy libraries load inside the command that needs them, so
``moatbridge --version`` costs little more than starting Python.
"""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
from typing import TYPE_CHECKING

from moatbridge import __version__
from moatbridge.errors import InputError, MoatbridgeError, UsageError
from moatbridge.parser import MODULES, build_parser, emulate_words

if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_INTERRUPTED = 130
EXIT_CRASH = 70


def _crash_report_text(exc: BaseException, words: Sequence[str]) -> str:
    import traceback

    from moatbridge.core.redact import redact_argv, redact_text

    argv = redact_argv([sys.argv[0] if sys.argv else "moatbridge", *words])
    return redact_text(
        f"moatbridge {__version__} on Python {sys.version}\n"
        f"argv: {argv!r}\n\n" + "".join(traceback.format_exception(exc))
    )


def _write_crash_report(exc: BaseException, words: Sequence[str]) -> str | None:
    """A private (0600) report with secrets redacted, under a name no other crash takes."""
    import secrets
    import time

    from moatbridge.paths import Paths

    try:
        state = Paths.from_environ(os.environ).state
        os.makedirs(state, mode=0o700, exist_ok=True)
        data = _crash_report_text(exc, words).encode("utf-8", "backslashreplace")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for _ in range(16):
            path = os.path.join(state, f"crash-{stamp}-{os.getpid()}-{secrets.token_hex(3)}.log")
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            return path
        return None
    except Exception:  # noqa: BLE001 - best effort (no HOME, no passwd entry ...): the one line still goes out
        return None


def _print_error(message: str, hint: str | None) -> None:
    from moatbridge.core.redact import redact_text
    from moatbridge.core.textsafe import printable

    # Messages may quote a URL or a tool's output: never a credential on the terminal.
    # They quote names and paths from outside too: no terminal controls, and one line.
    sys.stderr.write(f"moatbridge: {printable(redact_text(message), newlines=False)}\n")
    if hint:
        sys.stderr.write(f"hint: {printable(redact_text(hint))}\n")


def _refuse_undecodable(words: Sequence[str]) -> None:
    """Arguments that are not UTF-8 (kept as surrogates) would reach files, YAML and the
    terminal: refused up front. `run -- CMD` too: the engine's API carries text and would
    hand the command U+FFFD in place of each such byte (the shims' runner refuses alike)."""
    from moatbridge.core.textsafe import has_surrogates, printable

    for position, word in enumerate(words, 1):
        if has_surrogates(word):
            raise UsageError(
                f"Argument {position} ({printable(word)}) is not valid UTF-8.",
                "pass names, paths and values in UTF-8 (rename the file, or use another path)",
            )


def _drop_unusable_terminal_size() -> None:
    """rich reads COLUMNS and LINES with isdigit() then int(): '¹²' passes one and crashes
    the other. Values that are not ASCII digits are dropped (the terminal's size is used)."""
    from moatbridge.core.textsafe import parse_uint

    for key in ("COLUMNS", "LINES"):
        value = os.environ.get(key)
        if value is not None and (parse_uint(value) is None or value != value.strip()):
            del os.environ[key]


def _refuse_unusable_home() -> None:
    from moatbridge.core.textsafe import printable
    from moatbridge.paths import home_problem

    problem = home_problem(os.environ)
    if problem is not None:
        raise UsageError(
            f"There is no usable place for moatbridge's files: {printable(problem)}.",
            "set HOME to your home directory's absolute path; point MOATBRIDGE_HOME at a directory with a "
            "UTF-8 path (or unset it)",
        )


def _refuse_missing_working_directory() -> None:
    """A working directory deleted (or made unreachable) under the shell: the pin lookup, the
    project a command mounts or writes into, and every relative path would fail somewhere
    inside the command. Refused once, here, for every command but the first look."""
    from moatbridge.core.textsafe import printable

    try:
        os.getcwd()
    except OSError as exc:
        where = os.environ.get("PWD", "")  # the shell's idea of it: the only name left
        named = f" ({printable(where, newlines=False)})" if os.path.isabs(where) else ""
        raise UsageError(
            f"The working directory{named} is gone or cannot be read ({exc.strerror or exc}).",
            "cd to an existing directory (e.g. cd ~) and run the command again",
        ) from None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:
        # The one call scripts make in loops: answer before building the parser.
        sys.stdout.write(f"moatbridge {__version__}\n")
        return 0
    # Started with stdout or stderr closed (`moatbridge list >&-`), Python has None there: the
    # output goes nowhere, as it would to a closed descriptor, instead of failing to be written.
    sys.stdout = sys.stdout or open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    sys.stderr = sys.stderr or open(os.devnull, "w")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):  # undecodable names print as \xNN, never crash
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    _drop_unusable_terminal_size()
    parser = build_parser()
    try:
        _refuse_undecodable(words)
        args = parser.parse_args(emulate_words(words))
        if args.command not in (None, "status"):  # status says so in a note, and shows the rest
            _refuse_missing_working_directory()
        from moatbridge.adapters import faults

        faults.check_environment(os.environ)
        if args.command not in ("detect", "doctor"):  # read-only: they keep no files
            _refuse_unusable_home()
        if args.command is None:
            # `moatbridge` alone on a terminal: the first look (`--help` lists the commands);
            # scripts that captured the help before still get it.
            if not sys.stdout.isatty():
                parser.print_help()
                return 0
            args = parser.parse_args(["status"])
        action = getattr(args, f"{args.command}_command", None)
        module = MODULES.get(f"{args.command} {action}", MODULES.get(args.command, args.command))
        command = importlib.import_module(f"moatbridge.commands.{module}")
        return int(command.run(args))
    except MoatbridgeError as exc:
        _print_error(exc.message, exc.hint)
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("moatbridge: interrupted\n")
        return EXIT_INTERRUPTED
    except EOFError:  # end of input at a question no prompt helper caught
        _print_error("Input ended (Ctrl-D) before an answer; nothing changed.", "run the command again")
        return UsageError.exit_code
    except BrokenPipeError:
        # Output piped into e.g. `head`: not an error worth a report.
        sys.stderr.close()
        return 0
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):  # not the path's fault: exit 74 as for every write
            from moatbridge.adapters.filesystem import DiskFull

            full = DiskFull(None if exc.filename is None else os.fsdecode(exc.filename))
            _print_error(full.message, full.hint)
            return full.exit_code
        if exc.filename is None:  # not about a path (a socket, a pipe): a crash, reported below
            return _crash(exc, words)
        message, hint = _refused_path(exc)
        _print_error(message, hint)
        return InputError.exit_code
    except Exception as exc:  # noqa: BLE001 - last line of defence: no tracebacks for users
        return _crash(exc, words)


def _crash(exc: Exception, words: Sequence[str]) -> int:
    report = _write_crash_report(exc, words)
    where = f"details in {report}" if report else "no crash report could be written"
    _print_error(f"internal error ({type(exc).__name__}: {exc}).", f"please report it; {where}")
    return EXIT_CRASH


def _refused_path(exc: OSError) -> tuple[str, str]:
    """A path the file system refused, wherever it came from (an argument, MOATBRIDGE_HOME,
    DOCKER_CONFIG, ...): a name longer than NAME_MAX, a symlink loop, a file where a folder must
    be, no permission, a folder that takes no files (/proc). Every path moatbridge opens is the
    user's or under a folder the user named, so this is bad input, not a crash."""
    path = os.fsdecode(exc.filename)
    reason = exc.strerror or type(exc).__name__
    if exc.errno == errno.ENAMETOOLONG:
        # A file moatbridge writes is first a temp file beside it: ".NAME.moatbridge-tmp-PID-XXXXXXXX".
        hint = "use a shorter path (each name in it at most 255 bytes, about 35 fewer for a file written)"
    else:
        hint = "check that path and the folders above it, or choose another"
    return f"The file system refused {path}: {reason}.", hint
