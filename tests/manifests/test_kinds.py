"""Kinds -> model: the spans explanations cite, and semantics the corpus states less directly."""

from __future__ import annotations

import textwrap

import pytest

from kadmit.diagnostics import Diagnostics, code_info
from kadmit.manifests import KINDS, read_manifest_text
from kadmit.manifests.jobs.external import say_unread
from kadmit.model import Fragment


def read(text: str) -> tuple[Fragment, Diagnostics]:
    """The file read, and what a load of it alone says (KAD159 once the input is merged: `say_unread`)."""
    diags = Diagnostics()
    frag = read_manifest_text(textwrap.dedent(text), "m.yaml", diags)
    say_unread(frag.unread_kinds, frag.scheduler_configs[0] if frag.scheduler_configs else None, diags)
    return frag, diags


def at(span) -> tuple[int, int]:
    return (span.line, span.column)


CQ = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
spec:
  cohort: research
  namespaceSelector:
    matchLabels: {team: a}
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 24
        borrowingLimit: 8
        lendingLimit: 4
"""


def test_cluster_queue_spans_point_at_the_fields():
    frag, diags = read(CQ)
    assert not diags.items
    (cq,) = frag.cluster_queues
    assert at(cq.span) == (1, 1)
    assert at(cq.field_span("cohort")) == (6, 11)
    assert at(cq.field_span("namespace_selector")) == (8, 5)
    assert at(cq.field_span("queueing_strategy")) == (9, 21)
    assert at(cq.field_span("resource_groups.0.flavors.0")) == (13, 7)
    quota = cq.resource_groups[0].flavors[0].resources[0]
    assert (quota.nominal, quota.borrowing_limit, quota.lending_limit) == (24000, 8000, 4000)
    assert [at(quota.field_span(k)) for k in ("nominal", "borrowing_limit", "lending_limit")] == [
        (16, 23), (17, 25), (18, 23)]


WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: training
  priorityClassName: research
  podSets:
  - name: workers
    count: 4
    minCount: 2
    template:
      spec:
        tolerations: [{key: nvidia.com/gpu, operator: Exists}]
        containers:
        - name: a
          resources: {requests: {cpu: "1"}}
        - name: b
          resources:
            requests: {cpu: "2", memory: 1Gi}
            limits: {nvidia.com/gpu: "8"}
  priority: 0
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: workers
      count: 3
      flavors: {cpu: f, memory: f, nvidia.com/gpu: f}
      resourceUsage: {cpu: "10", memory: 3Gi, nvidia.com/gpu: "24"}
  conditions: [{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}]
"""



@pytest.mark.parametrize("version, field, value", [
    ("v1beta1", "priorityClassName", "research"), ("v1beta1", "priorityClassName", '""'),
    ("v1beta2", "priorityClassRef", "{group: scheduling.k8s.io, kind: PriorityClass, name: research}")])
def test_a_workload_naming_a_class_without_a_priority_is_refused_as_the_crd_does(version, field, value):
    """The Workload CRD's rule (v1beta1 `has(self.priorityClassName) ? has(self.priority) : true`, v1beta2
    `!has(self.priorityClassRef) || has(self.priority)`) refuses it in these words, at the class (the real API
    server: tests/kube/test_workload_priority.py); `has` takes v1beta1's empty name too (which the name's pattern
    refuses as well, beside it: test_a_class_name_outside_the_crds_pattern_is_refused)."""
    text = (WORKLOAD.replace("v1beta1", version).replace("priorityClassName: research", f"{field}: {value}")
            .replace("  priority: 0\n", "  priority: null\n"))
    frag, diags = read(text)
    d, *pattern = sorted(diags.items, key=lambda d: "should match" in d.message)
    assert len(pattern) == (value == '""')
    assert (d.code, at(d.span)) == ("KAD157", (6, len(f"  {field}: ") + 1))
    assert d.message == ('the API server refuses the object: `Workload.kueue.x-k8s.io "w" is invalid: spec: Invalid '
                         f'value: priority should not be nil when {field} is set`')
    assert not frag.workloads


@pytest.mark.parametrize("version, field, value, path", [
    ("v1beta1", "priorityClassName", '""', "spec.priorityClassName"),
    ("v1beta1", "priorityClassName", "Bad_Name", "spec.priorityClassName"),
    ("v1beta2", "priorityClassRef", "{group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: Bad_Name}",
     "spec.priorityClassRef.name")])
def test_a_class_name_outside_the_crds_pattern_is_refused(version, field, value, path):
    """The Workload CRD's pattern on the class's name, in kube-apiserver v1.35.3's words
    (tests/oracle/features/workload-v1beta1-checked-in-its-own-version.yaml); kadmit admitted such a Workload."""
    text = WORKLOAD.replace("v1beta1", version).replace("priorityClassName: research", f"{field}: {value}")
    frag, diags = read(text)
    (d,) = diags.items
    name = "" if value == '""' else "Bad_Name"
    assert d.code == "KAD157" and d.message == (
        f'the API server refuses the object: `Workload.kueue.x-k8s.io "w" is invalid: {path}: Invalid value: '
        f'"{name}": {path} in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$\'`')
    assert not frag.workloads


def test_a_refused_class_reference_is_refused_beside_its_missing_priority():
    """A reference of a kind its group does not hold (the CRD's rule on PriorityClassRef) and no priority: the API
    server gives both; a kind outside the schema's enum leaves the CRD's rules unchecked, so only it is said."""
    text = WORKLOAD.replace("priorityClassName: research", "priorityClassRef: {group: kueue.x-k8s.io, kind: "
                            "PriorityClass, name: r}").replace("v1beta1", "v1beta2").replace("  priority: 0\n", "")
    _, diags = read(text)
    assert sorted(d.message.split(":")[0] for d in diags.items) == [
        "`priorityClassRef` can't name `PriorityClass` in group `kueue.x-k8s.io`", "the API server refuses the object"]
    _, diags = read(text.replace("kind: PriorityClass", "kind: Other"))
    assert [d.message for d in diags.items] == ["`priorityClassRef` can't name `Other` in group `kueue.x-k8s.io`"]

def test_workload_spans_and_requests():
    frag, diags = read(WORKLOAD)
    assert [d.code for d in diags.items] == []
    (wl,) = frag.workloads
    assert wl.priority == 0  # spec.priority, whatever the class's value (Kueue's scheduler reads it only)
    ps = wl.pod_sets[0]
    assert ps.requests == {"cpu": 3000, "memory": 2**30 * 1000, "nvidia.com/gpu": 8000}
    assert at(ps.field_span("requests.cpu")) == (16, 39)  # the first container asking for cpu
    assert at(ps.field_span("requests.memory")) == (19, 42)
    assert at(ps.field_span("requests.nvidia.com/gpu")) == (20, 38)  # the limit standing in
    assert at(ps.field_span("count")) == (9, 12) and at(ps.field_span("min_count")) == (10, 15)
    assert at(ps.field_span("tolerations")) == (13, 22)
    assert at(wl.field_span("queue")) == (5, 14) and at(wl.field_span("priority_class")) == (6, 22)
    # no source: the class may be either kind; usage differs from count x requests, so it is kept
    assert wl.priority_class_kind is None
    assert wl.admission.pod_sets[0].count == 3
    assert wl.admission.pod_sets[0].usage == {"cpu": 10000, "memory": 3 * 2**30 * 1000, "nvidia.com/gpu": 24000}


def test_namespace_label_spans():
    frag, _ = read("""\
        apiVersion: v1
        kind: Namespace
        metadata:
          name: ns
          labels:
            team: vision
        """)
    (ns,) = frag.namespaces
    assert ns.labels == {"team": "vision"} and at(ns.field_span("labels.team")) == (6, 11)


def test_missing_field_span_falls_back_to_the_object():
    frag, _ = read("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n")
    assert at(frag.namespaces[0].field_span("labels.team")) == (1, 1)


def test_bad_object_is_skipped_and_the_next_is_read():
    frag, diags = read("""\
        apiVersion: v1
        kind: Node
        metadata: {name: bad}
        status: {allocatable: {cpu: lots}, conditions: [{type: Ready, status: "True"}]}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: good}
        status: {allocatable: {cpu: "4"}, conditions: [{type: Ready, status: "True"}]}
        """)
    assert [n.name for n in frag.nodes] == ["good"]
    assert [(d.code, d.span.line) for d in diags.items] == [("KAD158", 4)]


def test_a_node_is_ready_only_with_its_ready_condition_true():
    """Kueue's topology-aware scheduling counts a node only while its Ready condition is True, and a
    node with no Ready condition is not ready to it (pkg/util/tas IsNodeStatusConditionTrue;
    tests/oracle/features/tas-node-without-ready-condition.yaml): KAD182 says so where it is missing."""
    frag, diags = read("""\
        apiVersion: v1
        kind: Node
        metadata: {name: bare}
        status: {allocatable: {cpu: "4"}}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: unknown}
        status: {allocatable: {cpu: "4"}, conditions: [{type: MemoryPressure, status: "False"}, {type: Ready, status: Unknown}]}
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: ready}
        status: {allocatable: {cpu: "4"}, conditions: [{type: Ready, status: "True"}]}
        """)
    assert [(n.name, n.ready) for n in frag.nodes] == [("bare", False), ("unknown", False), ("ready", True)]
    assert [(d.code, d.severity.value, d.span.line, d.span.column) for d in diags.items] == [("KAD182", "warning", 3, 18)]
    assert "`bare`" in diags.items[0].message and "conditions: [{type: Ready" in diags.items[0].help


def test_unknown_kinds_warn_once_per_kind():
    frag, diags = read("""\
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: a}
        ---
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: b}
        ---
        apiVersion: networking.k8s.io/v1
        kind: Ingress
        metadata: {name: c}
        """)
    assert frag.model_copy(update={"skipped": [], "unread_kinds": []}) == Fragment()
    assert [(u.kind, u.span.line) for u in frag.unread_kinds] == [("ReplicaSet", 1), ("Ingress", 9)]
    assert [(s.object.kind, s.object.name) for s in frag.skipped] == [
        ("ReplicaSet", "a"), ("ReplicaSet", "b"), ("Ingress", "c")]
    assert [(d.code, d.severity.value, d.span.line) for d in diags.sorted()] == [
        ("KAD159", "warning", 1), ("KAD159", "warning", 9)]
    assert "2 objects" in diags.sorted()[0].message


def test_an_unread_kind_spelt_like_a_read_one_or_in_another_group_says_which():
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueu
        metadata: {name: a}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Job
        metadata: {name: b}
        ---
        apiVersion: v1
        kind: Nodes
        metadata: {name: c}
        ---
        apiVersion: example.com/v1
        kind: Widget
        metadata: {name: d}
        """)
    assert [(d.code, d.span.line, d.help) for d in diags.sorted()] == [
        ("KAD159", 1, "did you mean `ClusterQueue`?"), ("KAD159", 5, "kadmit reads `Job` in the API group `batch`"),
        ("KAD159", 9, "did you mean `Node`?"), ("KAD159", 13, None)]


def test_enum_typo_suggests_the_value():
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: cq}
        spec: {preemption: {withinClusterQueue: LowerPriorty}}
        """)
    (d,) = diags.items
    assert d.code == "KAD157" and d.help == "did you mean `LowerPriority`?"


def test_string_where_an_integer_goes_says_how_to_fix():
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: WorkloadPriorityClass
        metadata: {name: p}
        value: "100"
        """)
    (d,) = diags.items
    assert d.code == "KAD156" and d.help == "write it without quotes"


@pytest.mark.parametrize("source,kind", [
    ("kueue.x-k8s.io/workloadpriorityclass", "workload"),
    ("scheduling.k8s.io/priorityclass", "pod"),
])
def test_priority_class_source(source, kind):
    frag, diags = read(f"""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: Workload
        metadata: {{name: w, namespace: ns}}
        spec:
          queueName: q
          priorityClassName: p
          priorityClassSource: {source}
          priority: 5
          podSets: [{{name: main, template: {{spec: {{containers: [{{name: c}}]}}}}}}]
        """)
    assert not diags.items
    (wl,) = frag.workloads
    # the priority Kueue's scheduler reads is spec.priority (priority.Priority), whatever the class
    assert (wl.priority_class, wl.priority_class_kind, wl.priority) == ("p", kind, 5)


def test_every_code_is_registered_with_a_description():
    for n in range(150, 165):
        info = code_info(f"KAD{n}")
        assert info is not None and info.title and info.description


def test_kind_table_covers_the_brief():
    from kadmit.manifests.jobs import INTEGRATIONS, REFERENCED

    kinds = {kind for _, kind in KINDS}
    assert kinds - {i.kind for i in INTEGRATIONS} - {r[1] for r in REFERENCED} == {
        "ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass",
        "Topology", "Workload", "PriorityClass", "Namespace", "Node", "Pod", "Configuration", "ConfigMap",
        "PodGroup", "ResourceClaimTemplate", "DeviceClass", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "LimitRange", "RuntimeClass", "AdmissionCheck", "ProvisioningRequestConfig", "MultiKueueConfig",
        "MultiKueueCluster"}


def test_a_workload_without_spec_is_never_admitted_unless_it_holds_quota() -> None:
    # the Workload CRD requires no `spec` (the API server stores one with only `status`, as Kueue's KEPs
    # show them): no queue name, so Kueue never admits it; one holding quota for pod sets it lacks is
    # what Kueue's Workload webhook refuses (validateAdmission: each assignment names a pod set of the spec)
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: Workload
        metadata: {name: status-only, namespace: ns}
        status:
          admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 1}]}
        """)
    assert not frag.workloads and [d.code for d in diags.items] == ["KAD181", "KAD164"]
    # KAD181 says what Kueue does with it: no queue name, so not "queues it again"
    assert diags.items[0].message.endswith("Kueue holds no quota for it and puts it in no queue (it has no "
                                           "`spec.queueName`)")
    assert [s.reason for s in frag.skipped] == \
        ["it is never admitted: it has no `spec.queueName`, so it is in no queue of Kueue's"]
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: holding, namespace: ns}
        status:
          conditions: [{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m,
                        lastTransitionTime: '2026-01-01T00:00:00Z'}]
          admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 1}]}
        """)
    assert not frag.workloads
    # the API server refuses it first: the CRD's rule on the admission's pod sets reads `spec.podSets`, which it
    # lacks (CEL's `no such key`, as the oracle says), so it is refused alone
    refused, error = [d for d in diags.items if d.severity.name == "ERROR"]
    assert error.code == "KAD155" and (error.span.line, error.span.column) == (1, 1)
    assert "missing `spec` in workload `holding`, which holds quota" in error.message
    assert refused.code == "KAD157" and refused.message.endswith(
        '`<nil>: Invalid value: "object": no such key: podSets evaluating rule: podSetAssignments must have the same '
        'number of podSets as the spec`')


def test_a_topology_aware_flavor_without_node_labels_is_refused_as_the_api_server_does():
    """The ResourceFlavor CRD's rule `!has(self.topologyName) || self.nodeLabels.size() >= 1`: the object is
    skipped (KAD157) in the API server's words, the same for absent and empty `nodeLabels` (oracle:
    tests/oracle/features/*tas* carry `nodeLabels` for this reason)."""
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: none}
        spec: {topologyName: dc}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: empty}
        spec: {topologyName: dc, nodeLabels: {}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: good}
        spec: {topologyName: dc, nodeLabels: {pool: tas}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: plain}
        """)
    assert [f.name for f in frag.flavors] == ["good", "plain"]
    assert [(d.code, d.span.line, d.span.column) for d in diags.items] == [("KAD157", 4, 22), ("KAD157", 9, 38)]
    for d, name in zip(diags.items, ("none", "empty")):  # an empty map is dropped by Kueue's webhook's patch
        assert d.message.endswith(f'"{name}" is invalid: spec: Invalid value: "object": no such key: nodeLabels '
                                  'evaluating rule: at least one nodeLabel is required when topology is set`')
