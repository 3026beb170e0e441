"""`kadmit import`: a model read from Kueue manifests as `.kad` files, one per concern, in the
canonical layout (`syntax.format_text`). What the language cannot say yet is kept as a comment
where it belongs and reported (KAD920); the rest reads back to the same objects."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostics
from kadmit.export.codes import KAD920
from kadmit.export.state import timestamp
from kadmit.export.text import NAME, label, rule_text
from kadmit.featuregates import enabled
from kadmit.index import HOSTNAME_LABEL, ModelIndex
from kadmit.model import (AdmissionCheck, CheckConfig, CheckRule, ClusterQueue, Cohort, LabelSelector, Model, Node,
                          PodSet, Requirement, ResourceGroup, Taint, Toleration, Workload)
from kadmit.modelchecks import KUEUE_GROUP, MULTIKUEUE, PROVISIONING, active_reason
from kadmit.modelscheduling import expression_errors
from kadmit.quantity import MILLI, format_quantity

CONCERNS = ("priorities", "namespaces", "scheduler", "topology", "flavors", "cohorts", "queues", "checks", "rules",
            "nodes", "workloads")
_QUEUEING = {"StrictFIFO": "strict_fifo", "BestEffortFIFO": "best_effort_fifo"}
_STOP = {"Hold": "hold", "HoldAndDrain": "hold_and_drain"}
_POLICY = {"Never": "never", "LowerPriority": "lower_priority", "LowerOrNewerEqualPriority":
           "lower_or_newer_equal_priority", "Any": "any"}
_STRATEGY = {"LessThanOrEqualToFinalShare": "less_than_or_equal_to_final_share",
             "LessThanInitialShare": "less_than_initial_share"}
_OPS = {"In": "in", "NotIn": "not_in", "Exists": "exists", "DoesNotExist": "does_not_exist", "Gt": "gt", "Lt": "lt"}


def q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def key(s: str) -> str:
    """A map key or a name: bare where the grammar reads it as a name, else quoted."""
    return label(s)


def smap(d: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{key(k)} = {q(v)}" for k, v in sorted(d.items())) + " }" if d else "{}"


def qmap(d: dict[str, int]) -> str:
    return "{ " + ", ".join(f"{key(r)} = {format_quantity(v, r)}" for r, v in sorted(d.items())) + " }" if d else "{}"


def decimal(milli: int) -> str:
    whole, frac = divmod(milli, MILLI)
    return str(whole) if not frac else f"{whole}.{frac:03d}".rstrip("0")


def taint(t: Taint) -> str:
    return q(f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}")


def toleration(t: Toleration) -> str:
    if t.operator == "Exists" and not t.value:
        return q((t.key or "*") + (f":{t.effect}" if t.effect else ""))
    if t.operator == "Equal" and t.key:
        return q(f"{t.key}={t.value}" + (f":{t.effect}" if t.effect else ""))
    # what the string form cannot say (an Exists with a value, an Equal without a key): Kubernetes' fields
    return "{ " + ", ".join([f"key = {q(t.key)}", f"operator = {t.operator.lower()}", f"value = {q(t.value)}"]
                            + ([f"effect = {t.effect}"] if t.effect else [])) + " }"


@dataclass
class Out:
    files: dict[str, list[str]] = field(default_factory=dict)  # concern -> statements
    diagnostics: Diagnostics = field(default_factory=Diagnostics)

    def add(self, concern: str, text: str) -> None:
        self.files.setdefault(concern, []).append(text)

    def lack(self, concern: str, what: str, span, comment: list[str] | None = None) -> list[str]:
        """Report what has no `.kad` form; the comment lines that keep it in the file."""
        self.diagnostics.emit(KAD920, f"{what} has no `.kad` form yet; kept as a comment", span)
        return [f"# no .kad form yet: {what}"] + [f"#   {line}" for line in (comment or [])]


def _match(r: Requirement) -> str:
    """A node-affinity requirement as a term's `match` line."""
    values = f" [{', '.join(q(v) for v in r.values)}]" if r.values or r.operator in ("In", "NotIn") else ""
    return f"match {q(r.key)} {_OPS.get(r.operator) or q(r.operator)}{values}"  # one outside the six: a comment


def selector(sel: LabelSelector | None) -> str:
    if sel is None:
        return "namespaces = none"
    if not sel.match_expressions:
        return "namespaces = all" if not sel.match_labels else f"namespaces = {smap(sel.match_labels)}"
    lines = ["namespaces {"]
    if sel.match_labels:
        lines.append(f"  labels = {smap(sel.match_labels)}")
    for r in sel.match_expressions:
        values = f" [{', '.join(q(v) for v in r.values)}]" if r.operator in ("In", "NotIn") else ""
        lines.append(f"  match {q(r.key)} {_OPS[r.operator]}{values}")
    return "\n".join(lines + ["}"])


def groups(gs: tuple[ResourceGroup, ...]) -> list[str]:
    out = []
    for g in gs:
        lines = [f"resources {', '.join(key(r) for r in g.covered_resources)} {{"]
        for fq in g.flavors:
            parts = []
            for rq in fq.resources:
                text = f"{key(rq.resource)} = {format_quantity(rq.nominal, rq.resource)}"
                if rq.borrowing_limit is not None:
                    text += f" borrow {format_quantity(rq.borrowing_limit, rq.resource)}"
                if rq.lending_limit is not None:
                    text += f" lend {format_quantity(rq.lending_limit, rq.resource)}"
                parts.append(text)
            lines.append(f"  flavor {key(fq.flavor)} {{ {'  '.join(parts)} }}" if parts else f"  flavor {key(fq.flavor)} {{}}")
        out.append("\n".join(lines + ["}"]))
    return out


def cohort(c: Cohort) -> str:
    body = []
    if c.parent:
        body.append(f"parent = {key(c.parent)}")
    if c.fair_sharing is not None:
        body.append(f"fair_sharing {{ weight = {decimal(c.fair_sharing.weight)} }}")
    body += groups(c.resource_groups)
    return block(f"cohort {key(c.name)}", body)


def block(header: str, body: list[str]) -> str:
    if not body:
        return f"{header} {{}}"
    return header + " {\n" + "\n".join("  " + line for b in body for line in b.split("\n")) + "\n}"


def cluster_queue(cq: ClusterQueue) -> str:
    body = []
    if cq.cohort:
        body.append(f"cohort = {key(cq.cohort)}")
    body.append(selector(cq.namespace_selector))
    body.append(f"queueing = {_QUEUEING[cq.queueing_strategy]}")
    if cq.stop_policy != "None":
        body.append(f"stop_policy = {_STOP[cq.stop_policy]}")
    p = cq.preemption
    pre = [f"within_cluster_queue = {_POLICY[p.within_cluster_queue]}",
           f"reclaim_within_cohort = {_POLICY[p.reclaim_within_cohort]}"]
    if p.borrow_within_cohort is not None:
        bwc = [f"policy = {_POLICY[p.borrow_within_cohort.policy]}"]
        if p.borrow_within_cohort.max_priority_threshold is not None:
            bwc.append(f"max_priority_threshold = {p.borrow_within_cohort.max_priority_threshold}")
        pre.append(block("borrow_within_cohort", bwc))
    body.append(block("preemption", pre))
    ff = cq.flavor_fungibility
    fung = [f"when_can_borrow = {'borrow' if ff.when_can_borrow == 'Borrow' else 'try_next_flavor'}",
            f"when_can_preempt = {'preempt' if ff.when_can_preempt == 'Preempt' else 'try_next_flavor'}"]
    if ff.preference != "BorrowingOverPreemption":
        fung.append("preference = preemption_over_borrowing")
    body.append(block("flavor_fungibility", fung))
    if cq.fair_sharing is not None:
        body.append(f"fair_sharing {{ weight = {decimal(cq.fair_sharing.weight)} }}")
    if cq.admission_checks:
        body.append(queue_checks(cq.admission_checks))
    body += groups(cq.resource_groups)
    return block(f"cluster_queue {key(cq.name)}", body)


def queue_checks(rules: tuple[CheckRule, ...]) -> str:
    """`admission_checks = [a, b]`, or a map to each check's flavors where one has `onFlavors`."""
    if not any(r.on_flavors for r in rules):
        return f"admission_checks = [{', '.join(key(r.name) for r in rules)}]"
    return "admission_checks = { " + ", ".join(
        f"{key(r.name)} = " + (f"[{', '.join(key(f) for f in r.on_flavors)}]" if r.on_flavors else "all")
        for r in rules) + " }"


_CONFIG_ORDER = ("ProvisioningRequestConfig", "MultiKueueConfig", "MultiKueueCluster")
_CONTROLLERS = {PROVISIONING: "provisioning_request", MULTIKUEUE: "multikueue"}
_PARAMETER_KINDS = {PROVISIONING: "ProvisioningRequestConfig", MULTIKUEUE: "MultiKueueConfig"}
_MERGE = {"IdenticalPodTemplates": "identical_pod_templates",
          "IdenticalWorkloadSchedulingRequirements": "identical_workload_scheduling_requirements"}


def admission_check(ac: AdmissionCheck) -> str:
    body = [f"controller = {_CONTROLLERS.get(ac.controller) or key(ac.controller)}"]
    p = ac.parameters
    if p is not None:
        if p.name and p.api_group == KUEUE_GROUP and p.kind == _PARAMETER_KINDS.get(ac.controller):
            body.append(f"parameters = {key(p.name)}")
        else:
            body.append(block("parameters", [f"{k} = {q(v)}" for k, v in (("api_group", p.api_group),
                                                                         ("kind", p.kind), ("name", p.name)) if v]))
    if ac.status_active is not None:
        body.append(f"active = {'true' if ac.status_active else 'false'}")
        if ac.status_reason != active_reason(ac.status_active):
            body.append(f"reason = {q(ac.status_reason)}")
    return block(f"admission_check {key(ac.name)}", body)


def check_config(c: CheckConfig) -> str:
    body: list[str] = []
    if c.kind == "ProvisioningRequestConfig":
        body.append(f"provisioning_class = {q(c.provisioning_class)}")
        if c.parameters:
            body.append(f"parameters = {smap(c.parameters)}")
        if c.managed_resources:
            body.append(f"managed_resources = [{', '.join(key(r) for r in c.managed_resources)}]")
        if c.retry_strategy is not None:
            r = c.retry_strategy
            body.append(block("retry_strategy", [f"{k} = {getattr(r, k)}" for k in (
                "backoff_limit_count", "backoff_base_seconds", "backoff_max_seconds") if getattr(r, k) is not None]))
        if c.pod_set_merge_policy is not None:
            body.append(f"pod_set_merge_policy = {_MERGE[c.pod_set_merge_policy]}")
        if c.pod_set_updates:
            body.append(block("pod_set_updates", ["node_selector = { " + ", ".join(
                f"{key(k)} = {q(v)}" for k, v in c.pod_set_updates) + " }"]))
        return block(f"provisioning_config {key(c.name)}", body)
    if c.kind == "MultiKueueConfig":
        return block(f"multikueue_config {key(c.name)}", [f"clusters = [{', '.join(key(x) for x in c.clusters)}]"])
    if c.kubeconfig:
        body.append(f"kubeconfig = {q(c.kubeconfig)}")
        if c.kubeconfig_location_type:
            body.append(f"location_type = {c.kubeconfig_location_type.lower()}")
    elif c.cluster_profile:
        body.append(f"cluster_profile = {q(c.cluster_profile)}")
    if c.status_active is not None:
        body.append(f"active = {'true' if c.status_active else 'false'}")
    return block(f"multikueue_cluster {key(c.name)}", body)


def node(n: Node) -> str:
    body = []
    if n.labels:
        body.append(f"labels = {smap(n.labels)}")
    if n.taints:
        body.append(f"taints = [{', '.join(taint(t) for t in n.taints)}]")
    if n.allocatable:
        body.append(f"allocatable = {qmap(n.allocatable)}")
    if n.unschedulable:
        body.append("unschedulable = true")
    if not n.ready:
        body.append("ready = false")
    return block(f"node {key(n.name)}", body)


def pod_group(out: Out, wl: Workload, ps: PodSet, tas: bool = True) -> str:
    body = [f"count = {ps.count}"]
    if ps.min_count is not None:
        body.append(f"min_count = {ps.min_count}")
    if ps.requests:
        body.append(f"requests = {qmap(ps.requests)}")
    if ps.node_selector:
        body.append(f"node_selector = {smap(ps.node_selector)}")
    if ps.tolerations:
        body.append(f"tolerations = [{', '.join(toleration(t) for t in ps.tolerations)}]")
    if ps.node_affinity:
        terms = []
        for term in ps.node_affinity:
            lines = [_match(r) for r in term.match_expressions if not expression_errors(r, "")]
            if unparsable := [r for r in term.match_expressions if expression_errors(r, "")]:
                # Kueue keeps the Workload and fails the term ("invalid affinity node selectors"); the .kad
                # language refuses such a `match`: say so, keep it as a comment
                lines += out.lack("workloads", f"a node affinity expression Kueue cannot parse, of pod group "
                                  f"`{ps.name}` of `{wl.key}`", ps.field_span("node_affinity"),
                                  [_match(r) for r in unparsable])
            if said := [_match(r) for r in term.match_fields if r.operator in _OPS]:
                lines.append(block("match_fields", said))
            if unsaid := [r for r in term.match_fields if r.operator not in _OPS]:  # no `match` form has such an operator
                lines += out.lack("workloads", f"a node affinity `matchFields` requirement Kueue cannot parse, of pod "
                                  f"group `{ps.name}` of `{wl.key}`", ps.field_span("node_affinity"),
                                  [_match(r) for r in unsaid])
            terms.append(block("term", lines))
        body.append(block("affinity", terms))
    t = ps.topology
    if t is not None:
        if t.slice_level is not None:
            body += out.lack("workloads", f"the pod-set slices of pod group `{ps.name}` of `{wl.key}`",
                             ps.field_span("topology"), [f"slices of {size} pods in one `{level}`" for level, size
                                                         in (t.layers or ((t.slice_level, t.slice_size),))])
        if t.mode == "unconstrained":
            body.append("topology = unconstrained")
        elif t.level is not None:
            body.append(f"topology = {t.mode} {key(t.level)}")
        if t.group is not None and (tas or ps.stored_group is not None):
            body.append(f"topology_group = {key(t.group)}")  # a `.kad` pod set's is a Workload's (`PodSet.stored_group`)
        elif t.group is not None:  # a job's annotation: with TopologyAwareScheduling off, Kueue makes no group of it
            body.append(f"# topology_group = {key(t.group)}: a job's, which Kueue does not group by with "
                        "TopologyAwareScheduling off")
    if ps.claim_templates or ps.claims:
        body += out.lack("workloads", f"the DRA claims of pod group `{ps.name}` of `{wl.key}`", ps.span,
                         [", ".join((*ps.claim_templates, *ps.claims))])
    return block(f"pod_group {key(ps.name)}", body)


def workload(out: Out, ix: ModelIndex, wl: Workload) -> str:
    head: list[str] = []
    if wl.origin is not None:
        head.append(f"# made by Kueue of {wl.origin.qualified}" + (f" ({wl.part})" if wl.part else "")
                    + (f"; Kueue's name `{wl.kueue_name}`" if wl.kueue_name else ""))
    body = [f"queue = {key(wl.queue)}"]
    wpc = ix.workload_priority_classes.get(wl.priority_class or "") if wl.priority_class_kind != "pod" else None
    if wpc is not None and wl.priority in (None, wpc.value):
        body.append(f"priority = {key(wpc.name)}")
    elif wl.priority is not None:
        # a Workload object's spec.priority (0 where unset), which is all Kueue's scheduler reads
        if wl.priority != ix.default_priority or wl.priority_class:
            body.append(f"priority = {wl.priority}" + (f"  # `spec.priority`; it names priority class "
                                                       f"`{wl.priority_class}`" if wl.priority_class else ""))
    elif wl.priority_class:
        if wl.priority_class_kind == "pod" or wl.priority_class not in ix.workload_priority_classes:
            body.append(f"priority = {ix.priority(wl)}  # the value of PriorityClass `{wl.priority_class}`")
        else:
            body.append(f"priority = {key(wl.priority_class)}")
    body.append(f"created = {q(timestamp(wl.created))}")
    if wl.check_states:
        body.append("checks = { " + ", ".join(f"{key(c.name)} = {c.state.lower()}" for c in wl.check_states) + " }")
    if not wl.active:
        body.append("active = false")
    if wl.finished:
        body.append("finished = true")
    if wl.evicted:
        body.append("evicted = true")
    if wl.duration_ms is not None:
        body.append(f"duration = {q(str(wl.duration_ms // 1000) + 's' if wl.duration_ms % 1000 == 0 else str(wl.duration_ms) + 'ms')}")
    if wl.inadmissible:
        body += out.lack("workloads", f"why Kueue finds `{wl.key}` inadmissible", wl.span, [wl.inadmissible])
    if wl.evicted and wl.evicted_at is not None and wl.evicted_reason in ("AdmissionCheck", "PodsReadyTimeout"):
        body += out.lack("workloads", f"`{wl.key}`'s eviction time, which Kueue may queue it by", wl.span, [
            f"Evicted: {wl.evicted_reason} at {timestamp(wl.evicted_at)} (effective.ordered_by_eviction)"])
    if wl.reclaimed_while_borrowing_at is not None:  # with PrioritySortingWithinCohort off (effective.ordered_by_eviction)
        body += out.lack("workloads", f"`{wl.key}`'s Preempted condition, which Kueue may queue it by", wl.span, [
            f"Preempted: InCohortReclaimWhileBorrowing at {timestamp(wl.reclaimed_while_borrowing_at)}"])
    if wl.requeued_false or wl.requeue_at is not None:  # what holds it back from Kueue's queues (effective.held)
        body += out.lack("workloads", f"`{wl.key}`'s Requeued condition and requeueAt", wl.span, [
            f"Requeued: False ({wl.requeued_false})" if wl.requeued_false else "Requeued: not False",
            f"requeueAt: {timestamp(wl.requeue_at)}" if wl.requeue_at is not None else "requeueAt: none"])
    if wl.admission is not None and (retry := [c for c in wl.check_states if c.retry_at is not None]):
        body += out.lack("workloads", f"`{wl.key}`'s retry time (requeueAfterSeconds), which it holds quota until", wl.span,
                         [f"{c.name}: Retry until {timestamp(c.retry_at)} (effective.checked)" for c in retry])
    if wl.max_exec:  # Kueue deactivates it once Admitted that long (effective.expired)
        body += out.lack("workloads", f"`{wl.key}`'s maximum execution time", wl.span, [
            f"maximumExecutionTimeSeconds: {wl.max_exec}"] + ([
                f"Admitted at {timestamp(wl.admitted_since)}, accumulatedPastExecutionTimeSeconds: {wl.past_exec}"]
                if wl.admitted_since is not None else []))
    if wl.admission_gated_by:  # decides with the AdmissionGatedBy gate on (effective.gated)
        body += out.lack("workloads", f"`{wl.key}`'s admission-gated-by annotation", wl.span,
                         [f"kueue.x-k8s.io/admission-gated-by: {wl.admission_gated_by}"])
    if wl.priority_boost is not None:  # decides with the PriorityBoost gate on (index.priority)
        body += out.lack("workloads", f"`{wl.key}`'s priority-boost annotation", wl.span,
                         [f"kueue.x-k8s.io/priority-boost: {wl.priority_boost}"])
    if wl.replaces:  # decides with the ElasticJobsViaWorkloadSlices gate on (engine.admission.slices)
        body += out.lack("workloads", f"`{wl.key}`'s workload-slice-replacement-for annotation", wl.span,
                         [f"kueue.x-k8s.io/workload-slice-replacement-for: {wl.replaces}"])
    if wl.preemption_gated:  # decides with the MultiKueueOrchestratedPreemption gate on (requeue.preemption_gated)
        body += out.lack("workloads", f"`{wl.key}`'s closed preemption gate", wl.span, ["spec.preemptionGates"])
    if enabled(ix.model.config, "SchedulingEquivalenceHashing") and (any(  # engine.admission.equivalence's key
            ps.resources is not None and ps.resources.shape or ps.index for ps in wl.pod_sets)
            or wl.spec_min_counts != tuple(ps.min_count for ps in wl.pod_sets)):
        body += out.lack("workloads", f"`{wl.key}`'s pod spec fields that SchedulingEquivalenceHashing compares "
                         "(ports, affinity, topologySpreadConstraints, priority, claims, the spec's minCount, "
                         "the topology request's index labels)", wl.span)
    tas = enabled(ix.model.config, "TopologyAwareScheduling")
    body += [pod_group(out, wl, ps, tas) for ps in wl.pod_sets]
    if wl.admission is not None:
        adm = [f"cluster_queue = {key(wl.admission.cluster_queue)}"]
        if wl.admission.admitted_at is not None:
            adm.append(f"admitted_at = {q(timestamp(wl.admission.admitted_at))}")
        cq = ix.cluster_queues.get(wl.admission.cluster_queue)
        if wl.admitted_condition and (wl.check_states or (cq is not None and cq.admission_checks)):
            # where it matters: without it, a workload of a queue with checks is admitted once every
            # check (its states synced with the queue's checks) is Ready
            adm.append("admitted_condition = true")
        for a in wl.admission.pod_sets:
            inner = [f"count = {a.count}", f"flavors = {{ {', '.join(f'{key(r)} = {key(f)}' for r, f in sorted(a.flavors.items()))} }}"
                     if a.flavors else "flavors = {}"]
            if a.placement and a.placement_levels not in ((), (HOSTNAME_LABEL,)):
                inner += out.lack("workloads", f"the topology assignment of pod group `{a.name}` of `{wl.key}` on "
                                  f"levels {', '.join(a.placement_levels)} (`.kad` places pods on nodes)", a.span,
                                  [f"{d} = {c}" for d, c in sorted(a.placement.items())])
            elif a.placement:
                nodes = placed_nodes(ix, a.placement)
                inner.append("nodes = { " + ", ".join(f"{q(n)} = {c}" for n, c in sorted(nodes.items())) + " }")
            if a.delayed:
                inner.append("delayed = true")
            if a.unrecorded:
                inner += out.lack("workloads", f"the admission of pod group `{a.name}` of `{wl.key}` with no "
                                  "recorded usage (no `resourceUsage`: Kueue books nothing for it; `.kad` counts "
                                  "count x requests)", a.span)
            if a.usage:
                inner += out.lack("workloads", f"the recorded usage of pod group `{a.name}` of `{wl.key}`", a.span,
                                  [f"{r} = {format_quantity(v, r)}" for r, v in sorted(a.usage.items())])
            adm.append(block(f"pod_group {key(a.name)}", inner))
        body.append(block("admitted", adm))
    return "\n".join(head + [block(f"workload {key(wl.namespace + '/' + wl.name)}", body)])


def placed_nodes(ix: ModelIndex, placement: dict[str, int]) -> dict[str, int]:
    """Kueue's pods per hostname as pods per node name (`.kad` names nodes): a node's own name, else
    the first node by name whose `kubernetes.io/hostname` label has the value, else the value itself."""
    by_host: dict[str, str] = {n.name: n.name for n in ix.model.nodes}
    for n in sorted(ix.model.nodes, key=lambda n: n.name):
        if HOSTNAME_LABEL in n.labels:
            by_host.setdefault(n.labels[HOSTNAME_LABEL], n.name)
    out: dict[str, int] = {}
    for host, pods in placement.items():
        name = by_host.get(host, host)
        out[name] = out.get(name, 0) + pods
    return out


def import_model(model: Model, *, workloads: bool = False) -> Out:
    """The `.kad` statements of each concern (not yet formatted), and what has no `.kad` form."""
    ix = ModelIndex(model)
    out = Out()
    for pc in sorted(model.priority_classes, key=lambda p: (p.kind, p.name)):
        if pc.kind == "pod":
            out.add("priorities", "\n".join(out.lack("priorities", f"PriorityClass `{pc.name}` (value {pc.value}"
                                                     + (", the cluster's default)" if pc.global_default else ")"),
                                                     pc.span)))
            continue
        out.add("priorities", f"priority {key(pc.name)} = {pc.value}" + (" default" if pc.global_default else ""))
    for ns in sorted(model.namespaces, key=lambda n: n.name):
        out.add("namespaces", block(f"namespace {key(ns.name)}", [f"labels = {smap(ns.labels)}"] if ns.labels else []))
    if model.config is not None:
        out.add("scheduler", _scheduler(out, model))
    for t in sorted(model.topologies, key=lambda t: t.name):
        out.add("topology", block(f"topology {key(t.name)}", [f"levels = [{', '.join(q(x) for x in t.levels)}]"]))
    for f in sorted(model.flavors, key=lambda f: f.name):
        body = []
        if f.node_labels:
            body.append(f"node_labels = {smap(f.node_labels)}")
        if f.node_taints:
            body.append(f"node_taints = [{', '.join(taint(t) for t in f.node_taints)}]")
        if f.tolerations:
            body.append(f"tolerations = [{', '.join(toleration(t) for t in f.tolerations)}]")
        if f.topology:
            body.append(f"topology = {key(f.topology)}")
        out.add("flavors", block(f"flavor {key(f.name)}", body))
    for c in sorted((c for c in model.cohorts if c.explicit), key=lambda c: c.name):
        out.add("cohorts", cohort(c))
    for cq in sorted(model.cluster_queues, key=lambda c: c.name):
        text = cluster_queue(cq)
        if cq.terminating:
            text = "\n".join(out.lack("queues", f"the deletion of cluster queue `{cq.name}` (it is terminating)",
                                      cq.field_span("terminating") or cq.span) + [text])
        out.add("queues", text)
    for lq in sorted(model.local_queues, key=lambda lq: lq.key):
        text = f"local_queue {key(lq.key)} -> {key(lq.cluster_queue)}"
        if lq.stop_policy != "None":
            text = "\n".join(out.lack("queues", f"the stop policy `{lq.stop_policy}` of local queue `{lq.key}`",
                                      lq.field_span("stop_policy")) + [text])
        out.add("queues", text)
    for r in sorted(model.rules, key=lambda r: r.name):
        out.add("rules", rule_text(r))
    if workloads:
        for n in sorted(model.nodes, key=lambda n: n.name):
            out.add("nodes", node(n))
        for wl in sorted(model.workloads, key=lambda w: w.key):
            if not wl.pod_sets:  # a v1beta2 Workload without `spec.podSets`: a `.kad` workload has pod groups
                out.add("workloads", "\n".join(out.lack(
                    "workloads", f"workload `{wl.key}`, which has no pod sets (Kueue queues it and finds it "
                    "inadmissible)", wl.span, [wl.inadmissible or "no pod sets"])))
                continue
            out.add("workloads", workload(out, ix, wl))
        with_uid = sorted((w for w in model.workloads if w.uid), key=lambda w: w.key)
        if with_uid:  # one report: most exported Workloads carry one
            out.add("workloads", "\n".join(out.lack(
                "workloads", f"the UIDs of {len(with_uid)} Workload{'s' if len(with_uid) > 1 else ''} (Kueue's last "
                "tie-break between preemption candidates; `.kad` workloads break it by name)", with_uid[0].span,
                [f"{w.key}: {w.uid}" for w in with_uid])))
        for p in model.pods:
            if p.holds_capacity:
                out.add("nodes", "\n".join(out.lack("nodes", f"pod `{p.namespace}/{p.name}` bound to node "
                                                    f"`{p.node_name}`", p.span, [f"requests {qmap(p.requests)}"])))
    for lr in model.limit_ranges:
        out.add("queues", "\n".join(out.lack("queues", f"LimitRange `{lr.namespace}/{lr.name}` (its defaults and "
                                              "bounds change what Kueue counts)", lr.span)))
    for ac in sorted(model.admission_checks, key=lambda a: a.name):
        out.add("checks", admission_check(ac))
    for c in sorted(model.check_configs, key=lambda c: (_CONFIG_ORDER.index(c.kind), c.name)):
        out.add("checks", check_config(c))
    for rc in model.runtime_classes:
        out.add("queues", "\n".join(out.lack("queues", f"RuntimeClass `{rc.name}` (its overhead joins what Kueue "
                                              "counts)", rc.span)))
    for dc in model.device_classes:
        out.add("queues", "\n".join(out.lack("queues", f"DeviceClass `{dc.name}` (with the DRAExtendedResources gate, "
                                              "the extended resource it names counts as its DRA devices)", dc.span)))
    for g in model.gangs:
        out.add("workloads", "\n".join(out.lack("workloads", f"{g.kind} `{g.namespace}/{g.name}` "
                                                "(a gang kube-scheduler places)", g.span)))
    return out


def _scheduler(out: Out, model: Model) -> str:
    c = model.config
    body = [f"fair_sharing = {'true' if c.fair_sharing else 'false'}"]
    if c.preemption_strategies:
        body.append(f"preemption_strategies = [{', '.join(_STRATEGY.get(s, s) for s in c.preemption_strategies)}]")
    if c.feature_gates:  # Kueue's gates away from their defaults, AllAlpha/AllBeta spelt out (featuregates.resolve)
        body.append("feature_gates = { " + ", ".join(f"{g} = {str(on).lower()}" for g, on in c.feature_gates.items())
                    + " }")
    said = []
    if c.frameworks is not None:
        said.append(f"integrations.frameworks: {', '.join(c.frameworks)}")
    if c.external_frameworks:
        said.append("integrations.externalFrameworks")
    if c.manage_jobs_without_queue_name is not None:
        said.append(f"manageJobsWithoutQueueName: {str(c.manage_jobs_without_queue_name).lower()}")
    if c.managed_jobs_namespace_selector is not None:
        said.append("managedJobsNamespaceSelector")
    if c.exclude_resource_prefixes or c.transformations or c.device_class_mappings:
        said.append("resources (excluded prefixes, transformations, device classes)")
    if c.admission_fair_sharing is not None:
        said.append("admissionFairSharing (with the ClusterQueues' admissionScope and the LocalQueues' weights "
                    "and consumed usage)")
    lines = []
    for what in said:
        lines += out.lack("scheduler", f"Kueue's Configuration `{what.split(':')[0]}`", c.span, [what])
    return "\n".join(lines + [block("scheduler", body)])


def header(sources: list[str]) -> str:
    return f"# Imported by `kadmit import` from {', '.join(sources)}.\n\n"


__all__ = ["CONCERNS", "NAME", "import_model", "header"]
