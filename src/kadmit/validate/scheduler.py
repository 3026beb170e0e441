"""The scheduler configuration (Kueue's Configuration): given once, with fair-sharing preemption
strategies Kueue knows, in a list it accepts, and only where fair sharing is on."""

from __future__ import annotations

import re

from kadmit.diagnostics import Diagnostics, Label, did_you_mean
from kadmit.identity import about
from kadmit.model import FAIR_SHARING_STRATEGIES, Model, SchedulerConfig
from kadmit.validate.codes import (DUPLICATE_SCHEDULER, FAIR_SHARING_WITHOUT_COHORT, STRATEGIES_WITHOUT_FAIR_SHARING,
                                   STRATEGY_ORDER, UNKNOWN_STRATEGY)

# The lists Kueue's configuration validation accepts (order matters: the preemptor tries them in turn).
ACCEPTED = ((FAIR_SHARING_STRATEGIES[0],), (FAIR_SHARING_STRATEGIES[1],), FAIR_SHARING_STRATEGIES)


def snake(name: str) -> str:
    """`LessThanInitialShare` -> `less_than_initial_share`, the `.kad` spelling of Kueue's enums."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _known_names(written: str) -> list[str]:
    """The known strategies in the spelling `written` seems to use: `.kad` names are lower case."""
    return list(FAIR_SHARING_STRATEGIES) if written != written.lower() else [
        snake(s) for s in FAIR_SHARING_STRATEGIES]


def check_scheduler(model: Model, diags: Diagnostics) -> None:
    configs = model.scheduler_configs
    for extra in configs[1:]:
        first = configs[0]
        diags.emit(DUPLICATE_SCHEDULER, "the scheduler configuration is given more than once; kadmit "
                   "uses the first", extra.span,
                   labels=[Label(first.span, "first given here")] if first.span else [],
                   help="keep one `scheduler` block, Kueue Configuration or Kueue ConfigMap", about=about(extra))
    for cfg in configs:
        _check_strategies(cfg, diags)
    if model.config is not None and model.config.fair_sharing:
        _check_queues_without_cohort(model, diags)


def _check_queues_without_cohort(model: Model, diags: Diagnostics) -> None:
    """KAD261: under fair sharing Kueue v0.17.0's scheduler panics on a preemption search of a
    ClusterQueue in no cohort that its own candidates don't satisfy."""
    for cq in model.cluster_queues:
        policy = cq.preemption.within_cluster_queue
        if cq.cohort is not None or policy == "Never":
            continue
        diags.emit(FAIR_SHARING_WITHOUT_COHORT,
                   f"ClusterQueue `{cq.name}` is in no cohort and may preempt within itself (withinClusterQueue "
                   f"{policy}) while fair sharing is on: Kueue v0.17.0's scheduler panics when a workload of it "
                   "needs preemption that evicting all of its queue's candidates does not satisfy",
                   cq.field_span("preemption") or cq.span,
                   notes=["fair sharing's target ordering goes on from the queue's own candidates to its cohort's "
                          "root, nil for a queue in no cohort; Kueue's manager restarts into the same panic, and "
                          "kadmit decides such a workload as if the search ended with the queue's own candidates"],
                   help="put the ClusterQueue in a cohort (one of its own will do), or turn fair sharing off", about=about(cq))


def _check_strategies(cfg: SchedulerConfig, diags: Diagnostics) -> None:
    """The fair-sharing preemption strategies as Kueue checks them: only while fair sharing is on (a v1beta1
    Configuration's section without `enable: true` is dropped by Kueue's conversion, unread)."""
    written = cfg.preemption_strategies
    if written and not cfg.fair_sharing:
        diags.emit(STRATEGIES_WITHOUT_FAIR_SHARING, "preemption strategies are given but fair sharing is "
                   "off; Kueue ignores them", cfg.field_span("preemption_strategies"),
                   help="turn fair sharing on (`fair_sharing = true`, or `fairSharing.enable: true` in "
                        "a v1beta1 Configuration), or remove the strategies", about=about(cfg))
        return
    unknown = False
    for i, name in enumerate(written):
        if name in FAIR_SHARING_STRATEGIES:
            continue
        unknown = True
        choices = _known_names(name)
        diags.emit(UNKNOWN_STRATEGY, f"`{name}` is not a fair-sharing preemption strategy; ignored",
                   cfg.field_span(f"preemption_strategies.{i}"),
                   help=did_you_mean(name, choices) or "use " + " or ".join(f"`{c}`" for c in choices), about=about(cfg))
    at = cfg.field_span("preemption_strategies")
    if written and not unknown and written not in ACCEPTED:
        shown = ", ".join(written)
        diags.emit(STRATEGY_ORDER, f"Kueue does not accept the preemption strategies [{shown}]", at,
                   help="use one of them alone, or both in the order LessThanOrEqualToFinalShare, "
                        "LessThanInitialShare", about=about(cfg))
