"""Live progress for builds and transfers (rich), with plain lines when not on a terminal.

Everything shown here comes from the engine, a registry or a build's own output: rich
gets it escaped (``markup``: a ``[/x]`` in a log line is text), plain lines get terminal
controls as visible escapes (``safe``)."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

from moatbridge.adapters.console import markup, safe
from moatbridge.adapters.docker_api import StreamEvent
from moatbridge.core.redact import redact_text

_DONE = (
    "Pull complete",
    "Already exists",
    "Pushed",
    "Layer already exists",
    "Mounted from",
    "Download complete",
)


class BuildView:
    """A spinner with the current build step; step lines are echoed when not on a TTY."""

    def __init__(self, title: str, verbose: bool = False, json: bool = False) -> None:
        self.title = title
        self.verbose = verbose
        # With --json, stdout carries only the result: progress goes to stderr as lines.
        self.out = sys.stderr if json else sys.stdout
        self.live = self.out.isatty() and not json
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> BuildView:
        if self.live:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=False
            )
            self._progress.start()
            self._task = self._progress.add_task(markup(self.title), total=None)
        else:
            print(safe(self.title), file=self.out, flush=True)
        return self

    def message(self, text: str) -> None:
        if self.live:
            self._progress.console.print(markup(text))
        else:
            print(safe(text), file=self.out, flush=True)

    def __call__(self, event: StreamEvent) -> None:
        text = redact_text(event.text)  # a build's own output may echo a URL or a token
        if event.kind == "step":
            if self.live:
                self._progress.update(self._task, description=markup(f"{self.title}: {text[:90]}"))
            else:
                print(safe(f"  {text}"), file=self.out, flush=True)
        elif event.kind == "log" and self.verbose:
            self.message(f"    {text}")

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.live:
            self._progress.update(
                self._task, description=markup(f"{self.title}: {'done' if kind is None else 'failed'}")
            )
            self._progress.stop()


class TransferView:
    """One progress bar per layer, as `docker pull` shows them."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.live = sys.stdout.isatty()
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._announced: set[tuple[str, str]] = set()

    def __enter__(self) -> TransferView:
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
            disable=not self.live,
        )  # fmt: skip
        self._progress.start()
        print(safe(self.title), flush=True)
        return self

    def __call__(self, event: StreamEvent) -> None:
        if event.kind != "layer" or event.layer is None:
            if event.kind == "status" and not self.live:
                print(safe(f"  {redact_text(event.text)}"), flush=True)
            return
        layer = event.layer
        if layer not in self._tasks:
            self._tasks[layer] = self._progress.add_task(markup(f"{layer[:12]} {event.text}"), total=None)
        task = self._tasks[layer]
        done = event.text.startswith(_DONE)
        description = markup(f"{layer[:12]} {event.text.split(' ')[0]}")
        if event.total:
            self._progress.update(
                task, total=event.total, completed=event.current or 0, description=description
            )
        elif done:
            total = self._progress.tasks[task].total or 1
            self._progress.update(task, total=total, completed=total, description=description)
        else:
            self._progress.update(task, description=description)
        key = (layer, event.text.split(" ")[0])
        if not self.live and key not in self._announced:
            # Plain logs: one line per layer and phase, not one per progress tick.
            self._announced.add(key)
            print(safe(f"  {layer[:12]}: {event.text}"), flush=True)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()
