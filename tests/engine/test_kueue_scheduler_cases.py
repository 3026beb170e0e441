"""Cases of Kueue's own `pkg/scheduler/scheduler_test.go` (the shapes, written as manifests): the
engine and the reference replay both decide them as Kueue's test expects."""

from __future__ import annotations

import textwrap

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.reasons import preempted_reason
from kadmit.engine.admission.session import Session
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.reference import decide as reference_decide

FLAVORS = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
"""


def cluster_queue(name, cohort, flavors, *, within="Never", fungibility="", bwc=""):
    groups = "\n".join(
        f"    - name: {f}\n      resources:\n      - {{name: cpu, nominalQuota: \"{n}\""
        + (f", borrowingLimit: \"{b}\"" if b is not None else "") + "}" for f, n, b in flavors)
    return f"""\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  cohortName: {cohort}
  namespaceSelector: {{}}
  preemption: {{withinClusterQueue: {within}{', reclaimWithinCohort: Any, borrowWithinCohort: ' + bwc if bwc else ''}}}
  {fungibility}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
{groups}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {name}, namespace: default}}
spec: {{clusterQueue: {name}}}
"""


def workload(name, queue, cpu, priority, admitted_in=None, uid=None, job_uid=None):
    status = ""
    if admitted_in:
        cq, flavor = admitted_in
        status = f"""
status:
  admission:
    clusterQueue: {cq}
    podSetAssignments: [{{name: main, count: 1, flavors: {{cpu: {flavor}}}, resourceUsage: {{cpu: "{cpu}"}}}}]
  conditions:
  - {{type: QuotaReserved, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}}
  - {{type: Admitted, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: Admitted, message: m}}"""
    meta_uid = (f", uid: {uid}" if uid else "") + (
        f", labels: {{kueue.x-k8s.io/job-uid: {job_uid}}}" if job_uid else "")
    return f"""\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-11-20T08:00:00Z"{meta_uid}}}
spec:
  queueName: {queue}
  priority: {priority}
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}{status}
"""


def load(text: str):
    diags = Diagnostics()
    model = merge([read_manifest_text(textwrap.dedent(text), "cases.yaml", diags)])
    assert not [d for d in diags if d.severity.value == "error"], [(d.code, d.message) for d in diags]
    return model


def engine(model):
    out = {}
    for d in decide_ordered(Session(model)):
        if d.admitted:
            out[d.key] = ("admitted", sorted({f for fl in d.assignment.flavors.values() for f in fl.values()}),
                          [v.key for v in d.preempted])
        else:
            out[d.key] = ("pending", [], [])
    return out


def reference(model):
    out = {}
    for d in reference_decide(model, preemption=True):
        if d.admitted:
            out[d.workload] = ("admitted", sorted({f for p in d.pod_sets for f in p.flavors.values()}),
                               [t.key for t in d.preempted])
        else:
            out[d.workload] = ("pending", [], [])
    return out


POB = "flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: %s}"

CASES = {
    # "PreemptionOverBorrowing preference: preempt in first flavor instead of borrowing in second"
    "preemption over borrowing preempts in the first flavor": (
        cluster_queue("pob-cq", "pob-cohort", [("on-demand", 5, 0), ("spot", 0, 5)], within="LowerPriority",
                      fungibility=POB % "PreemptionOverBorrowing")
        + cluster_queue("pob-lender", "pob-cohort", [("on-demand", 0, None), ("spot", 5, None)])
        + workload("low-pob", "pob-cq", 5, -1, admitted_in=("pob-cq", "on-demand"))
        + workload("high-pob", "pob-cq", 5, 0, uid="wl-high-pob", job_uid="job-high-pob"),
        # Kueue: the preemptor waits for its victim (PreemptedWorkload) in the on-demand flavor
        {"default/high-pob": ("admitted", ["on-demand"], ["default/low-pob"])}),
    # "BorrowingOverPreemption preference: borrow in second flavor instead of preempting in first"
    "borrowing over preemption borrows in the second flavor": (
        cluster_queue("bop-cq", "bop-cohort", [("on-demand", 5, 0), ("spot", 0, 5)], within="LowerPriority",
                      fungibility=POB % "BorrowingOverPreemption")
        + cluster_queue("bop-lender", "bop-cohort", [("on-demand", 0, None), ("spot", 5, None)])
        + workload("low-bop", "bop-cq", 5, -1, admitted_in=("bop-cq", "on-demand"))
        + workload("high-bop", "bop-cq", 5, 0),
        {"default/high-bop": ("admitted", ["spot"], [])}),
    # the same without any preference: Kueue's default is BorrowingOverPreemption
    "no preference borrows as BorrowingOverPreemption": (
        cluster_queue("d-cq", "d-cohort", [("on-demand", 5, 0), ("spot", 0, 5)], within="LowerPriority",
                      fungibility="flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor}")
        + cluster_queue("d-lender", "d-cohort", [("on-demand", 0, None), ("spot", 5, None)])
        + workload("low", "d-cq", 5, -1, admitted_in=("d-cq", "on-demand"))
        + workload("high", "d-cq", 5, 0),
        {"default/high": ("admitted", ["spot"], [])}),
    # fitsResourceQuota: beyond nominal, withinClusterQueue alone does not make a workload eligible to
    # preempt (it would have to borrow); borrowWithinCohort does.
    "beyond nominal, withinClusterQueue does not preempt": (
        cluster_queue("a", "c", [("on-demand", 4, None)], within="LowerPriority")
        + cluster_queue("b", "c", [("on-demand", 4, None)])
        + workload("low-a", "a", 1, 0, admitted_in=("a", "on-demand"))
        + workload("b-big", "b", 6, 0, admitted_in=("b", "on-demand"))
        + workload("high-a", "a", 6, 10),
        {"default/high-a": ("pending", [], [])}),
    "beyond nominal, borrowWithinCohort preempts while borrowing": (
        cluster_queue("a", "c", [("on-demand", 4, None)], within="LowerPriority",
                      bwc="{policy: LowerPriority}")
        + cluster_queue("b", "c", [("on-demand", 4, None)])
        + workload("low-a", "a", 1, 0, admitted_in=("a", "on-demand"))
        + workload("b-big", "b", 6, 0, admitted_in=("b", "on-demand"))
        + workload("high-a", "a", 6, 10),
        {"default/high-a": ("admitted", ["on-demand"], ["default/b-big"])}),
    "beyond nominal, preempting in the queue would need borrowing: no": (
        cluster_queue("a", "c", [("on-demand", 4, None)], within="LowerPriority")
        + cluster_queue("b", "c", [("on-demand", 4, None)])
        + workload("low-a", "a", 4, 0, admitted_in=("a", "on-demand"))
        + workload("high-a", "a", 6, 10),
        {"default/high-a": ("pending", [], [])}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_and_reference_decide_as_kueue(name) -> None:
    text, expected = CASES[name]
    model = load(FLAVORS + text)
    got_engine, got_reference = engine(model), reference(model)
    for key, want in expected.items():
        assert got_engine[key][0] == want[0] and got_engine[key][1] == want[1], (key, got_engine[key])
        assert sorted(got_engine[key][2]) == want[2], (key, got_engine[key])
    assert got_engine == got_reference


KUEUE_MESSAGE = ("Preempted to accommodate a workload (UID: wl-high, JobUID: job-high) due to "
                 "prioritization in the ClusterQueue; preemptor path: /c/cq; preemptee path: /c/cq")


def test_preemption_messages_carry_the_preemptors_uids() -> None:
    """The victim's message as scheduler_test.go writes it, UIDs from metadata.uid and the
    `kueue.x-k8s.io/job-uid` label."""
    model = load(FLAVORS + cluster_queue("cq", "c", [("on-demand", 5, None)], within="LowerPriority")
                 + workload("low", "cq", 5, -1, admitted_in=("cq", "on-demand"))
                 + workload("high", "cq", 5, 0, uid="wl-high", job_uid="job-high"))
    session = Session(model)
    decisions = {d.key: d for d in decide_ordered(session)}
    victim = decisions["default/low"]
    assert victim.preempted_by == "default/high"
    reason = preempted_reason(session, "cq", victim.preempted_by, victim.preemption_reason)
    assert reason.message == f"{KUEUE_MESSAGE} (preempted by default/high)"


def test_equal_candidates_are_taken_in_uid_order() -> None:
    """Two admitted workloads of one priority reserved at the same time: Kueue's CandidatesOrdering
    ends with the UID (gpu_state(2000): team-07's run-00228 and run-00237), not the name."""
    model = load(FLAVORS + cluster_queue("cq", "c", [("on-demand", 2, None)], within="LowerPriority")
                 + workload("a", "cq", 1, 0, admitted_in=("cq", "on-demand"), uid="uid-2")
                 + workload("b", "cq", 1, 0, admitted_in=("cq", "on-demand"), uid="uid-1")
                 + workload("high", "cq", 1, 5))
    decisions = {d.key: d for d in decide_ordered(Session(model))}
    assert [v.key for v in decisions["default/high"].preempted] == ["default/b"]
    assert "default/a" not in decisions  # running all along
