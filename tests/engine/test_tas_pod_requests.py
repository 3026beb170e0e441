"""Topology-aware scheduling places by the pods' own requests, quota counts the transformed ones.

Kueue (`pkg/scheduler/flavorassigner/tas_flavorassigner.go`, `podSetTopologyRequest`: "Use PodSpec
directly for TAS placement, not quota-filtered admission values" — `resources.NewRequestsFromPodSpec`)
places pods on nodes by what the pod spec asks, while `totalRequestsFromPodSets` applies the Configuration's `resources`
(excluded prefixes, transformations) and DRA devices for quota. Here a transformation replaces GPUs
by quota-only `credits` that no node has: quota is counted in credits, nodes are filled by GPUs. An
admitted workload's usage on its nodes is what its admission records (`totalRequestsFromAdmission`)."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.effective import effective
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.decide import admit
from kadmit.manifests import read_manifest_text
from kadmit.model import merge
from kadmit.quantity import parse_quantity as q

CLUSTER = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  transformations:
  - {input: nvidia.com/gpu, strategy: Replace, outputs: {example.com/credits: "1"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec:
  levels: [{nodeLabel: kubernetes.io/hostname}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpus}
spec: {nodeLabels: {node-pool: tas}, topologyName: dc}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, example.com/credits]
    flavors: [{name: gpus, resources: [{name: cpu, nominalQuota: 64}, {name: example.com/credits, nominalQuota: 64}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: team}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Node
metadata:
  name: n0
  labels: {node-pool: tas, kubernetes.io/hostname: n0}
status:
  allocatable: {cpu: "32", nvidia.com/gpu: "4", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
"""


HELD_FLAVORS = "      flavors: {cpu: gpus, example.com/credits: gpus}\n"
RECORDED = "      resourceUsage: {cpu: \"1\", example.com/credits: \"4\"}\n"


def _workload(name: str, minute: int, admitted: bool = False) -> str:
    status = ("status:\n  admission:\n    clusterQueue: cq\n    podSetAssignments:\n    - name: main\n"
              "      count: 1\n      flavors: {cpu: gpus, example.com/credits: gpus}\n      topologyAssignment:\n"
              "        levels: [kubernetes.io/hostname]\n        slices: [{domainCount: 1, valuesPerLevel: [{universal: n0}], "
              "podCounts: {universal: 1}}]\n"
              "  conditions: [{type: QuotaReserved, status: \"True\", reason: QuotaReserved, message: m, lastTransitionTime: \"2026-11-20T08:00:00Z\"}]\n" if admitted else "")
    return (f"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: {name}\n  namespace: team\n"
            f"  creationTimestamp: \"2026-11-20T09:{minute:02d}:00Z\"\nspec:\n  queueName: q\n  podSets:\n"
            "  - name: main\n    count: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
            "          resources: {requests: {cpu: \"1\", nvidia.com/gpu: \"4\"}}\n" + status)


def _model(*workloads: str):
    diags = Diagnostics()
    model = merge([read_manifest_text(CLUSTER + "".join(workloads), "c.yaml", diags)])
    assert not [d for d in diags if d.severity == "error"], [(d.code, d.message) for d in diags]
    return model


def test_quota_counts_the_transformed_requests_and_keeps_the_pod_specs_for_placement():
    (ps,) = effective(_model(_workload("a", 0))).workloads[0].pod_sets
    assert ps.requests == {"cpu": q("1"), "example.com/credits": q("4")}
    assert ps.pod_requests == ps.placed_requests == {"cpu": q("1"), "nvidia.com/gpu": q("4")}
    # applying the configuration again changes neither
    (again,) = effective(effective(_model(_workload("a", 0))).model_copy()).workloads[0].pod_sets
    assert again.placed_requests == ps.placed_requests


@pytest.mark.parametrize("mode", ["ordered", "optimal"])
def test_placement_fills_the_node_by_gpus_while_quota_counts_credits(mode):
    model = _model(_workload("a", 0), _workload("b", 1))
    result = admit(model, mode=mode)
    got = {d.key: d for d in result.decisions}
    # quota (64 credits) holds both; the node's 4 GPUs hold one pod: by its pod spec, not by credits
    # (no node has credits: placing by the counted requests would place neither)
    if mode == "ordered":
        # Kueue then checks the placement (TASFlavorSnapshot.Fits) with the requests quota counts:
        # n0 has no credits, so team/a "no longer fits" every cycle, and team/b waits behind it
        # (tests/oracle/features/tas-transformed-resource-no-node-has-never-fits.yaml)
        assert not got["team/a"].admitted and not got["team/b"].admitted
        assert [r.code for r in result.reasons["team/a"]] == ["KAD523"]
        return
    assert got["team/a"].admitted and not got["team/b"].admitted  # optimal mode has no such check
    assert got["team/a"].assignment.flavors["main"] == {"cpu": "gpus", "example.com/credits": "gpus"}


@pytest.mark.parametrize("usage", [RECORDED, ""], ids=["recorded", "unrecorded"])
def test_an_admitted_workloads_topology_usage_is_what_its_admission_records(usage):
    """Kueue's TAS cache counts an admitted pod set on its nodes by its admission's resourceUsage over
    its count (workload.go totalRequestsFromAdmission, SinglePodRequests): the quota's cpu and credits,
    none of n0's GPUs; with no usage recorded (KAD169), only its pod's count."""
    from kadmit.engine.placing.pool import NodePool
    from kadmit.index import ModelIndex

    model = effective(_model(_workload("held", 0, admitted=True).replace(HELD_FLAVORS, HELD_FLAVORS + usage)))
    free = NodePool(model, ModelIndex(model)).free["n0"]
    assert free["nvidia.com/gpu"] == q("4") and free["pods"] == q("109")
    assert free["cpu"] == (q("31") if usage else q("32"))


OVERLAP = CLUSTER.replace("""  resourceGroups:
  - coveredResources: [cpu, example.com/credits]
    flavors: [{name: gpus, resources: [{name: cpu, nominalQuota: 64}, {name: example.com/credits, nominalQuota: 64}]}]
""", """  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: gpus, resources: [{name: cpu, nominalQuota: 64}]}]
  - coveredResources: [example.com/credits]
    flavors: [{name: plain, resources: [{name: example.com/credits, nominalQuota: 64}]}]
""") + """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
"""


def test_a_group_the_pods_own_requests_do_not_name_takes_a_flavor_without_a_topology():
    """`hasOverlapWithPodRequestedResources` reads the pod spec: the credits group (quota only, no
    pod asks for credits) serves a pod set asking for a topology with a flavor that has none."""
    from kadmit.reference import decide as reference_decide

    wl = _workload("a", 0).replace("    count: 1\n    template:",
                                   "    count: 1\n    topologyRequest: {required: kubernetes.io/hostname}\n    template:")
    diags = Diagnostics()
    model = merge([read_manifest_text(OVERLAP + wl, "c.yaml", diags)])
    assert not [d for d in diags if d.severity == "error"], [(d.code, d.message) for d in diags]
    got = {d.key: d for d in decide_ordered(Session(model))}
    assert got["team/a"].admitted
    assert got["team/a"].assignment.flavors["main"] == {"cpu": "gpus", "example.com/credits": "plain"}
    assert {d.workload: d.admitted for d in reference_decide(model)} == {"team/a": True}
