"""TrainJob: the JobSet its runtime builds, with the TrainJob's numNodes and resourcesPerNode."""

from __future__ import annotations

from pathlib import Path

from .helpers import SETUP, model_of

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: {kind}
metadata:
  name: torch-distributed
spec:
  mlPolicy:
    numNodes: 1
    torch: {{}}
  template:
    spec:
      replicatedJobs:
      - name: dataset-initializer
        template:
          spec:
            template:
              spec:
                containers: [{{name: dataset-initializer, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
      - name: node
        template:
          metadata:
            labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers:
                - {{name: node, image: x, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}
                - {{name: sidecar, image: "y", resources: {{requests: {{cpu: 500m}}}}}}
"""
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: train
  labels: {{kueue.x-k8s.io/queue-name: user-queue}}
spec:
  runtimeRef: {{name: torch-distributed, kind: {kind}}}
  trainer:
    numNodes: 3
    resourcesPerNode:
      requests: {{cpu: "2"}}
"""


def test_trainjob_takes_its_runtimes_jobs_with_its_own_nodes_and_resources(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="ClusterTrainingRuntime"),
                 tj__yaml=TRAINJOB.format(kind="ClusterTrainingRuntime"))
    (wl,) = m.workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("dataset-initializer", 1), ("node", 3)]
    # the node container's resources become resourcesPerNode whole (cpu 2, no memory: Trainer v2.2
    # replaces them, as Kueue v0.17's oracle shows); the sidecar's 500m is kept
    assert wl.pod_sets[1].requests == {"cpu": 2500}
    assert "the trainer" in wl.pod_sets[1].origin and m.skipped == ()


def test_a_namespaced_runtime_is_looked_up_in_the_trainjobs_namespace(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="TrainingRuntime"),
                 tj__yaml=TRAINJOB.format(kind="TrainingRuntime"))
    assert len(m.workloads) == 1


def test_without_its_runtime_a_trainjob_is_listed_with_the_reason(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, tj__yaml=TRAINJOB.format(kind="ClusterTrainingRuntime"))
    assert m.workloads == () and "ClusterTrainingRuntime `torch-distributed`" in m.skipped[0].reason


PATCHED = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  runtimeRef: {name: torch-distributed}
  runtimePatches:
  - manager: example.io/a
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  metadata:
                    annotations: {kueue.x-k8s.io/podset-required-topology: rack}
                  spec:
                    nodeSelector: {pool: gpu}
                    tolerations: [{key: gpu, operator: Exists}]
                    containers: [{name: node, env: [{name: A, value: b}]}]
  - manager: example.io/b
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    nodeSelector: {zone: z1}
"""


def test_runtime_patches_reach_the_pod_set_of_the_job_they_name(tmp_path):
    """Trainer v2.2's runtimePatches (the TrainJob API Kueue v0.17 reads): node selectors merged
    key by key in order, tolerations replaced; a Kueue topology annotation in a patch's pod template is the
    pod set's topology request, as Kueue reads it of the JobSet the patch is merged into (oracle:
    trainjob-runtime-patch-topology-annotation.yaml), not said to be unmodelled (KAD161)."""
    from kadmit.workspace import load

    from .helpers import write

    ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="ClusterTrainingRuntime"),
                    tj__yaml=PATCHED))
    (wl,) = ws.model.workloads
    init, node = wl.pod_sets
    assert init.node_selector == {} and init.tolerations == () and init.topology is None
    assert node.node_selector == {"pool": "gpu", "zone": "z1"}
    assert [(t.key, t.operator) for t in node.tolerations] == [("gpu", "Exists")]
    assert (node.topology.mode, node.topology.level) == ("required", "rack")
    assert [d.code for d in ws.diagnostics] == ["KAD210"]  # a topology requested where no flavor has one


def test_pod_set_annotations_of_two_patches_are_merged_as_the_trainer_merges_them(tmp_path):
    """Two patches (or the runtime's template and a patch) setting a job's `podset-*` annotations are merged key by
    key (mergeRuntimePatches): a required and a preferred level then, which Kueue's TrainJob webhook refuses (the
    oracle's words: tests/oracle/features/trainjob-runtime-patch-topology-annotations-merged.yaml), at the last
    patch; kadmit read the runtime's alone before (KAD161)."""
    from kadmit.workspace import load

    from .helpers import write

    twice = PATCHED.replace("                    nodeSelector: {zone: z1}",
                            "                    nodeSelector: {zone: z1}\n"
                            "                  metadata:\n"
                            "                    annotations: {kueue.x-k8s.io/podset-preferred-topology: rack}")
    ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="ClusterTrainingRuntime"),
                    tj__yaml=twice))
    assert ws.model.workloads == () and [d.code for d in ws.diagnostics] == ["KAD170"]
    assert "job[node].annotations: Invalid value: must not contain more than one topology annotation" in \
        next(iter(ws.diagnostics)).message


def test_pod_set_annotations_of_the_runtime_and_a_patch_are_merged(tmp_path):
    """The oracle case: the patch's required hostname over the runtime's required rack (pending, as Kueue leaves
    it), the runtime's slice level with the patch's slice size (admitted, one pod per node), two modes refused."""
    from kadmit.workspace import load

    case = Path(__file__).parents[1] / "oracle/features/trainjob-runtime-patch-topology-annotations-merged.yaml"
    ws = load([str(case)])
    assert [d.code for d in ws.diagnostics] == ["KAD170"] and [s.object.name for s in ws.model.skipped] == ["two-modes"]
    topology = {w.origin.name: w.pod_sets[0].topology for w in ws.model.workloads}
    assert (topology["replace"].mode, topology["replace"].level) == ("required", "kubernetes.io/hostname")
    slices = topology["slice-size"]
    assert (slices.mode, slices.level, slices.slice_level, slices.slice_size) == (
        "required", "example.com/rack", "kubernetes.io/hostname", 1)
    lines = case.read_text().splitlines()  # located at the patch's replicated job
    assert lines[slices.span.line - 1].strip() == "- name: node" and slices.span.line > lines.index("  name: slice-size")


def test_succeeded_jobs_come_off_their_pod_set(tmp_path):
    """Kueue's TrainJob.ReclaimablePods: a `jobsStatus` entry's succeeded Jobs, when more than none
    and at most its replicated job's replicas, times the child JobSet's pods per Job come off that
    pod set (the reconciler writes them to the Workload's status.reclaimablePods). A suspended
    TrainJob that ran: the trainer (3 nodes, replicas 1: its one Job) finished whole; the
    initializer's status counts more Jobs than its replicas, so nothing of it comes off."""
    status = """\
  suspend: true
status:
  jobsStatus:
  - {name: dataset-initializer, succeeded: 2, active: 0}
  - {name: node, succeeded: 1, active: 0}
  - {name: no-such-job, succeeded: 1, active: 0}
"""
    tj = TRAINJOB.format(kind="ClusterTrainingRuntime")
    m = model_of(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="ClusterTrainingRuntime"),
                 tj__yaml=tj + status)
    (wl,) = m.workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("dataset-initializer", 1), ("node", 0)]
    assert "0 of its 3 pods: 3 reclaimable (finished)" in wl.pod_sets[1].origin


def test_a_runtime_patchs_empty_toleration_is_warned_in_a_jobs_words(tmp_path):
    """A patch's `tolerations: [{}]` replace the runtime's: the TrainJob's JobSet is stored unvalidated and each
    Job its controller makes is refused (KAD199, the Job's words); a patch's valid tolerations replacing the
    runtime's `[{}]` leave nothing refused (the other replicated job, unpatched, still is)."""
    from kadmit.workspace import load

    from .helpers import write

    words = ('spec.template.spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is '
             'empty, which means "match all values and all keys"')
    ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=RUNTIME.format(kind="ClusterTrainingRuntime"),
                    tj__yaml=PATCHED.replace("tolerations: [{key: gpu, operator: Exists}]", "tolerations: [{}]")))
    (warning,) = [d.message for d in ws.diagnostics if d.code == "KAD199"]
    assert warning.startswith(f"the API server refuses every Job made of pod set `node` of TrainJob `default/train`: "
                              f"`{words}`"), warning
    runtime = RUNTIME.format(kind="ClusterTrainingRuntime").replace("              spec:\n                containers",
                                                                    "              spec:\n                tolerations: [{}]\n"
                                                                    "                containers")
    ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=runtime, tj__yaml=PATCHED))
    assert [d.message.split(": `")[0] for d in ws.diagnostics if d.code == "KAD199"] == [
        "the API server refuses every Job made of pod set `dataset-initializer` of TrainJob `default/train`"]


def test_a_runtime_patchs_node_affinity_is_checked_in_a_jobs_words(tmp_path):
    """A patch's node affinity reaches the Jobs made of the TrainJob's JobSet (stored unvalidated): `matchFields`
    or `matchExpressions` the API server refuses make each Job refused (KAD199, the Job's words), and Kueue parses
    the pod set's affinity as it does any (KAD246: tests/oracle/features/trainjob-runtime-patch-node-affinity-
    unparsable.yaml); a patch's valid required affinity replacing the runtime's refused one leaves nothing refused
    (its list has no merge key), where one setting preferred terms only leaves the runtime's required words."""
    from kadmit.workspace import load

    from .helpers import write

    bad = "{nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: Exists}]}]}"
    good = "{nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}]}"
    words = ("spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             'nodeSelectorTerms[0].matchFields[0].operator: Invalid value: "Exists": not a valid selector operator')

    def patched(affinity: str) -> str:
        return PATCHED.replace("tolerations: [{key: gpu, operator: Exists}]", f"affinity: {{nodeAffinity: {affinity}}}")

    def refused(runtime: str, trainjob: str) -> list[str]:
        ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=runtime, tj__yaml=trainjob))
        return [d.message for d in ws.diagnostics if d.code == "KAD199"]

    runtime = RUNTIME.format(kind="ClusterTrainingRuntime")
    (warning,) = refused(runtime, patched(f"{{requiredDuringSchedulingIgnoredDuringExecution: {bad}}}"))
    assert warning.startswith("the API server refuses every Job made of pod set `node` of TrainJob `default/train`: "
                              f"`{words}`"), warning
    bad_runtime = runtime.replace("              spec:\n                containers:\n",
                                  "              spec:\n                affinity: {nodeAffinity: "
                                  f"{{requiredDuringSchedulingIgnoredDuringExecution: {bad}}}}}\n"
                                  "                containers:\n")
    assert [w.split(": `")[0] for w in refused(bad_runtime, patched("{}"))] == [
        "the API server refuses every Job made of pod set `node` of TrainJob `default/train`"]
    assert refused(bad_runtime, patched(f"{{requiredDuringSchedulingIgnoredDuringExecution: {good}}}")) == []
    preferred = f"{{preferredDuringSchedulingIgnoredDuringExecution: [{{weight: 1, preference: {{matchExpressions: " \
                "[{key: pool, operator: In, values: [gpu]}]}}]}"
    assert len(refused(bad_runtime, patched(preferred))) == 1


def test_the_trainjob_webhook_refuses_its_runtimes_topology_annotations_in_kueues_words():
    # oracle: the same file, Kueue's words for each TrainJob (trainjob_webhook.go validateTopologyRequest)
    from pathlib import Path

    from kadmit.workspace import load
    path = Path(__file__).parents[1] / "oracle/features/trainjob-runtime-topology-annotations-refused.yaml"
    advice = ('. Adjust either the "TrainJob.spec.runtimePatches" or the "TrainingRuntime.Template" annotations for '
              "the corresponding Job")
    got = sorted(d.message for d in load([str(path)]).diagnostics if d.code == "KAD170")
    assert got == [f"Kueue's webhook refuses TrainJob `{name}`: job[node].annotations[kueue.x-k8s.io/{words}{advice}"
                   for name, words in (
                       ("tjb", "podset-slice-size]: Forbidden: may not be set when "
                               "'kueue.x-k8s.io/podset-slice-required-topology' is not specified"),
                       ("tjl", "podset-slice-required-topology-constraints]: Forbidden: the TASMultiLayerTopology "
                               "feature gate must be enabled to use this annotation"),
                       ("tju", 'podset-slice-size]: Invalid value: "3": must not be greater than pod set count 2'))]


def test_a_flux_trainjob_without_trainer_is_refused_as_kueues_webhook_panics(tmp_path):
    """Kueue's TrainJob webhook runs the flux plugin on a TrainJob being created, which dereferences its nil
    `trainer` (oracle: the case file, three skipped with the recovered panic, `with` admitted): refused (KAD170),
    queued or not, `trainer: null` too; `trainer: {}` is a trainer."""
    from kadmit.workspace import load

    case = Path(__file__).parents[1] / "oracle/features/trainjob-flux-without-trainer-refused.yaml"
    text = case.read_text() + ("---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: empty, "
                               "namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}\n"
                               "spec: {runtimeRef: {name: rt}, trainer: {}}\n")
    (tmp_path / "case.yaml").write_text(text)
    loaded = load([str(tmp_path)])
    said = [d for d in loaded.diagnostics if d.code == "KAD170"]
    assert [d.about[0].name for d in said] == ["bare", "null-trainer", "unqueued"]
    assert all("panic: runtime error: invalid memory address or nil pointer dereference [recovered]" in d.message
               for d in said)
    assert sorted(s.object.name for s in loaded.model.skipped) == ["bare", "null-trainer", "unqueued"]
    assert sorted(w.origin.name for w in loaded.model.workloads) == ["empty", "with"]


def test_a_runtime_with_an_unknown_field_is_refused_alone_and_its_trainjob_says_so(tmp_path):
    """`kubectl apply` (strict field validation) refuses the runtime, so Kueue finds none for the TrainJob;
    the rest is decided (tests/oracle/features/trainjob-runtime-with-unknown-field-refused-alone.yaml)."""
    from kadmit.scope import blocking

    from .helpers import load, write
    runtime = RUNTIME.format(kind="ClusterTrainingRuntime").replace("torch: {}", "torch: {numProcPerNode: 4}")
    ws = load(write(tmp_path, setup__yaml=SETUP, rt__yaml=runtime,
                    tj__yaml=TRAINJOB.format(kind="ClusterTrainingRuntime")))
    assert [d.code for d in ws.diagnostics if d.severity.name == "ERROR"] == ["KAD180"]
    assert blocking(ws.model, list(ws.diagnostics)) == []
    assert ws.model.workloads == () and "is refused by the API server" in ws.model.skipped[0].reason


def test_pod_template_overrides_of_trainer_v2_1_are_refused_with_the_runtime_patches_to_write():
    """Trainer v2.2 (Kueue v0.17's) replaced `podTemplateOverrides` with `runtimePatches`: the API server refuses the
    TrainJob (oracle case trainjob-pod-template-overrides-refused-alone), and the help says what to write instead."""
    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests import read_manifest_text
    diags = Diagnostics()
    read_manifest_text("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t, namespace: ml}\n"
                       "spec:\n  runtimeRef: {name: torch}\n  podTemplateOverrides: [{targetJobs: [{name: node}]}]\n",
                       "t.yaml", diags)
    [d] = [d for d in diags if d.code == "KAD180"]
    assert d.span.line == 6 and "unknown field `spec.podTemplateOverrides`" in d.message
    assert d.help is not None and "replaced `podTemplateOverrides` with `runtimePatches`" in d.help
