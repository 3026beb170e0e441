"""Lowering `scheduler { … }`: Kueue's cluster-wide Configuration (fair sharing and its
preemption strategies, feature gates)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests import gates
from kadmit.manifests.codes import KAD157, KAD161
from kadmit.model import SchedulerConfig
from kadmit.source import Span, Spans
from kadmit.syntax.ast import SchedulerStmt
from kadmit.syntax.fields import FIELDS
from kadmit.syntax.values import Fields, bool_of, list_of, map_entries, name_of

_CONFIGURATION = (Subject("Configuration", None, ""),)  # Kueue's Configuration, as identity.about names it

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
    if (a := f.get("feature_gates")) is not None:
        spans["feature_gates"] = a.value.span
        kw["feature_gates"] = feature_gates(a.value, spans, diags)
    return SchedulerConfig(span=s.span, spans=Spans(items=spans), **kw)


def feature_gates(v, spans: dict[str, Span], diags: Diagnostics) -> dict[str, bool]:
    """`feature_gates = { NAME = true|false }`: Kueue's gates as its Configuration's `featureGates` sets
    them (featuregates.resolve). A gate Kueue's manager refuses (unknown, or locked and set to false) is
    refused in its words (KAD157); one set to a value kadmit does not model is warned (KAD161), as the
    Configuration's reader does."""
    written: dict[str, bool] = {}
    at: dict[str, Span] = {}
    for key, val in map_entries(v, "`feature_gates`", diags) or []:
        on = bool_of(val, f"`{key.value}` in `feature_gates`", diags)
        if on is None:
            continue
        if (bad := gates.refusal(key.value, on)) is not None:
            diags.emit(KAD157, gates.refused(bad[0]), key.span, help=bad[1], about=_CONFIGURATION)
            continue
        written[key.value] = on
        at[key.value] = spans[f"feature_gates.{key.value}"] = val.span
    for name in written:
        if (why := gates.unmodelled_warning(name, written)) is not None:
            diags.emit(KAD161, f"`feature_gates.{name}` of the scheduler is not modelled: {why}; kadmit's decision "
                       "may differ from Kueue's", at[name], about=_CONFIGURATION)
    return gates.resolve(written)
