"""Lowering `scheduler { … }`: Kueue's cluster-wide Configuration (fair sharing and its
preemption strategies)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.model import SchedulerConfig
from kadmit.source import Span, Spans
from kadmit.syntax.ast import SchedulerStmt
from kadmit.syntax.fields import FIELDS
from kadmit.syntax.values import Fields, bool_of, list_of, name_of

# Written form -> Kueue's name; Kueue's own spelling is accepted as well (as for every enum).
STRATEGIES = {"less_than_or_equal_to_final_share": "LessThanOrEqualToFinalShare",
              "less_than_initial_share": "LessThanInitialShare"}


def strategy(name: str) -> str:
    """Kueue's name of a strategy; an unknown name stays as written, for the validator (KAD292)
    to report the same way whichever front end it came from."""
    return STRATEGIES.get(name, name)


def scheduler(s: SchedulerStmt, diags: Diagnostics) -> SchedulerConfig:
    f = Fields("`scheduler`", s.members, *FIELDS["scheduler"], diags)
    spans: dict[str, Span] = {}
    kw: dict = {}
    if (a := f.get("fair_sharing")) is not None:
        spans["fair_sharing"] = a.value.span
        if (on := bool_of(a.value, "`fair_sharing`", diags)) is not None:
            kw["fair_sharing"] = on
    if (a := f.get("preemption_strategies")) is not None:
        spans["preemption_strategies"] = a.value.span
        names = []
        for v in list_of(a.value, "`preemption_strategies`", diags) or []:
            if (name := name_of(v, "a preemption strategy", diags)) is not None:
                spans[f"preemption_strategies.{len(names)}"] = v.span
                names.append(strategy(name))
        kw["preemption_strategies"] = tuple(names)
    return SchedulerConfig(span=s.span, spans=Spans(items=spans), **kw)
