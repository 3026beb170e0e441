"""Progress of long engine work, handed to whoever asked for it: the engine prints nothing (the CLI
draws a bar on a terminal, `kadmit.render.progress`).

A report is `report(what, done, total)`: `what` names the work ("cycles": scheduling cycles decided,
"fixes": changes decided again to prove fixes, "instants": instants simulated, "envelopes": envelopes
searched), `done` how much of it is done, `total` how much there is (None: not known in advance)."""

from __future__ import annotations

from typing import Callable

Report = Callable[[str, int, "int | None"], None]
