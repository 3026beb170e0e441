"""Strict field validation: unknown fields of every kind kadmit reads are errors at their key."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import KINDS, read_manifest_text, schema
from kadmit.manifests.schema import coverage


def read(text: str):
    diags = Diagnostics()
    frag = read_manifest_text(textwrap.dedent(text), "m.yaml", diags)
    return frag, diags


def found(diags: Diagnostics) -> list[tuple[str, int, int, str | None]]:
    return [(d.code, d.span.line, d.span.column, d.help) for d in diags.sorted()]


def test_misspelt_quota_and_selector_are_errors_with_did_you_mean() -> None:
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cq}
        spec:
          namespaceSelecter: {}
          resourceGroups:
          - coveredResources: [cpu]
            flavors:
            - name: default
              resources:
              - name: cpu
                nominalQuota: 9
                lendingLimt: 2
        """)
    assert found(diags) == [
        ("KAD180", 5, 3, "did you mean `namespaceSelector`?"),
        ("KAD180", 13, 9, "did you mean `lendingLimit`?")]
    assert "spec.resourceGroups[0].flavors[0].resources[0].lendingLimt" in diags.sorted()[1].message
    # the object is still read, without the field
    assert frag.cluster_queues[0].resource_groups[0].flavors[0].resources[0].lending_limit is None


def test_core_kinds_pod_templates_and_a_kueue_kinds_status_are_checked_a_pods_status_is_not() -> None:
    """A Workload's status is checked against its CRD's status schema, as the API server checks a status write
    (schema.status: an unknown field is its strict decoding's refusal); a Pod's status is not."""
    _, diags = read("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: default, labls: {a: b}}
        spec:
          containers:
          - name: c
            resources: {requets: {cpu: 1}}
            image: busybox
        status:
          phase: Running
          anythingAtAll: 1
        ---
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: Workload
        metadata: {name: w, namespace: default}
        spec:
          queueName: q
          podSets:
          - name: main
            count: 1
            template:
              metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}
              spec:
                containers: [{name: c, resources: {requests: {cpu: 1}}}]
                nodeSelecter: {a: b}
        status:
          madeUp: true
        """)
    assert found(diags) == [
        ("KAD180", 3, 41, "did you mean `labels`?"),
        ("KAD180", 7, 17, "did you mean `requests`?"),
        ("KAD180", 25, 9, "did you mean `nodeSelector`?"),
        ("KAD180", 27, 3, None)]


def test_configuration_alone_and_in_its_config_map() -> None:
    _, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        resources:
          excludeResourcePrefix: [example.com/]
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config, namespace: kueue-system}
        data:
          controller_manager_config.yaml: |
            apiVersion: config.kueue.x-k8s.io/v1beta1
            kind: Configuration
            fairSharing:
              enabel: true
        """)
    assert found(diags) == [
        ("KAD180", 4, 3, "did you mean `excludeResourcePrefixes`?"),
        ("KAD180", 14, 7, "did you mean `enable`?")]
    assert "ConfigMap `kueue-manager-config`" in diags.sorted()[1].message


def test_a_cluster_queue_field_of_a_later_kueue_is_unknown() -> None:
    """kueue.json is Kueue v0.17.0's CRDs: concurrentAdmissionPolicy came later (tests/kube/test_crd_trees.py:
    the API server with v0.17.0's CRDs refuses it too)."""
    assert all(schema.source_of("kueue.x-k8s.io", v, k).startswith("kubernetes-sigs/kueue@v0.17.0 ")
               for k in coverage.FIELDS if k != "Configuration" for v in schema.versions_of("kueue.x-k8s.io", k))
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cq}
        spec:
          concurrentAdmissionPolicy: {migration: {mode: Disabled}}
        """)
    (d,) = diags.sorted()
    assert (d.code, d.span.line, d.span.column) == ("KAD180", 5, 3)
    assert "spec.concurrentAdmissionPolicy" in d.message


def test_a_crds_pod_template_has_the_fields_of_its_own_copy_of_the_pod_spec() -> None:
    """training-operator v1.9.3's PodSpec was generated against an older Kubernetes (no pod-level `resources`, no
    `lifecycle.stopSignal`; controller-gen's embedded ObjectMeta keeps five fields): strict field validation refuses
    them (tools/kube-apiserver v1.35.3, `kubectl apply --dry-run=server`). A null field the schema lacks is taken,
    as `kubectl apply` drops it before it sends the object."""
    _, diags = read("""\
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: p, namespace: ns}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                metadata: {generateName: m-, creationTimestamp: null}
                spec:
                  resources: {requests: {cpu: "1"}}
                  bogus: null
                  containers: [{name: c, image: x, lifecycle: {stopSignal: SIGTERM}}]
        """)
    assert [(d.code, d.span.line, d.message.split("`")[1]) for d in diags.sorted()] == [
        ("KAD180", 9, "spec.pytorchReplicaSpecs.Master.template.metadata.generateName"),
        ("KAD180", 11, "spec.pytorchReplicaSpecs.Master.template.spec.resources"),
        ("KAD180", 13, "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].lifecycle.stopSignal")]


def test_a_field_of_another_version_says_which() -> None:
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: a}
        spec: {cohortName: research}
        """)
    (d,) = diags.sorted()
    assert (d.code, d.severity.value) == ("KAD162", "error")
    assert "`kueue.x-k8s.io/v1beta2`" in d.message and d.help == "in `kueue.x-k8s.io/v1beta1`, did you mean `cohort`?"


def test_every_kind_and_version_read_has_a_schema() -> None:
    for (group, kind), spec in KINDS.items():
        for version in spec.versions:
            assert schema.schema_for(group, version, kind) is not None, (group, version, kind)
            assert schema.source_of(group, version, kind)


def test_core_trees_are_of_the_kubernetes_release_the_api_server_runs() -> None:
    """data/core.json comes from the OpenAPI v3 of the kube-apiserver tools/kube-apiserver builds (v1.35.3,
    as Kueue v0.17.0's go.mod): `tools/gen_schemas.py core DIR`. tests/kube/test_core_trees.py checks it is
    what that server serves now."""
    gomod = (Path(__file__).resolve().parents[2] / "tools" / "kube-apiserver" / "go.mod").read_text()
    release = re.search(r"^\s*k8s\.io/kubernetes (v1\.\d+\.\d+)", gomod, re.M).group(1)
    assert schema._core()["source"] == f"kube-apiserver {release} (/openapi/v3)"


def test_knows_walks_lists_and_maps() -> None:
    tree = {"o": {"a": {"l": {"o": {"b": "s"}}}, "m": {"m": {"o": {"c": "s"}}}, "free": "*"}}
    assert schema.knows(tree, ("a", 0, "b"))
    assert not schema.knows(tree, ("a", 0, "x"))
    assert schema.knows(tree, ("m", "any-key", "c"))
    assert schema.knows(tree, ("free", "deep", 3))
    # v1.35's Pod has the alpha `spec.workloadRef` (KEP-4671's first shape); `spec.schedulingGroup` came in v1.36
    assert schema.knows(schema.schema_for("", "v1", "Pod"), ("spec", "workloadRef", "podGroupReplicaKey"))
    assert not schema.knows(schema.schema_for("", "v1", "Pod"), ("spec", "schedulingGroup"))


# --- fields Kueue knows and kadmit does not model ------------------------------------------------

def _paths(tree, prefix=()):
    """Every field path of a tree, list steps as `[]`, not entering Kubernetes types."""
    if not isinstance(tree, dict):
        return
    if "o" in tree:
        for key, sub in tree["o"].items():
            yield prefix + (key,)
            yield from _paths(sub, prefix + (key,))
    elif "l" in tree:
        yield from _paths(tree["l"], prefix + ("[]",))


@pytest.mark.parametrize("kind", sorted(coverage.FIELDS))
def test_every_field_of_kueues_kinds_is_classified(kind) -> None:
    group = "config.kueue.x-k8s.io" if kind == "Configuration" else "kueue.x-k8s.io"
    for version in schema.versions_of(group, kind):
        tree = schema.schema_for(group, version, kind)
        root = tree if kind == "Configuration" else tree["o"].get("spec", {"o": {}})
        for path in _paths(root):
            joined = ".".join(path).replace(".[]", "[]")
            parent_of_listed = any(k.startswith(joined + ".") or k.startswith(joined + "[]")
                                   for k in coverage.FIELDS[kind])
            assert coverage.entry_for(kind, path) is not None or parent_of_listed, (version, path)


def test_unmodelled_fields_warn_where_set_and_defaults_do_not() -> None:
    _, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta1
        kind: ClusterQueue
        metadata: {name: cq}
        spec:
          admissionChecks: [prov-req]
          admissionChecksStrategy: {admissionChecks: []}
        ---
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        featureGates: {}
        waitForPodsReady: {timeout: 5m, blockAdmission: true}
        resources:
          transformations:
          - {input: nvidia.com/mig-1g.5gb, strategy: Replace, outputs: {example.com/gpu-memory: 5Gi}}
        """)
    # admission checks are modelled (kadmit.modelchecks): only waitForPodsReady is reported
    assert [(d.code, d.span.line) for d in diags.sorted()] == [("KAD161", 11)]
    first = diags.sorted()[0].message
    assert "`waitForPodsReady` of `Configuration`" in first and "may differ from Kueue's" in first


def test_preemption_gates_have_no_effect_under_the_default_feature_gates() -> None:
    """A Workload's closed preemption gates: Kueue v0.17.0's scheduler reads them only under the
    MultiKueueOrchestratedPreemption gate (off by default), so they warn of nothing; the gate turned on is
    modelled, and warns of nothing either (tests/oracle/features/preemption-gates-closed-preempt-under-default-gates.yaml,
    feature-gate-multikueue-orchestrated-preemption-on.yaml); the Workload reads as gated."""
    workload = """\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: w, namespace: ns}
        spec:
          queueName: lq
          preemptionGates: [{name: example.com/gate}]
          podSets:
          - {name: main, count: 1, template: {spec: {containers: [{name: c, image: i}]}}}
        """
    _, diags = read(workload)
    assert found(diags) == []
    _, diags = read(workload.rstrip(" ") + """\
        ---
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        featureGates: {MultiKueueOrchestratedPreemption: true}
        """)
    assert found(diags) == []
    frag, _ = read(workload)
    assert frag.workloads[0].preemption_gated


def test_docs_kueue_fields_md_is_generated() -> None:
    doc = Path(__file__).parents[2] / "docs" / "KUEUE-FIELDS.md"
    assert doc.read_text(encoding="utf-8") == coverage.markdown(), (
        "docs/KUEUE-FIELDS.md is stale: run `python -m kadmit.manifests.schema.coverage > docs/KUEUE-FIELDS.md`")


@pytest.mark.parametrize("level, group", [("kueue.x-k8s.io/podset-required-topology: rack", "g"),
                                          ("kueue.x-k8s.io/podset-preferred-topology: rack", "g"),
                                          ("kueue.x-k8s.io/podset-unconstrained-topology: 'true'", None)])
def test_the_pod_set_group_annotation_is_read_beside_a_level(level: str, group: str | None) -> None:
    """Kueue's jobframework keeps `podset-group-name` only beside a required or preferred level
    (NewPodSetTopologyRequest); it is modelled, so nothing warns."""
    frag, diags = read(f"""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {{name: w, namespace: default}}
        spec:
          queueName: q
          podSets:
          - name: workers
            count: 4
            template:
              metadata:
                annotations:
                  kueue.x-k8s.io/podset-group-name: g
                  {level}
              spec:
                containers: [{{name: c}}]
                resourceClaims: [{{name: gpu, resourceClaimTemplateName: gpu-template}}]
        """)
    assert [d.code for d in diags.sorted()] == []
    assert frag.workloads[0].pod_sets[0].topology.group == group


def test_a_workloads_topology_request_names_its_group() -> None:
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: w, namespace: default}
        spec:
          queueName: q
          podSets:
          - name: workers
            count: 4
            topologyRequest: {required: rack, podSetGroupName: g}
            template: {spec: {containers: [{name: c}]}}
        """)
    assert [d.code for d in diags.sorted()] == []
    assert frag.workloads[0].pod_sets[0].topology.group == "g"


SLICED = """\
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: Workload
    metadata: {name: w, namespace: default}
    spec:
      queueName: q
      podSets:
      - name: workers
        count: 4
        template:
          metadata:
            annotations:
              kueue.x-k8s.io/podset-preferred-topology: block
              %s
          spec:
            containers: [{name: c}]
    """


def test_pod_set_slices_are_read_from_template_annotations() -> None:
    frag, diags = read(sliced(LEVEL, "size: '2'"))
    assert not diags.sorted()
    topo = frag.workloads[0].pod_sets[0].topology
    assert (topo.mode, topo.level, topo.slice_level, topo.slice_size) == ("preferred", "block", "rack", 2)


LEVEL = "required-topology: rack"


def sliced(*lines: str) -> str:
    return SLICED % ("\n" + " " * 14).join(f"kueue.x-k8s.io/podset-slice-{x}" for x in lines)


@pytest.mark.parametrize("extra, message, line", [
    ("'12'", "must not be a number", 13),
    ("lws\n              kueue.x-k8s.io/podset-slice-size: '2'", "cannot be set when", 14),
])
def test_pod_set_groups_are_validated_as_kueues_webhook_does(extra: str, message: str, line: int) -> None:
    _, diags = read(SLICED % f"kueue.x-k8s.io/podset-group-name: {extra}")
    errors = [d for d in diags.sorted() if d.severity == "error"]
    assert len(errors) == 1 and message in errors[0].message and errors[0].span.line == line


@pytest.mark.parametrize("lines, message, line", [
    ([LEVEL], "slice size", 13),
    (["size: '2'"], "cannot be set when", 13),
    ([LEVEL, "size: '8'"], "must not be greater than pod set count 4", 14),
    ([LEVEL, "size: '0'"], "greater than or equal to 1", 14),
    ([LEVEL, "size: two"], "numeric", 14),
])
def test_pod_set_slices_are_validated_as_kueues_webhook_does(lines: list[str], message: str, line: int) -> None:
    _, diags = read(sliced(*lines))
    errors = [d for d in diags.sorted() if d.severity == "error"]
    assert len(errors) == 1 and message in errors[0].message and errors[0].span.line == line


def test_job_kinds_are_checked_against_their_crds() -> None:
    _, diags = read("""\
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: q}}
        spec:
          replicatedJobs:
          - name: workers
            replicas: 2
            template:
              spec:
                paralelism: 2
                template:
                  spec:
                    containers: [{name: c, image: x, resources: {requests: {cpu: 1}}}]
        ---
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: lws}
        spec:
          leaderWorkerTemplate:
            size: 3
            workerTemplate:
              spec:
                containers: [{name: c, image: x, resources: {requets: {cpu: 1}}}]
        """)
    unknown = [(d.span.line, d.help) for d in diags.sorted() if d.code == "KAD180"]
    assert unknown == [(10, "did you mean `parallelism`?"), (23, "did you mean `requests`?")]


def test_every_integrated_job_kind_has_its_crd_schema() -> None:
    from kadmit.manifests.jobs import INTEGRATIONS

    for i in INTEGRATIONS:
        for version in i.versions:
            source = schema.source_of(i.group, version, i.kind)
            assert source and "not bundled" not in source, (i.group, version, i.kind, source)


# --- the fast check agrees with the full walk ----------------------------------------------------

_WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: w
  labels: {a: b}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      metadata: {annotations: {x: z}}
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
        tolerations: [{key: k, operator: Exists}]
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [a]}]}]}}}
status:
  anything: [1]
"""


def _collections(v, out):
    if v.kind in ("map", "seq"):
        out.append(v)
        for sub in (v.v.values() if v.kind == "map" else v.v):
            _collections(sub, out)
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_fast_known_check_agrees_with_the_full_walk(data) -> None:
    """`check` first checks that every field is known and of its type without building paths; wherever
    an unknown key, or a value of another shape or type, is put, the check and the walk agree."""
    from kadmit.manifests.yamltree import MAP, SEQ, STR, Val, parse_documents

    (node,) = parse_documents(_WORKLOAD, "w.yaml", Diagnostics())
    tree = schema.schema_for("kueue.x-k8s.io", "v1beta1", "Workload")
    assert schema._all_known(node, tree, ("status",)) and schema._problems(node, tree, ("status",)) == ([], [])
    maps = [c for c in _collections(node, []) if c.kind == MAP]
    for _ in range(data.draw(st.integers(0, 3))):
        target = data.draw(st.sampled_from(maps))
        key = data.draw(st.sampled_from(["x", "name", "spec", "containers", "status", "requests", "zz"]))
        shape = data.draw(st.sampled_from([STR, MAP, SEQ]))
        inner = {"x": Val(STR, "1", 0, 0, 0, 1)} if shape == MAP else [Val(MAP, {}, 0, 0, 0, 0)] if shape == SEQ else "v"
        sub = Val(shape, inner, 0, 0, 0, 1)
        if shape == MAP:
            sub.keys = {"x": (0, 0, 0, 1)}
        target.v[key] = sub
        target.keys[key] = (0, 0, 0, 1)
    skip = data.draw(st.sampled_from([("status",), (), ("spec",)]))
    assert schema._all_known(node, tree, skip) == (schema._problems(node, tree, skip) == ([], []))


def test_kueue_objects_being_deleted_are_read_so_or_reported_not_modelled() -> None:
    """A ClusterQueue being deleted (metadata.deletionTimestamp) is read as terminating; a Workload
    with no owner and Kueue's finalizer alone is not read (it goes); a ResourceFlavor or a Cohort is
    read as Kueue uses it while a finalizer holds it (no warning), and so is a LocalQueue (`deleting`:
    the validator reports it where its ClusterQueue has admission checks); a Workload with another
    finalizer stays (Kueue drops its own), read as it stands, without a warning; one a pod owns is read so
    too, with KAD161 at the timestamp saying what Kueue does to the pods instead."""
    frag, diags = read("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata: {name: cq, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [kueue.x-k8s.io/resource-in-use]}
        spec: {namespaceSelector: {}}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {name: lq, namespace: ns, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [x/y]}
        spec: {clusterQueue: cq}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: LocalQueue
        metadata: {name: stays, namespace: ns}
        spec: {clusterQueue: cq}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: goes, namespace: ns, deletionTimestamp: "2026-11-01T00:05:00Z"}
        spec: {queueName: lq, podSets: [{name: main, count: 1, template: {spec: {containers: []}}}]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: held, namespace: ns, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [x/y]}
        spec: {queueName: lq, podSets: [{name: main, count: 1, template: {spec: {containers: []}}}]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {name: pods, namespace: ns, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [x/y],
                   ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: "1"}]}
        spec: {queueName: lq, podSets: [{name: main, count: 1, template: {spec: {containers: []}}}]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata: {name: rf, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [kueue.x-k8s.io/resource-in-use]}
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Cohort
        metadata: {name: co, deletionTimestamp: "2026-11-01T00:05:00Z", finalizers: [x/y]}
        """)
    got = [(d.code, d.span.line) for d in diags.sorted() if d.code == "KAD161"]
    assert got == [("KAD161", 28)], got
    (pods,) = [d.message for d in diags.sorted() if d.code == "KAD161"]
    assert [q.deleting for q in frag.local_queues] == [True, False]
    assert "`Workload` `pods`" in pods and "Kueue's pod reconciler deletes its pods" in pods
    assert [cq.terminating for cq in frag.cluster_queues] == [True]
    assert [w.name for w in frag.workloads] == ["held", "pods"]
    assert [s.reason for s in frag.skipped if "goes" in s.reason] == [
        "it is being deleted (`metadata.deletionTimestamp`) and has no owner: Kueue's workload controller "
        "drops its finalizer and it goes, with any quota it holds"]
