"""Progress of long work on a terminal: a rich bar per kind of work on standard error, drawn only when
asked (the CLI asks when stderr is a terminal and the output is for people, never on a pipe or with
JSON), and erased when the work is done."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from kadmit.engine.progress import Report

LABELS = {
    "cycles": "scheduling cycles decided",
    "fixes": "changes decided again to prove fixes",
    "instants": "instants simulated",
    "envelopes": "envelopes searched",
}


@contextmanager
def progress(enabled: bool) -> Iterator[Report | None]:
    """A report function drawing on stderr while the block runs, or None (draw nothing)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bars:
        tasks: dict[str, object] = {}

        def report(what: str, done: int, total: int | None) -> None:
            task = tasks.get(what)
            if task is None:
                task = tasks[what] = bars.add_task(LABELS.get(what, what), total=total)
            bars.update(task, completed=done, total=total)  # type: ignore[arg-type]
        yield report
