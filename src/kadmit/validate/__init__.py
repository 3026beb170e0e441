"""Semantic checks over the merged model, and rule type checking (KAD2xx)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.validate import codes  # noqa: F401  (registers the KAD2xx codes)
from kadmit.validate.cluster import (check_flavor, check_priority_classes, check_selectors, check_topology,
                                    check_usage)
from kadmit.validate.codetable import render_code_table
from kadmit.validate.names import check_cohort_cycles, check_duplicates
from kadmit.validate.quotas import check_quotas
from kadmit.validate.references import check_references
from kadmit.validate.rules import rule_scope, typecheck_rule
from kadmit.validate.scheduler import check_scheduler
from kadmit.validate.workloads import check_claim_templates, check_workload

__all__ = ["render_code_table", "rule_scope", "typecheck_rule", "validate"]


def validate(model: Model, diags: Diagnostics, checked: frozenset[int] = frozenset()) -> None:
    """Report every semantic problem of `model` to `diags`; never raises on user input. `checked`:
    ids of workload objects validated before as they are (an edited input's unedited files): their
    own checks, which read nothing else, are not run again (what they report was reported then)."""
    index = ModelIndex(model)
    check_duplicates(model, diags)
    check_scheduler(model, diags)
    check_cohort_cycles(index, diags)
    for t in model.topologies:
        check_topology(t, diags)
    for fl in model.flavors:
        check_flavor(fl, diags)
    for owner in (*model.cohorts, *model.cluster_queues):
        check_quotas(owner, diags)
    check_priority_classes(model, diags)
    check_selectors(model, diags, checked)
    for wl in model.workloads:
        if id(wl) not in checked:
            check_workload(wl, diags)
    check_claim_templates(model, diags)
    check_references(index, diags)
    check_usage(index, diags)
    for rule in model.rules:
        typecheck_rule(rule, index, diags)
