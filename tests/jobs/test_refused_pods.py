"""A custom resource's pod template (a JobSet's, a RayCluster's, an AppWrapper component's) is stored by the API
server without validating it, and Kueue validates none of it: one holding an empty toleration (`[{}]`) is
admitted as Kueue admits it, but every pod (or Job) its controller makes of it is refused. kadmit warns (KAD199)
in the words of the object refused first, as tests/kube/test_empty_toleration.py reads them from the real server:
a JobSet's Job, a LeaderWorkerSet's StatefulSet, an MPIJob launcher's Job (`spec.template.spec.tolerations…`), else
the Pod (`spec.tolerations…`); and `admit`'s summary says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.workspace import load
from .helpers import SETUP, run, write

WORDS = ('spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means '
         '"match all values and all keys"')
IN_TEMPLATE = "spec.template." + WORDS  # a Job's, a StatefulSet's
POD = "{restartPolicy: Never, tolerations: [{}], containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]}"
JOBS = {
    "JobSet": f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{template: {{spec: {POD}}}}}}}}}
""",
    "AppWrapper": f"""\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {{name: aw, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  components:
  - template: {{apiVersion: batch/v1, kind: Job, metadata: {{name: j}}, spec: {{template: {{spec: {POD}}}}}}}
""",
    "LeaderWorkerSet": f"""\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {{name: lws, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  leaderWorkerTemplate: {{size: 2, workerTemplate: {{spec: {POD}}}}}
""".replace("restartPolicy: Never, ", ""),  # a StatefulSet's pods restart Always,
    **{kind: f"""\
apiVersion: {api}
kind: {kind}
metadata: {{name: {kind.lower()}, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec: {{{specs}: {{{replica}: {{replicas: 1, template: {{spec: {POD}}}}}}}}}
""" for kind, api, specs, replica in (("MPIJob", "kubeflow.org/v2beta1", "mpiReplicaSpecs", "Launcher"),
                                     ("PyTorchJob", "kubeflow.org/v1", "pytorchReplicaSpecs", "Master"))},
}
# the object the API server refuses first: its words, and how KAD199 names it
REFUSED = {"JobSet": (IN_TEMPLATE, "Job made"), "AppWrapper": (IN_TEMPLATE, "Job made"),
           "LeaderWorkerSet": (IN_TEMPLATE, "StatefulSet made"), "MPIJob": (IN_TEMPLATE, "Job made"),
           "PyTorchJob": (WORDS, "pod")}


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_custom_resources_template_with_an_empty_toleration_is_admitted_and_warned(kind: str, tmp_path: Path) -> None:
    paths = write(tmp_path, setup__yaml=SETUP, job__yaml=JOBS[kind])
    ws = load(paths)
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    (warning,) = [d for d in ws.diagnostics if d.code == "KAD199"]
    words, made = REFUSED[kind]
    assert f"{kind} `default/" in warning.message and f"`{words}`" in warning.message, warning.message
    assert warning.message.startswith(f"the API server refuses every {made} of pod set `"), warning.message
    r = run("admit", *paths)
    assert r.exit_code == 0, r.output
    assert "the API server refuses every pod of a pod set (KAD199)" in r.stdout, r.stdout


def test_a_workloads_template_with_an_empty_toleration_is_not_warned(tmp_path: Path) -> None:
    """A Workload written as such has no controller making pods of it: nothing is refused."""
    workload = f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: wl, namespace: default}}
spec:
  queueName: user-queue
  podSets: [{{name: main, count: 1, template: {{spec: {POD}}}}}]
"""
    paths = write(tmp_path, setup__yaml=SETUP, wl__yaml=workload)
    ws = load(paths)
    assert not [d for d in ws.diagnostics if d.code in ("KAD199", "KAD157")], [str(d) for d in ws.diagnostics]
    assert "KAD199" not in run("admit", *paths).stdout


def test_a_keyed_toleration_is_not_warned(tmp_path: Path) -> None:
    keyed = JOBS["JobSet"].replace("tolerations: [{}]", "tolerations: [{key: a}, {operator: Exists}]")
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=keyed))
    assert not [d for d in ws.diagnostics if d.code == "KAD199"], [str(d) for d in ws.diagnostics]


def test_a_jobset_template_the_job_takes_is_warned_in_a_pods_words(tmp_path: Path) -> None:
    """A pod-level limit with no request: a Job's template is validated as written (no request to check: the
    real server creates the Job), the Pod made of it has its request defaulted to its containers' 2 cpu
    (SetDefaults_Pod, defaultPodRequests), above the limit (the real server's words for such a Pod)."""
    below = JOBS["JobSet"].replace("tolerations: [{}], ", "resources: {limits: {cpu: 1}}, ").replace("cpu: 1}}}]", "cpu: 2}}}]")
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=below))
    (warning,) = [d.message for d in ws.diagnostics if d.code == "KAD199"]
    assert warning.startswith("the API server refuses every pod of pod set `w` of JobSet `default/js`: "
                              "`spec.resources.requests: Invalid value: \"2\": must be less than or equal to cpu "
                              "limit of 1`"), warning


def test_the_words_follow_validate_pod_specs_order(tmp_path: Path) -> None:
    """Containers', then init containers', then the pod's own resources, then tolerations (ValidatePodSpec; the
    real server's order, tests/kube/test_empty_toleration.py)."""
    spec = ('{restartPolicy: Never, resources: {limits: {example.com/gpu: 1}}, tolerations: [{}], containers: '
            '[{name: c, image: busybox, resources: {requests: {memory: 1Gi, hugepages-2Mi: 3Mi}, limits: {hugepages-2Mi: 3Mi}}}], '
            'initContainers: [{name: i, image: busybox, resources: {requests: {memory: 1Gi, hugepages-2Mi: 5Mi}, '
            'limits: {hugepages-2Mi: 5Mi}}}]}')
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=JOBS["JobSet"].replace(POD, spec)))
    (warning,) = [d.message for d in ws.diagnostics if d.code == "KAD199"]
    at = [warning.index(f"spec.template.spec.{w}") for w in ("containers[0]", "initContainers[0]",
                                                              "resources.limits[example.com/gpu]", "tolerations[0]")]
    assert at == sorted(at), warning


def test_a_restart_policy_the_made_object_refuses_is_warned(tmp_path: Path) -> None:
    """A JobSet's Job refuses restartPolicy Always, a LeaderWorkerSet's StatefulSet Never (after ValidatePodSpec's
    words, as the real server lists them: tests/kube/test_empty_toleration.py); an MPIJob's launcher Job takes its
    replica spec's restartPolicy (mpi-operator's setRestartPolicy), so its template's is not warned."""
    keyed = POD.replace("tolerations: [{}]", "tolerations: [{operator: Exists}]")
    always = keyed.replace("restartPolicy: Never", "restartPolicy: Always")
    jobs = {"JobSet": (JOBS["JobSet"].replace(POD, always),
                       'restartPolicy: Required value: valid values: "OnFailure", "Never"'),
            "LeaderWorkerSet": (JOBS["LeaderWorkerSet"].replace(POD.replace("restartPolicy: Never, ", ""), keyed),
                                'restartPolicy: Unsupported value: "Never": supported values: "Always"'),
            "MPIJob": (JOBS["MPIJob"].replace(POD, always), None)}
    for kind, (manifest, words) in jobs.items():
        (tmp_path / kind).mkdir()
        ws = load(write(tmp_path / kind, setup__yaml=SETUP, job__yaml=manifest))
        warned = [d.message.split(": `", 1)[1].split("`: ")[0] for d in ws.diagnostics if d.code == "KAD199"]
        assert warned == ([] if words is None else [f"spec.template.spec.{words}"]), (kind, warned)


def test_a_jobsets_job_with_a_pod_failure_policy_restarting_on_failure_is_warned(tmp_path: Path) -> None:
    """ValidateJobSpec takes only Never with a podFailurePolicy; the JobSet webhook makes an unset restartPolicy
    OnFailure (the real server's words: tests/kube/test_jobset_pod_failure_policy.py). Never is not warned."""
    policy = "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [42]}}]}, "
    for restart, warned in (("", True), ("restartPolicy: Never, ", False)):
        spec = "{" + restart + "containers: [{name: c, image: busybox}]}"
        jobset = JOBS["JobSet"].replace(f"template: {{spec: {{template: {{spec: {POD}}}}}}}",
                                        f"template: {{spec: {{{policy}template: {{spec: {spec}}}}}}}")
        assert jobset != JOBS["JobSet"]
        (tmp_path / str(warned)).mkdir()
        ws = load(write(tmp_path / str(warned), setup__yaml=SETUP, job__yaml=jobset))
        got = [d.message.split(": `", 1)[1].split("`: ")[0] for d in ws.diagnostics if d.code == "KAD199"]
        assert got == (['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
                        "podFailurePolicy is specified"] if warned else []), got


RAYJOB = """\
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: r, namespace: default, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  shutdownAfterJobFinishes: true
  entrypoint: python x.py
  submitterPodTemplate: {spec: SPEC}
  rayClusterSpec:
    headGroupSpec: {template: {spec: {containers: [{name: c, image: x}]}}}
"""


@pytest.mark.parametrize(("kind", "restart", "warned"), [
    ("AppWrapper", "", True), ("AppWrapper", "restartPolicy: OnFailure, ", False),
    ("RayJob", "", True), ("RayJob", "restartPolicy: Never, ", False),
    ("JobSet", "", False), ("AppWrapper-JobSet", "", False)])
def test_an_unset_restart_policy_the_maker_does_not_fill_is_warned(kind: str, restart: str, warned: bool,
                                                                  tmp_path: Path) -> None:
    """An AppWrapper's Job component is created as written (its controller fills no restartPolicy), and a RayJob's
    submitter Job copies its `submitterPodTemplate` (KubeRay v1.6.0 GetSubmitterTemplate, createNewK8sJob): an
    unset restartPolicy becomes the API server's Always, which ValidateJobSpec refuses (the real server's words:
    tests/kube/test_unset_restart_policy.py). A JobSet's Jobs, as a component or not, get the JobSet webhook's
    OnFailure."""
    spec = "{" + restart + "containers: [{name: c, image: busybox}]}"
    manifest = {"AppWrapper": JOBS["AppWrapper"].replace(POD, spec), "RayJob": RAYJOB.replace("SPEC", spec),
                "JobSet": JOBS["JobSet"].replace(POD, spec),
                "AppWrapper-JobSet": JOBS["AppWrapper"].replace(
                    f"apiVersion: batch/v1, kind: Job, metadata: {{name: j}}, spec: {{template: {{spec: {POD}}}}}",
                    "apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, metadata: {name: j}, spec: {replicatedJobs: "
                    f"[{{name: w, template: {{spec: {{template: {{spec: {spec}}}}}}}}}]}}")}[kind]
    assert spec in manifest
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=manifest))
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    got = [d.message for d in ws.diagnostics if d.code == "KAD199"]
    words = 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'
    assert [m.split(": `", 1)[1].split("`: ")[0] for m in got] == ([words] if warned else []), got
    if warned:
        assert got[0].startswith("the API server refuses every Job made of pod set "), got


def test_an_appwrapper_mpijobs_launcher_takes_its_replica_specs_restart_policy(tmp_path: Path) -> None:
    """mpi-operator sets the launcher Job's restartPolicy from the replica spec's (setRestartPolicy), in an
    AppWrapper as at the top level: the template's `Always` is not the Job's."""
    spec = "{restartPolicy: Always, containers: [{name: c, image: busybox}]}"
    mpijob = ("apiVersion: kubeflow.org/v2beta1, kind: MPIJob, metadata: {name: m}, spec: {mpiReplicaSpecs: "
              f"{{Launcher: {{replicas: 1, template: {{spec: {spec}}}}}}}}}")
    manifest = JOBS["AppWrapper"].replace(
        f"apiVersion: batch/v1, kind: Job, metadata: {{name: j}}, spec: {{template: {{spec: {POD}}}}}", mpijob).replace(
        "  - template:", "  - podSets: [{path: template.spec.mpiReplicaSpecs.Launcher.template}]\n    template:")
    assert mpijob in manifest and "podSets" in manifest
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=manifest))
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    assert [d for d in ws.diagnostics if d.code == "KAD199"] == [], [str(d) for d in ws.diagnostics]


GROUP_CASE = Path(__file__).parents[1] / "oracle/features/job-template-pod-group-without-total-count-pods-refused.yaml"


def _loaded(case: Path, frameworks: str | None, tmp_path: Path):
    """The case's text, under a Configuration enabling `frameworks` (None: none, Kueue's defaults), and its loading."""
    text = case.read_text()
    if frameworks is not None:
        text = f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations:\n  frameworks: {frameworks}\n---\n" + text
    (tmp_path / "case.yaml").write_text(text)
    return text, load([str(tmp_path)])


@pytest.mark.parametrize("frameworks, warned", [(None, True), ("[batch/job, pod]", True), ("[batch/job]", False)])
def test_a_jobs_template_naming_a_pod_group_without_its_count_is_warned(frameworks, warned, tmp_path: Path) -> None:
    """A Job Kueue manages whose template names a pod group without its total count: Kueue admits the Job, its pod
    webhook (running where the pod integration, or one turning it on, is enabled) refuses every pod (KAD199, at the
    label, about the Job); the Job with its count is not warned. Without the pod integration its webhook is a no-op."""
    text, loaded = _loaded(GROUP_CASE, frameworks, tmp_path)
    found = [d for d in loaded.diagnostics if d.code == "KAD199"]
    assert [w.key for w in loaded.model.workloads] == ["ns-b/grouped", "ns-b/counted"]
    if not warned:
        assert found == []
        return
    [d] = found
    assert d.message.startswith("Kueue's pod webhook refuses every pod Job `ns-b/grouped` makes: metadata.annotations"
                                "[kueue.x-k8s.io/pod-group-total-count]: Required value: both the ")
    line = text.splitlines()[d.span.line - 1]
    assert "kueue.x-k8s.io/pod-group-name: g}" in line and [(a.kind, a.name) for a in d.about] == [("Job", "grouped")]


def _warned_at_labels(text: str, loaded, workloads: list[str], warned: list[str]) -> None:
    """Every workload made, and KAD199 said about each of `warned` (`Kind name`), at its template's group label."""
    found = [d for d in loaded.diagnostics if d.code == "KAD199"]
    assert sorted(w.key for w in loaded.model.workloads) == workloads
    assert [f"{a.kind} {a.name}" for d in found for a in d.about] == warned
    lines = text.splitlines()
    for d in found:
        assert d.message.split(" makes: ")[1].startswith("metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: "
                                                         "Required value: both the ")
        assert "kueue.x-k8s.io/pod-group-name: g" in lines[d.span.line - 1]


KINDS_CASE = Path(__file__).parents[1] / "oracle/features/templates-pod-group-without-total-count-pods-refused.yaml"


@pytest.mark.parametrize("frameworks, warned", [
    (None, ["JobSet js", "PyTorchJob pt", "RayCluster rc"]),
    ("[batch/job, jobset.x-k8s.io/jobset, kubeflow.org/pytorchjob, ray.io/raycluster, pod]",
     ["JobSet js", "PyTorchJob pt", "RayCluster rc"]),
    ("[batch/job, jobset.x-k8s.io/jobset, kubeflow.org/pytorchjob, ray.io/raycluster]", [])])
def test_other_kinds_templates_naming_a_pod_group_without_its_count_are_warned(frameworks, warned, tmp_path) -> None:
    """A JobSet's, a PyTorchJob's, a RayCluster's template naming a pod group without its total count: Kueue admits
    each (the oracle, every one of the case's four), and its pod webhook, where it runs, refuses each pod their
    controllers make, as a batch Job's: KAD199 at each label, about its object. Without the pod integration none."""
    text, loaded = _loaded(KINDS_CASE, frameworks, tmp_path)
    _warned_at_labels(text, loaded, ["ns/js", "ns/plain", "ns/pt", "ns/rc"], warned)


MORE_KINDS_CASE = Path(__file__).parents[1] / "oracle/features/templates-of-more-kinds-pod-group-without-total-count-pods-refused.yaml"
MORE_KINDS = "[batch/job, jobset.x-k8s.io/jobset, ray.io/rayservice, workload.codeflare.dev/appwrapper, trainer.kubeflow.org/trainjob"


@pytest.mark.parametrize("frameworks, warned", [
    (None, ["AppWrapper aw", "RayService rs", "TrainJob tj", "JobSet js"]),
    (MORE_KINDS + ", pod]", ["AppWrapper aw", "RayService rs", "TrainJob tj", "JobSet js"]),
    (MORE_KINDS + "]", [])])
def test_more_kinds_templates_naming_a_pod_group_without_its_count_are_warned(frameworks, warned, tmp_path) -> None:
    """An AppWrapper's, a RayService's and a TrainJob's (its runtime's) template naming a pod group without its total
    count, and the Job template of a JobSet naming no queue whose child Jobs Kueue takes: Kueue admits each (the
    oracle, all five of the case), and its pod webhook, where it runs, refuses every pod then made: KAD199 at each
    label (the TrainJob's in its runtime), about its object. Without the pod integration none."""
    text, loaded = _loaded(MORE_KINDS_CASE, frameworks, tmp_path)
    _warned_at_labels(text, loaded, ["ns/aw", "ns/js", "ns/plain", "ns/rs", "ns/tj"], warned)


def _patched_trainjob(name: str, metadata: str) -> str:
    """A TrainJob of the case's runtime `grouped` whose one runtime patch sets its `node` job's pod metadata."""
    patch = ("{manager: example.com/m, trainingRuntimeSpec: {template: {spec: {replicatedJobs: "
             f"[{{name: node, template: {{spec: {{template: {{metadata: {metadata}}}}}}}}}]}}}}}}}}")
    return (f"---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {{name: {name}, namespace: ns, "
            f"labels: {{kueue.x-k8s.io/queue-name: lq}}}}\nspec: {{runtimeRef: {{name: grouped}}, runtimePatches: [{patch}]}}\n")


def test_a_trainjobs_runtime_patches_merge_into_its_pod_group_metadata(tmp_path: Path) -> None:
    """The Trainer merges a TrainJob's runtime patches into its runtime's pod template key by key
    (mergeRuntimePatches), so Kueue's pod webhook sees the merged pod-group metadata: the runtime's group `g6`
    given its count by `counted`'s patch is not refused; `zero`'s count 0 is, at its patch; `plain` (no patch)
    keeps the runtime's refusal (KAD199)."""
    text = MORE_KINDS_CASE.read_text() + _patched_trainjob(
        "counted", "{annotations: {kueue.x-k8s.io/pod-group-total-count: '2'}}") + _patched_trainjob(
        "zero", "{annotations: {kueue.x-k8s.io/pod-group-total-count: '0'}}")
    (tmp_path / "case.yaml").write_text(text)
    found = {a.name: d for d in load([str(tmp_path)]).diagnostics if d.code == "KAD199"
             for a in d.about if a.kind == "TrainJob"}
    assert sorted(found) == ["tj", "zero"]
    assert ('metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value: "0": incorrect annotation '
            "value 'kueue.x-k8s.io/pod-group-total-count=0': group total count should be greater than zero"
            in found["zero"].message)
    lines = text.splitlines()
    assert "runtimePatches" in lines[found["zero"].span.line - 1] and "name: zero" in lines[found["zero"].span.line - 2]
