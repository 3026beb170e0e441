"""What Kueue's webhooks refuse on create for every job kind, refused by kadmit too with Kueue's
message (KAD170). The messages are Kueue v0.17's, from the oracle's `convert` on the same file
(tests/oracle/jobs/refusals.yaml; tests/oracle/test_convert.py compares them whole)."""

from __future__ import annotations

import json
from pathlib import Path

from kadmit.workspace import load
from tests.jobs.helpers import SETUP, run, write

REFUSALS = Path(__file__).resolve().parents[1] / "oracle" / "jobs" / "refusals.yaml"


def refused() -> dict[str, list[str]]:
    ws = load([str(REFUSALS)])
    out: dict[str, list[str]] = {}
    for d in ws.diagnostics:
        if d.code == "KAD170":
            who, _, message = d.message.partition("`: ")
            out.setdefault(who.rpartition("`")[2], []).append(message)
    return out


def test_kueue_refuses_bad_labels_and_annotations_whoever_manages_the_job():
    got = refused()
    assert got["max-exec"] == ["metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should "
                               "be greater than 0"]
    assert got["max-exec-abc"] == ['metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: "abc": '
                                   'strconv.Atoi: parsing "abc": invalid syntax']
    assert got["bad-queue"][0].startswith('metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "Main_Queue": '
                                          "a lowercase RFC 1123 subdomain must consist of")
    assert "js-bad-queue" in got and "lws-bad" in got  # a JobSet's and a LeaderWorkerSet's webhooks too
    assert got["sync-nonindexed"] == ['metadata.annotations[kueue.x-k8s.io/job-completions-equal-parallelism]: '
                                      'Invalid value: "true": should not be enabled for NonIndexed jobs']
    assert got["sync-mismatch"] == ["spec.completions: Invalid value: 3: should be equal to parallelism when "
                                    "kueue.x-k8s.io/job-completions-equal-parallelism is annotation is true"]
    assert got["bad-level"] == [
        'annotations[kueue.x-k8s.io/podset-required-topology]: Invalid value: "not a label!": name part must '
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
        "[A-Za-z0-9]')"]


def test_kueue_refuses_topology_annotations_and_min_parallelism_in_its_words():
    """ValidateTASPodSetRequest in full (was: KAD157 in kadmit's words for two topology modes and a
    slice level without a size) and the Job webhook's partial admission and slice-size bound."""
    got = refused()
    topo = "kueue.x-k8s.io/podset"
    assert got["two-topologies"] == [
        f'annotations: Invalid value: must not contain more than one topology annotation: ["{topo}-required-topology", '
        f'"{topo}-preferred-topology", "{topo}-unconstrained-topology"]']
    assert got["slice-no-size"] == [f"annotations[{topo}-slice-size]: Required value: must be set when "
                                    f"'{topo}-slice-required-topology' is specified"]
    assert got["size-big"] == [f'annotations[{topo}-slice-size]: Invalid value: "5": must not be greater than pod '
                               "set count 3"]
    assert sorted(got["group-num"]) == sorted([
        f'annotations[{topo}-group-name]: Invalid value: "12": must not be a number',
        f"annotations[{topo}-group-name]: Forbidden: may not be set when '{topo}-slice-size' is specified",
        f"annotations[{topo}-group-name]: Forbidden: may not be set when neither '{topo}-preferred-topology' nor "
        f"'{topo}-required-topology' is specified",
        f'annotations[{topo}-slice-size]: Invalid value: "x": must be a numeric value',
        f"annotations[{topo}-slice-size]: Forbidden: may not be set when '{topo}-slice-required-topology' is not "
        "specified"])
    assert len(got["unc-bad"]) == 4 and any(m.endswith('"yes": must be a boolean value') for m in got["unc-bad"])
    path = "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]"
    assert got["mp-high"] == [f"{path}: Invalid value: 5: should be between 0 and 2"]
    assert got["mp-abc"] == [f'{path}: Invalid value: "abc": strconv.Atoi: parsing "abc": invalid syntax']
    assert got["mp-zero-unmanaged"] == [f"{path}: Invalid value: 0: should be between 0 and 2"]


def test_kueue_refuses_a_pod_group_member_without_a_total_count():
    """The pod webhook (validatePodGroupMetadata): the member is never created, so it is no member
    of its group (was: a KAD157 error in kadmit's words that held up every answer)."""
    got = refused()
    path = "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"
    assert got["grp-bad-count"] == [f'{path}: Invalid value: "zero": strconv.Atoi: parsing "zero": invalid syntax']
    assert got["grp-no-count"] == [f"{path}: Required value: both the 'kueue.x-k8s.io/pod-group-total-count' "
                                   "annotation and the 'kueue.x-k8s.io/pod-group-name' label should be set"]
    assert got["grp-zero-count"] == [f"{path}: Invalid value: \"0\": incorrect annotation value "
                                     "'kueue.x-k8s.io/pod-group-total-count=0': group total count should be greater "
                                     "than zero"]
    (no_count,) = [d for d in load([str(REFUSALS)]).diagnostics if "grp-no-count" in d.message]
    assert (no_count.span.line, no_count.span.column) == (156, 76)  # the group name: no annotation to point at


def test_a_refused_job_makes_no_workload():
    ws = load([str(REFUSALS)])
    assert [w.origin.name for w in ws.model.workloads if w.origin] == []


DECIDED_ANYWAY = """\
apiVersion: batch/v1
kind: Job
metadata: {name: good, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: refused, labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/max-exec-time-seconds: "0"}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: bad-queue, labels: {kueue.x-k8s.io/queue-name: "-bad"}}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: x}]
"""


def test_kueue_refuses_the_object_alone_and_decides_the_rest(tmp_path):
    """As Kueue does: the refused objects are skipped with Kueue's message and everything else is
    decided; `check` reports the refusals and `admit` exits 1 (as for any error it leaves aside), `why`
    exits by its answer.
    The JobSet's queue name is a bad label (KAD196): the API server refuses it before Kueue's webhook sees it (the
    oracle skips it with the server's words), so it is listed with kadmit's words and the server's, and holds up
    nothing either."""
    paths = write(tmp_path, setup__yaml=SETUP, jobs__yaml=DECIDED_ANYWAY)
    r = run("admit", *paths, "--format", "json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    assert [(d["workload"], d["admitted"]) for d in out["decisions"]] == [("default/good", True)]
    assert {s["name"]: s["reason"] for s in out["skipped"]} == {
        "refused": "Kueue's webhook refuses it: metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid "
                   "value: 0: should be greater than 0",
        "bad-queue": "not decided: an error in the input, in this object: the API server refuses it, so it is "
                     "never created: the value of label `kueue.x-k8s.io/queue-name` isn't letters, digits, `-`, `_` "
                     "and `.`, starting and ending with a letter or digit (or empty) (`metadata.labels: Invalid value: "
                     "\"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                     "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
                     "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`); to "
                     "have it created: label values are at most 63 letters, digits, `-`, `_` and `.`"}
    assert "error[KAD170]: Kueue's webhook refuses Job `refused`" in r.stderr
    assert run("why", "default/good", *paths).exit_code == 0
    check = run("check", *paths)
    assert check.exit_code == 1 and check.output.count("error[KAD170]") == 1 and "error[KAD196]" in check.output


def test_other_errors_still_count(tmp_path):
    """A bad quantity in the good job is no refusal of Kueue's: it is an error of the input (exit 1,
    as for any error the answer leaves aside) and that job is not decided."""
    paths = write(tmp_path, setup__yaml=SETUP, jobs__yaml=DECIDED_ANYWAY.replace('cpu: "1"', 'cpu: "1x"', 1))
    r = run("admit", *paths, "--format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)["decisions"] == []


def _job(name: str, labels: str, pod_class: str = "") -> str:
    return "\n".join([
        "---", "apiVersion: batch/v1", "kind: Job",
        f"metadata: {{name: {name}, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue{labels}}}}}",
        "spec:", "  suspend: true", "  template:", "    spec:", "      restartPolicy: Never",
        *([f"      {pod_class}"] if pod_class else []),
        '      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]', ""])


def test_a_job_naming_a_missing_priority_class_is_never_admitted_and_the_rest_is_decided(tmp_path):
    """Kueue's reconciler can't resolve the priority (ExtractPriority's lookup fails) and never creates the
    Workload; kadmit lists the job as never admitted (KAD172, refused alone: exit 1) and decides the rest.
    Defined in the input, the same classes resolve."""
    jobs = _job("by-label", ", kueue.x-k8s.io/priority-class: urgent") + _job("by-pod", "", "priorityClassName: high") \
        + _job("plain", "")
    paths = write(tmp_path, setup__yaml=SETUP, jobs__yaml=jobs)
    r = run("admit", "--format", "json", *paths)
    assert r.exit_code == 1, r.output
    answer = json.loads(r.stdout)
    assert [d["workload"] for d in answer["decisions"]] == ["default/plain"]
    skipped = {s["name"]: s["reason"] for s in answer["skipped"]}
    assert skipped["by-label"].startswith("it is never admitted while WorkloadPriorityClass `urgent` is not defined")
    assert 'priorityclasses.scheduling.k8s.io "high" not found' in skipped["by-pod"]
    assert sorted(line.split("`")[1] for line in r.stderr.splitlines() if line.startswith("error[KAD172]")) == \
        ["default/by-label", "default/by-pod"]
    classes = """\
    apiVersion: kueue.x-k8s.io/v1beta2
    kind: WorkloadPriorityClass
    metadata: {name: urgent}
    value: 100
    ---
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: high}
    value: 10
    """
    r = run("admit", "--format", "json", *paths, *write(tmp_path, classes__yaml=classes))
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["decisions"]) == 3


REFUSED_PODS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: default%s}
spec:
  replicas: 2
  selector: {matchLabels: {app: dp}}
  template:
    metadata:
      labels: {app: dp, kueue.x-k8s.io/max-exec-time-seconds: "0"}
    spec:
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def test_kueue_refuses_a_deployments_pods_not_the_deployment(tmp_path):
    """Kueue's pod webhook validates every pod (ValidateCreate), whatever manages its owner: a Deployment already in
    the cluster or being submitted, naming a queue or not, is stored, and its ReplicaSet creates no pod. KAD170 says
    so, in the oracle's skip words (tests/oracle/features/deployment-template-pods-refused-whoever-manages-it.yaml);
    where Kueue's Deployment webhook refuses the Deployment itself (its queue name), that alone is said."""
    jobs = "---\n".join(REFUSED_PODS % (name, meta) for name, meta in (
        ("new", ", labels: {kueue.x-k8s.io/queue-name: user-queue}"), ("in-cluster", ", uid: u-1"),
        ("bad-queue", ', labels: {kueue.x-k8s.io/queue-name: "Bad_Queue"}')))
    paths = write(tmp_path, setup__yaml=SETUP, jobs__yaml=jobs)
    r = run("admit", *paths, "--format", "json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    words = "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should be greater than 0"
    reasons = {s["name"]: s["reason"] for s in out["skipped"]}
    assert reasons["new"] == reasons["in-cluster"] == "Kueue's pod webhook refuses its pods: " + words
    assert reasons["bad-queue"].startswith("Kueue's webhook refuses it: metadata.labels[kueue.x-k8s.io/queue-name]")
    assert out["decisions"] == []
    kad170 = {d["message"]: d["help"] for d in out["diagnostics"] if d["code"] == "KAD170"}
    help = "Kubernetes stores the Deployment, but none of its pods is created; change its pod template as the message says"
    assert kad170[f"Kueue's pod webhook refuses every pod Deployment `new` makes: {words}"] == help
    assert kad170[f"Kueue's pod webhook refuses every pod Deployment `in-cluster` makes: {words}"] == help
    assert not any("`bad-queue` makes" in m for m in kad170) and len(kad170) == 3


def test_a_job_whose_workload_the_crd_refuses_is_skipped_in_the_api_servers_words():
    """LWS's own documents write `leaderTemplate: {spec: }` (tests/corpus/upstream/lws-docs-concepts-null-templates):
    the LeaderWorkerSet CRD stores it, the Workload Kueue's reconciler makes of it has no containers and the
    Workload CRD refuses it (the oracle, which checks writes against the CRDs, says so word for word but the hash):
    no Workload, never admitted."""
    ws = load([str(Path(__file__).resolve().parents[1] / "corpus" / "upstream" / "lws-docs-concepts-null-templates")])
    assert ws.model.workloads == () or not [w for w in ws.model.workloads if w.origin is not None]
    [s] = [s for s in ws.model.skipped if s.object.kind == "LeaderWorkerSet"]
    assert s.reason.startswith("Kueue's reconciler failed: Workload.kueue.x-k8s.io \"leaderworkerset-leaderworkerset-"
                               "sample-0-") and s.reason.endswith(
        "is invalid: [spec.podSets[0].template.spec.containers: Required value, spec.podSets[1].template.spec."
        "containers: Required value, <nil>: Invalid value: null: some validation rules were not checked because the "
        "object was invalid; correct the existing errors to complete validation]"), s.reason


def test_kueue_refuses_an_elastic_sparkapplication_only_with_slicing_on():
    """ElasticJobsViaWorkloadSlices on, the SparkApplication webhook refuses a managed elastic one (KAD170, Kueue's
    words, the annotation's value at the caret); off, workloadslicing.Enabled is false and nothing refuses it (kadmit
    lists it as not modelled; the oracle admits it). Oracle case:
    tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-on-sparkapplication-refused.yaml."""
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / \
        "feature-gate-elastic-jobs-via-workload-slices-on-sparkapplication-refused.yaml"
    ws = load([str(case)])
    (d,) = [d for d in ws.diagnostics if d.code == "KAD170" and "`elastic`" in d.message]
    assert d.message == ("Kueue's webhook refuses SparkApplication `elastic`: metadata.annotations"
                         '[kueue.x-k8s.io/elastic-job]: Invalid value: "true": elastic job is not supported in '
                         "SparkApplication")
    assert (d.span.line, d.span.column) == (35, 125)
    reasons = {s.object.name: s.reason for s in ws.model.skipped}
    assert "does not manage it" in reasons["elastic-unmanaged"]
    off = load([str(case)], overlay={case: case.read_text().replace(", ElasticJobsViaWorkloadSlices: true", "")})
    assert [d.message.partition("`: ")[2].partition(":")[0] for d in off.diagnostics if d.code == "KAD170"] == \
        ["spec.dynamicAllocation.enabled"]  # elastic-dynamic's: refused with the gate off
    assert "does not model" in {s.object.name: s.reason for s in off.model.skipped}["elastic"]


def test_kueue_refuses_a_managed_sparkapplications_mode_and_dynamic_allocation():
    """The SparkApplication webhook's other refusals (oracle: sparkapplication-webhook-refuses-mode-and-dynamic-
    allocation.yaml, gate off): a mode other than cluster, none included; dynamic allocation, the elastic annotation
    with the gate off changing nothing (with it on that one is refused for its annotation alone, above)."""
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / \
        "sparkapplication-webhook-refuses-mode-and-dynamic-allocation.yaml"
    got = {d.message.partition("`")[2].partition("`")[0]: d.message.partition("`: ")[2]
           for d in load([str(case)]).diagnostics if d.code == "KAD170"}
    dynamic = ("spec.dynamicAllocation.enabled: Invalid value: true: a kueue managed job can use dynamicAllocation "
               "only when the ElasticJobsViaWorkloadSlices feature gate is on and the job is an elastic job")
    assert got == {"client": 'spec.mode: Invalid value: "client": only Cluster mode is supported for a kueue managed job',
                   "no-mode": 'spec.mode: Invalid value: "": only Cluster mode is supported for a kueue managed job',
                   "dynamic": dynamic, "elastic-dynamic": dynamic}
    on = Path(__file__).resolve().parents[1] / "oracle" / "features" / \
        "feature-gate-elastic-jobs-via-workload-slices-on-sparkapplication-refused.yaml"
    assert [d.message for d in load([str(on)]).diagnostics if d.code == "KAD170" and "elastic-dynamic" in d.message] \
        == ["Kueue's webhook refuses SparkApplication `elastic-dynamic`: metadata.annotations[kueue.x-k8s.io/elastic-job]: "
            'Invalid value: "true": elastic job is not supported in SparkApplication']
