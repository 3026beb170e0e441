"""AppWrapper: a pod set per pod template of its components, declared or inferred."""

from __future__ import annotations

from .helpers import SETUP, model_of

WRAPPED_JOBSET = """\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: aw
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  components:
  - template:
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata: {name: js}
      spec:
        replicatedJobs:
        - name: w
          replicas: 2
          template:
            spec:
              parallelism: 3
              template:
                spec:
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
  - template:
      apiVersion: v1
      kind: Pod
      metadata: {name: p}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
  - podSets:
    - {path: template.spec.leaderWorkerTemplate.workerTemplate, replicas: 4}
    template:
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata: {name: l}
      spec:
        leaderWorkerTemplate:
          size: 4
          workerTemplate:
            spec:
              containers: [{name: c, image: x, resources: {requests: {cpu: "500m"}}}]
"""


def test_components_become_numbered_pod_sets(tmp_path):
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=WRAPPED_JOBSET).workloads
    assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == [
        ("aw-0", 6, 1000), ("aw-1", 1, 2000), ("aw-2", 4, 500)]
    assert "component 2 (LeaderWorkerSet)" in wl.pod_sets[2].origin


def test_an_unknown_component_without_pod_sets_is_reported(tmp_path):
    text = WRAPPED_JOBSET.split("  - template:\n      apiVersion: v1")[0].replace(
        "apiVersion: jobset.x-k8s.io/v1alpha2", "apiVersion: example.com/v1").replace("kind: JobSet", "kind: Thing")
    m = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=text)
    assert m.workloads == () and "declare `podSets`" in m.skipped[0].reason


def test_a_component_pod_is_what_getpodtemplatespec_copies(tmp_path):
    """AppWrapper hands Kueue a copy of each pod template (appwrapper pkg/utils GetPodTemplateSpec)
    without the runtime class, pod-level resources, resource claims and containers' restartPolicy:
    a sidecar counts as a plain init container (the most, not the sum) and no RuntimeClass overhead
    is added (tests/oracle/features/appwrapper-sidecar.yaml, appwrapper-overhead.yaml)."""
    pod = WRAPPED_JOBSET.split("  - template:\n      apiVersion: v1")[1].split("  - podSets:")[0]
    text = ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\n"
            "overhead: {podFixed: {cpu: 250m}}\n---\n"
            + WRAPPED_JOBSET.split("  components:\n")[0] + "  components:\n  - template:\n      apiVersion: v1" + pod)
    text = text.replace('      spec:\n        containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]',
                        '      spec:\n        runtimeClassName: kata\n'
                        '        containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]\n'
                        '        initContainers: [{name: s, image: x, restartPolicy: Always, '
                        'resources: {requests: {cpu: "500m"}}}]')
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=text).workloads
    assert [(p.name, p.requests["cpu"]) for p in wl.pod_sets] == [("aw-0", 2000)]


def test_an_empty_toleration_is_refused_only_where_the_api_server_validates_the_pod_spec(tmp_path):
    """`tolerations: [{}]` (key empty, operator Equal): the API server refuses it in a Job's template
    (ValidateTolerations), but an AppWrapper component is a RawExtension it does not validate, and
    Kueue takes the toleration as Kubernetes' ToleratesTaint does, tolerating any taint with an empty
    value (tests/oracle/features/appwrapper-empty-toleration.yaml)."""
    from kadmit.model import Taint
    from kadmit.workspace import load

    from .helpers import write

    pod = WRAPPED_JOBSET.split("  - template:\n      apiVersion: v1")[1].split("  - podSets:")[0]
    aw = (WRAPPED_JOBSET.split("  components:\n")[0] + "  components:\n  - template:\n      apiVersion: v1"
          + pod.replace("      spec:\n", "      spec:\n        tolerations: [{}]\n"))
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=aw).workloads
    (t,) = wl.pod_sets[0].tolerations
    assert t.tolerates(Taint(key="gpu", effect="NoSchedule"))
    assert not t.tolerates(Taint(key="gpu", value="a100", effect="NoSchedule"))
    job = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      tolerations: [{}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
    got = load(write(tmp_path, setup__yaml=SETUP, job__yaml=job))
    assert [d.code for d in got.diagnostics if d.severity.value == "error"] == ["KAD157"]


def test_a_path_is_walked_as_appwrappers_get_value_at_path_walks_it() -> None:
    """appwrapper pkg/utils getValueAtPath and GetRawTemplate, their errors word for word (a position names an
    index without its `]`, as their code builds it)."""
    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests.jobs.appwrapper import value_at
    from kadmit.manifests.yamltree import parse_documents

    (doc,) = parse_documents("template: {spec: {a: [{t: {spec: {}}}, 3], s: x, z: null}}\n", "t.yaml", Diagnostics())
    t = doc.get("template")
    assert value_at(t, "template.spec.a[0].t")[0] is t.v["spec"].v["a"].v[0].v["t"]
    assert value_at(t, "template")[0] is t
    for path, error in [
        ("spec.a", "first element of the path must be 'template'"),
        ("template.spec.b", "at path position 'template.spec.' missing field 'b'"),
        ("template.spec.a[2]", "at path position 'template.spec.a' out of bounds index '2'"),
        ("template.spec.a[-1]", "at path position 'template.spec.a' out of bounds index '-1'"),
        ("template.spec.a[x]", "at path position 'template.spec.a' invalid index expression 'x'"),
        ("template.spec.a[0", "at path position 'template.spec.a' invalid array index '[0'"),
        ("template.spec.s[0]", "at path position 'template.spec.s' found non-array value"),
        ("template.spec.a[1].t", "at path position 'template.spec.a[1.' non-map value"),
        ("template.spec.z.x", "at path position 'template.spec.z.' non-map value"),
        ("template.spec.s", "at path position 'template.spec.s' non-map value"),
        ("template.spec.a[0]x", "at path position 'template.spec.a[0' invalid path element 'x'"),
        ("templates.x", "at path position 'template' invalid path element 's.x'"),
    ]:
        assert value_at(t, path) == (None, error), path


def test_a_pod_sets_count_is_located_where_it_comes_from(tmp_path):
    """A pod set's count points at the `replicas` Kueue takes it from: the status's componentStatus entry once it
    lists every component, else the declared one (fuzz14: KAD258's count 0 pointed at the spec's template)."""
    text = WRAPPED_JOBSET + """\
status:
  componentStatus:
  - {name: js, kind: JobSet, apiVersion: jobset.x-k8s.io/v1alpha2, podSets: [{path: "template.spec.replicatedJobs[0].template.spec.template", replicas: 5}]}
  - {name: p, kind: Pod, apiVersion: v1, podSets: [{path: template}]}
  - {name: l, kind: LeaderWorkerSet, apiVersion: leaderworkerset.x-k8s.io/v1, podSets: [{path: template.spec.leaderWorkerTemplate.workerTemplate, replicas: 0}]}
"""
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=text).workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("aw-0", 5), ("aw-1", 1), ("aw-2", 0)]
    lines = text.splitlines()
    at = [wl.pod_sets[i].field_span("count") for i in (0, 2)]
    assert [lines[s.line - 1][s.column - 1:].split("}")[0] for s in at] == ["5", "0"]
    assert at[0].line == at[1].line - 2 and lines[at[0].line - 1].startswith("  - {name: js")


def test_a_component_naming_a_queue_under_an_appwrapper_naming_none_is_warned_at(tmp_path):
    # Kueue's webhook for the component's kind would take it as a job of its own (FindAncestorJobManagedByKueue
    # finds no ancestor naming a queue): not modelled (KAD161, at the component's queue name); none where the
    # AppWrapper names the queue (then Kueue admits the AppWrapper as a whole)
    from kadmit.workspace import load

    from .helpers import write
    unqueued = WRAPPED_JOBSET.replace("  labels: {kueue.x-k8s.io/queue-name: user-queue}\n", "").replace(
        "metadata: {name: js}", "metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}")
    assert unqueued != WRAPPED_JOBSET
    got = load(write(tmp_path, setup__yaml=SETUP, aw__yaml=unqueued))
    warned = [d for d in got.diagnostics if d.code == "KAD161"]
    assert len(warned) == 1 and "its JobSet `js` names LocalQueue `user-queue`" in warned[0].message
    assert warned[0].span.line == unqueued.splitlines().index(
        "      metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}") + 1
    queued = WRAPPED_JOBSET.replace("metadata: {name: js}",
                                    "metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}")
    assert not [d for d in load(write(tmp_path, setup__yaml=SETUP, aw__yaml=queued)).diagnostics
                if d.code == "KAD161"]
