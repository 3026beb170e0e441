"""Progress of long engine work, handed to whoever asked for it: the engine prints nothing (the CLI
draws a bar on a terminal, `kadmit.render.progress`).

A report is `report(what, done, total)`: `what` names the work ("cycles": scheduling cycles decided,
"fixes": changes decided again to prove fixes, "instants": instants simulated, "envelopes": envelopes
searched), `done` how much of it is done, `total` how much there is (None: not known in advance)."""

from __future__ import annotations

from typing import Callable

Report = Callable[[str, int, "int | None"], None]

# A stage of an answer, handed over as soon as it is known so that a terminal shows it before the slow
# part: `stage(what, result)` with `what` "standing" (the decision and where the workload stands: the
# first lines of `why`) or "explained" (Kueue's reasons and the blame too; proving fixes comes next).
# `result` is the engine's answer as far as it goes; it is completed later (do not keep it as final).
Stage = Callable[[str, object], None]
