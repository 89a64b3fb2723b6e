"""Terminal output: JSON for machines, rich tables for people, and untrusted text made safe.

Anything read from outside (sysfs, bundles, state, the engine, the environment, the
command line) is shown through ``safe`` (plain writes) or ``markup`` (rich strings):
terminal controls become visible escapes and, for rich, ``[...]`` is not markup.
JSON needs neither: ``json.dumps`` escapes every control character.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from moatbridge.core.textsafe import printable
from moatbridge.errors import MoatbridgeError

if TYPE_CHECKING:
    from rich.console import Console


class InputEnded(MoatbridgeError):
    """Ctrl-D (end of input) at a question: nothing was decided, nothing changed."""

    exit_code = 2


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def stdout_console() -> Console:
    from rich.console import Console  # heavy: only for human output

    return Console(highlight=False, soft_wrap=False)


def safe(value: object, newlines: bool = True) -> str:
    """``str(value)`` with terminal controls shown as ``\\xNN`` (for print and plain writes)."""
    return printable(str(value), newlines)


def markup(value: object) -> str:
    """``safe(value)`` for a rich markup string: ``[bold]`` in a GPU name is text, not style."""
    from rich.markup import escape

    return escape(printable(str(value)))


def ask_line(question: str) -> str:
    """One line typed at the terminal; Ctrl-D (end of input) cancels with a clear error."""
    try:
        return input(question)
    except EOFError:
        sys.stdout.write("\n")
        raise input_ended() from None


def input_ended() -> InputEnded:
    return InputEnded("Input ended (Ctrl-D) before an answer; nothing changed.", "run the command again")


def ask_prompt(question: Any) -> Any:
    """``question.unsafe_ask()`` for a questionary question: Ctrl-C raises KeyboardInterrupt
    (exit 130); Ctrl-D, or a closed input, cancels with ``InputEnded`` (exit 2)."""
    from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

    # questionary's lists and checkboxes ignore Ctrl-D; make it end the input everywhere.
    end = KeyBindings()

    @end.add("c-d", eager=True)
    def _end(event: Any) -> None:
        event.app.exit(exception=EOFError, style="class:aborting")

    application = question.application
    application.key_bindings = merge_key_bindings([application.key_bindings or KeyBindings(), end])
    try:
        return question.unsafe_ask()
    except EOFError:
        raise input_ended() from None
