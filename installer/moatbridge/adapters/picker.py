"""A multiple-choice picker you search by typing, for the terminal (prompt_toolkit).

Why not questionary's checkbox with ``use_search_filter``: there Space always toggles, so a
product name with a space in it ("RX 7900") cannot be typed, and a filter matching nothing
shows every line again. Here:

- typing filters (the caller's ``search`` decides what matches, so its tests are the
  prompt's behaviour); Space is part of the filter once one is being typed, and toggles
  the highlighted line otherwise; Tab toggles the highlighted line at any time;
- Enter answers with the toggled lines, or with the highlighted line when none is toggled,
  and the last line on screen always says which answer Enter gives;
- a filter matching nothing says so; Backspace edits it, Ctrl-U clears it;
- Ctrl-C raises KeyboardInterrupt (exit 130), Ctrl-D ends the input (``InputEnded``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from moatbridge.adapters.console import input_ended, safe


@dataclass(frozen=True)
class PickItem:
    value: str
    label: str  # the line shown (and what the caller's search looks at)
    description: str = ""  # shown under the list for the highlighted line
    checked: bool = False  # toggled from the start


@dataclass
class PickerState:
    """The picker's state; the key bindings change it, ``lines`` draws it. No I/O."""

    items: tuple[PickItem, ...]
    search: Callable[[str], Sequence[str]]  # filter text -> the values it leaves, in any order
    query: str = ""
    pointer: int = 0  # index into visible()
    toggled: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.toggled = [i.value for i in self.items if i.checked]
        values = [i.value for i in self.items]
        self.pointer = values.index(self.toggled[0]) if self.toggled else 0

    def visible(self) -> list[PickItem]:
        if not self.query.strip():
            return list(self.items)
        left = set(self.search(self.query))
        return [i for i in self.items if i.value in left]

    def pointed(self) -> PickItem | None:
        shown = self.visible()
        return shown[self.pointer] if shown else None

    def answer(self) -> list[str]:
        """What Enter gives now: the toggled values in list order, else the highlighted one."""
        if self.toggled:
            return [i.value for i in self.items if i.value in self.toggled]
        pointed = self.pointed()
        return [pointed.value] if pointed else []

    def type(self, text: str) -> None:
        before = self.pointed()
        self.query += text
        self._keep_pointer(before)

    def erase(self, everything: bool = False) -> None:
        before = self.pointed()
        self.query = "" if everything else self.query[:-1]
        self._keep_pointer(before)

    def space(self) -> None:
        if self.query:
            self.type(" ")
        else:
            self.toggle()

    def toggle(self) -> None:
        pointed = self.pointed()
        if pointed is None:
            return
        if pointed.value in self.toggled:
            self.toggled.remove(pointed.value)
        else:
            self.toggled.append(pointed.value)

    def move(self, step: int) -> None:
        """One line wraps around the ends; a page stops at them."""
        count = len(self.visible())
        if not count:
            return
        if abs(step) == 1:
            self.pointer = (self.pointer + step) % count
        else:
            self.pointer = min(max(self.pointer + step, 0), count - 1)

    def _keep_pointer(self, before: PickItem | None) -> None:
        # The highlighted line stays highlighted while it still matches; else the first match.
        shown = self.visible()
        self.pointer = shown.index(before) if before in shown else 0


def lines(state: PickerState, title: str, instruction: str, rows: int) -> list[tuple[str, str]]:
    """The picker as styled text for a terminal ``rows`` high. What always shows: the question,
    the filter being typed, the highlighted line and the answer Enter gives; the list
    scrolls to fit, and the highlighted line's description and the "more" lines come only
    where there is room."""
    shown = state.visible()
    pointed = state.pointed()
    room = max(1, rows - 1)  # the last row stays free for the cursor
    fixed = 2 + bool(state.query)  # the question, the filter being typed, the answer
    describe = bool(pointed and pointed.description) and room - fixed - 1 >= 3
    space = max(1, room - fixed - describe)
    more = len(shown) > space and space >= 3  # room for "... N more above/below"
    height = min(len(shown), space - 2 if more else space)
    first = min(max(0, state.pointer - height // 2), len(shown) - height)

    out: list[tuple[str, str]] = [("class:mark", "? "), ("class:title", title + " ")]
    out.append(("class:hint", instruction + "\n"))
    if state.query:
        out.append(("class:hint", "  filter: "))
        out.append(("class:query", safe(state.query, newlines=False) + "\n"))
    if not shown:
        out.append(("class:hint", f"  no line matches {safe(state.query, newlines=False)!r}: "
                                  "Backspace edits the filter, Ctrl-U clears it\n"))  # fmt: skip
    if more:
        out.append(("class:hint", f"  ... {first} more above\n"))
    for index in range(first, first + height):
        item = shown[index]
        here = index == state.pointer
        box = "●" if item.value in state.toggled else "○"
        style = "class:pointed" if here else ("class:toggled" if item.value in state.toggled else "")
        out.append((style, f"{'»' if here else ' '} {box} {safe(item.label, newlines=False)}\n"))
    if more:
        out.append(("class:hint", f"  ... {len(shown) - first - height} more below\n"))
    if describe and pointed:
        out.append(("class:hint", f"  {safe(pointed.description, newlines=False)}\n"))
    answer = state.answer()
    how = "the toggled lines" if state.toggled else "the highlighted line"
    out.append(("class:answer", f"  Enter chooses: {', '.join(answer) or 'nothing yet'}"
                                + (f" ({how})" if answer else "")))  # fmt: skip
    return out


def pick_many(title: str, items: Sequence[PickItem], search: Callable[[str], Sequence[str]],
              instruction: str = "") -> list[str]:  # fmt: skip
    """Ask on the terminal; the chosen values, in the order of ``items`` (none to choose
    from: nothing asked, nothing chosen)."""
    if not items:
        return []
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
    from prompt_toolkit.styles import Style

    state = PickerState(tuple(items), search)
    done: list[list[str]] = []
    keys = KeyBindings()

    def draw() -> Any:
        if done:
            return [("class:mark", "? "), ("class:title", title + " "), ("class:query", ", ".join(done[0]))]
        rows = application.output.get_size().rows
        return lines(state, title, instruction, rows)

    @keys.add(Keys.Any)
    def _typed(event: Any) -> None:
        text = "".join(k.data for k in event.key_sequence)
        if text.isprintable() and not text.isspace():
            state.type(text)

    @keys.add(Keys.BracketedPaste)
    def _pasted(event: Any) -> None:
        # A pasted product name: its line breaks become spaces, terminal controls are dropped.
        state.type("".join(c for c in " ".join(event.data.split()) if c.isprintable()))

    keys.add(" ")(lambda event: state.space())
    keys.add(Keys.Tab)(lambda event: state.toggle())
    keys.add(Keys.Backspace)(lambda event: state.erase())
    keys.add(Keys.ControlU)(lambda event: state.erase(everything=True))
    for key, step in ((Keys.Up, -1), (Keys.ControlP, -1), (Keys.Down, 1), (Keys.ControlN, 1),
                      (Keys.PageUp, -10), (Keys.PageDown, 10)):  # fmt: skip
        keys.add(key)(lambda event, step=step: state.move(step))

    @keys.add(Keys.Enter)
    def _enter(event: Any) -> None:
        answer = state.answer()
        if answer:
            done.append(answer)
            event.app.exit(result=answer)

    @keys.add(Keys.ControlC)
    def _interrupt(event: Any) -> None:
        event.app.exit(exception=KeyboardInterrupt)

    @keys.add(Keys.ControlD)
    def _end(event: Any) -> None:
        event.app.exit(exception=EOFError)

    style = Style.from_dict({
        "mark": "fg:ansigreen bold", "title": "bold", "hint": "fg:ansibrightblack",
        "query": "fg:ansicyan", "pointed": "fg:ansicyan bold", "toggled": "fg:ansigreen",
        "answer": "fg:ansiyellow",
    })  # fmt: skip
    body = Window(FormattedTextControl(draw, show_cursor=False), wrap_lines=False)
    application: Application[list[str]] = Application(
        layout=Layout(HSplit([body])), key_bindings=keys, style=style, full_screen=False
    )
    try:
        return list(application.run())
    except EOFError:
        raise input_ended() from None
