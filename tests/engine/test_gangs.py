"""Gangs kube-scheduler places all-or-nothing (not Kueue's): Kubernetes' v1alpha1 Workload gangs
(KEP-4671) and the coscheduling PodGroup are read, decided as placement, shown by `admit` and
explained by `why` with minimal cores over the nodes' capacity."""

import json
from pathlib import Path

from kadmit.diagnostics import Diagnostics
from kadmit.engine.decide import admit, why
from kadmit.manifests import read_manifest_text
from kadmit.model import merge

HERE = Path(__file__).resolve().parents[1] / "manifests"
NODES = """
apiVersion: v1
kind: Node
metadata: {name: gpu-0, labels: {kubernetes.io/hostname: gpu-0}}
status: {allocatable: {cpu: "32", nvidia.com/gpu: "8", pods: "110"}, conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}}
status: {allocatable: {cpu: "32", nvidia.com/gpu: "8", pods: "110"}, conditions: [{type: Ready, status: "True"}]}
"""


def model_of(text: str):
    diags = Diagnostics()
    frag = read_manifest_text(text, "g.yaml", diags)
    assert not [d for d in diags.sorted() if d.severity.name == "ERROR"], diags.sorted()
    return merge([frag]), diags


def pod(name: str, gpus: int, extra: str = "", labels: str = "", node: str | None = None) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml{', labels: {' + labels + '}' if labels else ''}}}
spec:
{extra}{'  nodeName: ' + node if node else ''}
  containers:
  - name: c
    image: busybox
    resources: {{requests: {{nvidia.com/gpu: "{gpus}"}}, limits: {{nvidia.com/gpu: "{gpus}"}}}}
"""


def test_both_pod_group_apis_are_read_decided_and_explained():
    text = (HERE / "gangs-two-apis.yaml").read_text()
    model, _ = model_of(text)
    assert {(g.kind, g.api_version, g.min_count) for g in model.gangs} == {
        ("PodGroup", "scheduling.x-k8s.io/v1alpha1", 3), ("Workload", "scheduling.k8s.io/v1alpha1", 2)}
    r = admit(model)
    by = {g.name: g for g in r.gangs}
    assert by["ml/small/workers"].placed and sum(by["ml/small/workers"].nodes.values()) == 2
    assert not by["ml/trainer"].placed and not r.unknown
    w = why(model, "ml/trainer")
    assert not w.admitted and w.reasons[0].code == "KAD540" and w.blame_kind == "gang"
    # one minimal core: the nodes' capacity, the pod holding gpu-1, and the gang's minMember
    assert [sorted(o.kind for o in g) for g in w.blame_groups] == [["count", "domain", "holder"]]
    holder = next(o for o in w.blame_groups[0] if o.kind == "holder")
    assert "pod `ml/busy`" in holder.message
    count = next(o for o in w.blame_groups[0] if o.kind == "count")
    assert count.span.line == text.splitlines().index("  minMember: 3") + 1
    assert why(model, "ml/small/workers").admitted


def test_workload_v1alpha1_gangs_split_by_replica_key():
    wl = """---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: train, namespace: ml}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: train}
  podGroups:
  - name: workers
    policy:
      gang: {minCount: 2}
"""
    ref = "  workloadRef: {{name: train, podGroup: workers, podGroupReplicaKey: \"{}\"}}\n"
    pods = (pod("w-0-a", 8, ref.format(0)) + pod("w-0-b", 8, ref.format(0))
            + pod("w-1-a", 8, ref.format(1)) + pod("w-1-b", 8, ref.format(1)))
    model, _ = model_of(NODES + wl + pods)
    r = admit(model)
    assert [(g.name, g.placed) for g in r.gangs] == [("ml/train/workers#0", True), ("ml/train/workers#1", False)]
    w = why(model, "ml/train/workers#1")
    assert not w.admitted and w.blame_groups
    # the first replica's gang holds both nodes: it is in the core
    assert any(o.kind == "holder" and "ml/train/workers#0" in o.message for g in w.blame_groups for o in g)


def test_quorum_and_bound_pods():
    groups = """---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: quorum, namespace: ml}
spec: {minMember: 4}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: running, namespace: ml}
spec: {minMember: 3}
"""
    q = "scheduling.x-k8s.io/pod-group: quorum"
    run = "scheduling.x-k8s.io/pod-group: running"
    pods = (pod("q-0", 1, labels=q) + pod("q-1", 1, labels=q)
            + pod("r-0", 1, labels=run, node="gpu-0") + pod("r-1", 1, labels=run, node="gpu-1") + pod("r-2", 1, labels=run))
    model, _ = model_of(NODES + groups + pods)
    by = {g.name: g for g in admit(model).gangs}
    assert not by["ml/quorum"].placed and "only 2 of its 4 pods (minCount) exist" in by["ml/quorum"].reason
    assert by["ml/running"].placed and by["ml/running"].bound == 2 and by["ml/running"].need == 1


def test_unknown_pod_group_fields_are_errors():
    diags = Diagnostics()
    read_manifest_text("""apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: typo, namespace: ml}
spec: {minMembr: 2}
""", "g.yaml", diags)
    assert any("minMembr" in d.message for d in diags.sorted())




def test_basic_policy_is_not_a_gang():
    group = """---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: loose, namespace: ml}
spec:
  podGroups:
  - name: workers
    policy: {basic: {}}
"""
    ref = "  workloadRef: {name: loose, podGroup: workers}\n"
    model, _ = model_of(NODES + group + pod("l-0", 8, ref) + pod("l-1", 8, ref) + pod("l-2", 8, ref))
    g = admit(model).gangs[0]
    assert g.gang.policy == "basic" and not g.placed and sum(g.nodes.values()) == 2
    assert g.reason.startswith("basic policy (no gang): pods are scheduled one by one; 2 of its 3")
