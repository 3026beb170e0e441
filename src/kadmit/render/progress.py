"""Progress of long work on a terminal: a rich bar per kind of work on standard error, drawn only when
asked (the CLI asks when stderr is a terminal and the output is for people, never on a pipe or with
JSON), and erased when the work is done."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from kadmit.engine.progress import Report

LABELS = {
    "cycles": "scheduling cycles decided",
    "fixes": "changes decided again to prove fixes",
    "instants": "instants simulated",
    "envelopes": "envelopes searched",
}


@contextmanager
def progress(enabled: bool) -> Iterator["Bars | None"]:
    """A report function drawing on stderr while the block runs, or None (draw nothing)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bars:
        yield Bars(bars)


class Bars:
    """The report function (`engine.progress.Report`) of a drawing `progress`, and a way to write
    output above its bars (`above`) while they are drawn."""

    def __init__(self, bars) -> None:
        self.bars = bars
        self.tasks: dict[str, object] = {}

    def __call__(self, what: str, done: int, total: int | None) -> None:
        task = self.tasks.get(what)
        if task is None:
            task = self.tasks[what] = self.bars.add_task(LABELS.get(what, what), total=total)
        self.bars.update(task, completed=done, total=total)  # type: ignore[arg-type]

    def above(self, write: Callable[[str], None], text: str) -> None:
        """`write(text)` to standard output where the bars are, which are then drawn again below it
        (text written while they are drawn would be drawn over)."""
        self.bars.stop()  # transient: the bars are erased
        try:
            write(text)
            sys.stdout.flush()
        finally:
            self.bars.start()
