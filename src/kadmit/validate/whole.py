"""Every check over a whole model."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.validate.likely import check_likely_mistakes
from kadmit.validate.cluster import (check_flavor, check_hostnames, check_priority_classes, check_selectors,
                                    check_topology, check_usage)
from kadmit.validate.names import check_cohort_cycles, check_duplicates
from kadmit.validate.negative import check_negative_in_cohort
from kadmit.validate.quotas import check_quotas
from kadmit.validate.references import check_references
from kadmit.validate.rules import typecheck_rule
from kadmit.validate.scheduler import check_scheduler
from kadmit.validate.ties import check_queue_ties
from kadmit.validate.workloads import check_balanced, check_claim_templates, check_workload


def validate(model: Model, diags: Diagnostics) -> None:
    """Report every semantic problem of `model` to `diags`; never raises on user input. (After an
    edit, `validate_since` runs only the checks the edit's changes reach.)"""
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
    check_hostnames(model, diags)
    check_selectors(model, diags)
    for wl in model.workloads:
        check_workload(wl, diags)
        check_balanced(wl, diags, model.config)
    check_claim_templates(model, diags)
    check_references(index, diags)
    check_usage(index, diags)
    check_queue_ties(index, diags)
    check_negative_in_cohort(index, diags)
    for rule in model.rules:
        typecheck_rule(rule, index, diags)
    check_likely_mistakes(model, diags)
