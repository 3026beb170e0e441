"""The scheduler configuration (Kueue's Configuration): given once, with fair-sharing preemption
strategies Kueue knows, in a list it accepts, and only where fair sharing is on."""

from __future__ import annotations

import re

from kadmit.diagnostics import Diagnostics, Label, did_you_mean
from kadmit.model import FAIR_SHARING_STRATEGIES, Model, SchedulerConfig
from kadmit.validate.codes import (DUPLICATE_SCHEDULER, STRATEGIES_WITHOUT_FAIR_SHARING, STRATEGY_ORDER,
                                   UNKNOWN_STRATEGY)

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
                   help="keep one `scheduler` block, Kueue Configuration or Kueue ConfigMap")
    for cfg in configs:
        _check_strategies(cfg, diags)


def _check_strategies(cfg: SchedulerConfig, diags: Diagnostics) -> None:
    written = cfg.preemption_strategies
    unknown = False
    for i, name in enumerate(written):
        if name in FAIR_SHARING_STRATEGIES:
            continue
        unknown = True
        choices = _known_names(name)
        diags.emit(UNKNOWN_STRATEGY, f"`{name}` is not a fair-sharing preemption strategy; ignored",
                   cfg.field_span(f"preemption_strategies.{i}"),
                   help=did_you_mean(name, choices) or "use " + " or ".join(f"`{c}`" for c in choices))
    at = cfg.field_span("preemption_strategies")
    if written and not cfg.fair_sharing:
        diags.emit(STRATEGIES_WITHOUT_FAIR_SHARING, "preemption strategies are given but fair sharing is "
                   "off; Kueue ignores them", at,
                   help="turn fair sharing on (`fair_sharing = true`, or `fairSharing.enable: true` in "
                        "a v1beta1 Configuration), or remove the strategies")
    if written and not unknown and written not in ACCEPTED:
        shown = ", ".join(written)
        diags.emit(STRATEGY_ORDER, f"Kueue does not accept the preemption strategies [{shown}]", at,
                   help="use one of them alone, or both in the order LessThanOrEqualToFinalShare, "
                        "LessThanInitialShare")
