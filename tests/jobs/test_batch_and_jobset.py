"""batch/v1 Job and JobSet become the Workloads Kueue makes of them; the job framework's rules
(queue label, default LocalQueue, Configuration, namespace selector, state) decide which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kadmit.index import ModelIndex

from .helpers import SETUP, admit_json, model_of, run, write

# Kueue's getting-started sample (site/static/examples/jobs/sample-job.yaml).
SAMPLE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  generateName: sample-job-
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: [ "/bin/sh" ]
        args: [ "-c", "sleep 60" ]
        resources:
          requests:
            cpu: "1"
            memory: "200Mi"
      restartPolicy: Never
"""

# JobSet's documentation shape (a replicated job with replicas and parallelism).
JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: sleep-job
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  network:
    enableDNSHostnames: false
    subdomain: some-subdomain
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 4
          completions: 4
          backoffLimit: 0
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 1
                      memory: "200Mi"
    - name: driver
      template:
        spec:
          parallelism: 1
          completions: 1
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 2
                      memory: "200Mi"
"""


def job(name: str = "j", *, labels: str = "kueue.x-k8s.io/queue-name: user-queue", spec: str = "",
        annotations: str = "", meta: str = "", status: str = "", cpu: str = "1") -> str:
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{{labels}}}
  annotations: {{{annotations}}}
{meta}
spec:
{spec}
  template:
    spec:
      containers:
      - name: c
        image: x
        resources: {{requests: {{cpu: "{cpu}"}}}}
      restartPolicy: Never
{status}
"""


def test_kueue_getting_started_sample_job_is_decided_by_its_generate_name(tmp_path):
    paths = write(tmp_path, setup__yaml=SETUP, job__yaml=SAMPLE_JOB)
    out = admit_json(*paths)
    (d,) = out["decisions"]
    assert d["admitted"] and d["object"] == {"apiVersion": "batch/v1", "kind": "Job", "namespace": "default",
                                             "name": "sample-job-"}
    assert d["pod_sets"][0]["name"] == "main" and d["pod_sets"][0]["count"] == 3
    assert out["skipped"] == []
    r = run("why", "default/sample-job-", *paths)
    assert r.exit_code == 0 and "Job default/sample-job-" in r.output
    human = run("admit", *paths).output
    assert "default/sample-job-" in human and "1 of 1 pending workloads admitted" in human


@pytest.mark.parametrize("spec, annotations, count, min_count", [
    ("", "", 1, None),                                          # parallelism defaults to 1
    ("  parallelism: 4", "", 4, None),
    ("  parallelism: 4\n  completions: 2", "", 2, None),         # completions lower the count
    ("  parallelism: 2\n  completions: 10", "", 2, None),
    ("  parallelism: 5", "kueue.x-k8s.io/job-min-parallelism: '2'", 5, 2),
    ("  parallelism: 5", "kueue.x-k8s.io/job-min-parallelism: '4294967298'", 5, 2),  # Kueue's int32(v)
])
def test_job_pod_set_counts(tmp_path, spec, annotations, count, min_count):
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, j__yaml=job(spec=spec, annotations=annotations)).workloads
    (ps,) = wl.pod_sets
    assert (ps.name, ps.count, ps.min_count, ps.requests) == ("main", count, min_count, {"cpu": 1000})
    assert wl.queue == "user-queue" and wl.origin.kind == "Job" and wl.name == "j" and wl.kueue_name == ""  # no UID


@pytest.mark.parametrize("annotation, value", [("'0'", "0"), ("'5'", "5"), ("'x'", '"x"')])
def test_min_parallelism_outside_what_kueue_accepts_is_refused_in_kueues_words(tmp_path, annotation, value):
    """The Job webhook's validatePartialAdmissionCreate (KAD170, as the oracle's convert words it:
    tests/oracle/jobs/refusals.yaml)."""
    from kadmit.workspace import load

    ws = load(write(tmp_path, j__yaml=job(spec="  parallelism: 5",
                                            annotations=f"kueue.x-k8s.io/job-min-parallelism: {annotation}")))
    (d,) = ws.diagnostics.sorted()
    detail = 'strconv.Atoi: parsing "x": invalid syntax' if value == '"x"' else "should be between 0 and 4"
    assert d.code == "KAD170" and d.message.endswith(
        f"metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: {value}: {detail}")
    assert not ws.model.workloads


def test_jobset_has_a_pod_set_per_replicated_job(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, js__yaml=JOBSET)
    (wl,) = m.workloads
    assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == [("workers", 8, 1000), ("driver", 1, 2000)]
    assert wl.pod_sets[0].origin == "replicated job `workers` (2 × 4 pods)"
    assert (wl.origin.kind, wl.origin.key) == ("JobSet", "default/sleep-job")


def test_jobset_why_names_the_replicated_job(tmp_path):
    paths = write(tmp_path, setup__yaml=SETUP, js__yaml=JOBSET)
    r = run("why", "default/sleep-job", *paths, "--format", "json")
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["object"]["kind"] == "JobSet"
    assert out["pod_set_origins"]["workers"].startswith("replicated job `workers`")
    assert "from replicated job `workers`" in run("why", "default/sleep-job", *paths).output


def test_priority_label_then_pod_priority_class(tmp_path):
    a = job("a", labels="kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: high")
    b = job("b").replace("    spec:\n      containers", "    spec:\n      priorityClassName: urgent\n      containers")
    classes = ("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: high}\nvalue: 9\n"
               "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: urgent}\nvalue: 5\n")
    m = model_of(tmp_path, setup__yaml=SETUP, c__yaml=classes, a__yaml=a, b__yaml=b)
    by = {w.origin.name: w for w in m.workloads}
    assert (by["a"].priority_class, by["a"].priority_class_kind) == ("high", "workload")
    assert (by["b"].priority_class, by["b"].priority_class_kind) == ("urgent", "pod")


def test_no_default_workload_priority_class_in_kueue_v017(tmp_path):
    """WorkloadPriorityClassDefaulting (a WorkloadPriorityClass named `default` for jobs without
    the label) came after v0.17: the job takes the globalDefault PriorityClass, else 0."""
    wpc = ("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: default}\nvalue: 7\n---\n"
           "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: cluster}\nvalue: 3\nglobalDefault: true\n")
    m = model_of(tmp_path, p__yaml=wpc, j__yaml=job())
    assert m.workloads[0].priority_class is None
    assert ModelIndex(m).priority(m.workloads[0]) == 3


def test_skipped_jobs_say_why(tmp_path):
    files = {
        "setup__yaml": SETUP,
        "nolabel__yaml": job("nolabel", labels=""),
        "done__yaml": job("done", status="status:\n  conditions: [{type: Complete, status: 'True'}]"),
        "running__yaml": job("running", spec="  suspend: false",
                             status="status: {startTime: '2026-01-01T00:00:00Z', active: 1}"),
        "system__yaml": job("sys", meta="  namespace: kube-system"),
        "child__yaml": job("child", meta="  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, "
                                         "kind: JobSet, name: p, uid: u, controller: true}]"),
        "svc__yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
    }
    out = admit_json(*write(tmp_path, **files))
    reasons = {s["name"]: s["reason"] for s in out["skipped"]}
    assert out["decisions"] == []
    assert "no `kueue.x-k8s.io/queue-name` label" in reasons["nolabel"]
    assert "finished" in reasons["done"]
    assert "is running" in reasons["running"]
    assert "managedJobsNamespaceSelector" in reasons["sys"]
    assert "JobSet `default/p`" in reasons["child"]
    assert "does not read this kind" in reasons["s"]
    human = run("admit", *write(tmp_path, **files)).output
    assert "6 objects in the input not decided" in human


def test_default_local_queue_and_manage_without_queue_name(tmp_path):
    lq = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: default, namespace: default}\n" \
         "spec: {clusterQueue: cluster-queue}\n"
    m = model_of(tmp_path, setup__yaml=SETUP, lq__yaml=lq, j__yaml=job(labels=""))
    assert m.workloads[0].queue == "default"
    cfg = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\n"
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=cfg, j__yaml=job(labels=""))
    assert m.workloads == () and "names no queue" in m.skipped[0].reason


def test_a_partial_configuration_overrides_only_what_it_sets(tmp_path):
    only_jobset = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                   "integrations: {frameworks: [jobset.x-k8s.io/jobset]}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=only_jobset, j__yaml=job(), js__yaml=JOBSET)
    assert [w.origin.kind for w in m.workloads] == ["JobSet"]
    assert "`batch/job` is not in `integrations.frameworks` of the input's Configuration" in m.skipped[0].reason
    selector = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanagedJobsNamespaceSelector:\n"
                "  matchLabels: {kueue: enabled}\n")
    m = model_of(tmp_path / "..", setup__yaml=SETUP, cfg__yaml=selector, js__yaml="", j__yaml=job())
    assert m.workloads == () and "managedJobsNamespaceSelector" in m.skipped[0].reason


def test_unknown_framework_name_is_an_error(tmp_path):
    from kadmit.workspace import load

    cfg = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations: {frameworks: [batch/jobs]}\n"
    ws = load(write(tmp_path, cfg__yaml=cfg))
    (d,) = ws.diagnostics.sorted()
    assert d.code == "KAD157" and "batch/job" in (d.help or "")


def test_an_export_holds_the_job_and_its_workload_once(tmp_path):
    uid = "0b6ad0a2-97e3-4e0c-9d1d-1f0f3a0e2c11"
    running = job("train", spec="  suspend: false", meta=f"  uid: {uid}",
                  status="status: {startTime: '2026-01-01T00:00:00Z', active: 1}", cpu="5")
    workload = f"""\
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: job-train-abcde
  namespace: default
  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: train, uid: {uid}, controller: true}}]
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "5"}}}}}}]}}}}
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments: [{{name: main, count: 1, flavors: {{cpu: default-flavor}}, resourceUsage: {{cpu: "5"}}}}]
  conditions: [{{type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}}, {{type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}}]
"""
    other = job("other", cpu="5")
    paths = write(tmp_path, setup__yaml=SETUP, a__yaml=running, b__yaml=workload, c__yaml=other)
    out = admit_json(*paths)
    # the admitted one holds 5 of 9 cpus once, so `other` (5) does not fit
    (d,) = out["decisions"]
    assert d["object"]["name"] == "other" and not d["admitted"]
    r = run("why", "default/train", *paths)
    assert r.exit_code == 0 and "already admitted" in r.output
    assert run("why", "default/job-train-abcde", *paths).exit_code == 0


def test_two_kinds_sharing_a_name_need_the_kind(tmp_path):
    js = JOBSET.replace("name: sleep-job", "name: train")
    paths = write(tmp_path, setup__yaml=SETUP, a__yaml=job("train"), b__yaml=js)
    r = run("why", "default/train", *paths)
    assert r.exit_code == 2 and "`Job/default/train`" in r.output and "`JobSet/default/train`" in r.output
    assert run("why", "JobSet/default/train", *paths).exit_code == 1
    assert run("why", "Job/default/train", *paths).exit_code == 0
    rows = run("admit", *paths).output
    assert "Job/default/train" in rows and "JobSet/default/train" in rows


def test_generate_name_repeats_and_input_order(tmp_path):
    two = SAMPLE_JOB + "---\n" + SAMPLE_JOB.replace('cpu: "1"', 'cpu: "2"')
    m = model_of(tmp_path, setup__yaml=SETUP, jobs__yaml=two, later__yaml=job("z-first-by-name"))
    names = [w.origin.name for w in sorted(m.workloads, key=lambda w: w.created)]
    assert names == ["sample-job-", "sample-job-#2", "z-first-by-name"]


def test_jobs_without_creation_time_queue_after_the_exported_ones(tmp_path):
    old = job("old", meta="  creationTimestamp: '2026-11-20T08:00:00Z'")
    m = model_of(tmp_path, a__yaml=job("new"), b__yaml=old)
    by = {w.origin.name: w.created for w in m.workloads}
    assert by["new"] > by["old"]


def test_standard_input_reads_manifests_and_kad(tmp_path, monkeypatch):
    stream = SETUP + "---\n" + SAMPLE_JOB
    r = run("why", "default/sample-job-", "-", input=stream)
    assert r.exit_code == 0, r.output
    r = run("admit", str(write(tmp_path, setup__yaml=SETUP)[0]), "-", input=SAMPLE_JOB)
    assert r.exit_code == 0 and "sample-job-" in r.stdout
    # `.kad` text, its imports resolved from the working directory
    (tmp_path / "flavors.kad").write_text("flavor f {}\n")
    monkeypatch.chdir(tmp_path)
    r = run("admit", "-", input='import "flavors.kad"\ncluster_queue q {\n  namespaces = all\n  resources cpu {\n    flavor f { cpu = 4 }\n  }\n}\n')
    assert r.exit_code == 0, r.output
    r = run("fmt", "-", input="flavor   f {}\n")
    assert r.exit_code == 0 and r.stdout == "flavor f {}\n"
    assert run("fmt", "--check", "-", input="flavor   f {}\n").exit_code == 1
    assert run("fmt", "--write", "-", input="flavor f {}\n").exit_code == 2


def test_unknown_name_suggests_the_job(tmp_path):
    paths = write(tmp_path, setup__yaml=SETUP, job__yaml=SAMPLE_JOB)
    r = run("why", "default/sample-jobb", *paths)
    assert r.exit_code == 2 and "sample-job-" in r.output
    r = run("why", "default/nope", *write(tmp_path, setup__yaml=SETUP, svc__yaml=job("nope", labels="")))
    assert r.exit_code == 1 and "KAD011" in r.output and "queue-name" in r.output


def test_a_policy_test_can_add_a_submitted_job(tmp_path):
    added = "\n".join("        " + line for line in job("extra", spec="  parallelism: 2").splitlines())
    write(tmp_path, setup__yaml=SETUP, t__kadtest__yaml=(
        "tests:\n  - name: a submitted Job is admitted\n    given:\n      add_manifests: |\n"
        f"{added}\n    expect:\n      default/extra: admitted\n"))
    r = run("test", str(tmp_path))
    assert r.exit_code == 0 and "1 passed" in r.output, r.output


def test_succeeded_pods_are_reclaimed(tmp_path):
    """Kueue's Job.ReclaimablePods and JobSet.ReclaimablePods come off the pod sets' counts
    (tests/oracle/features/job-reclaimable-pods.yaml, which the oracle decides alike)."""
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / "job-reclaimable-pods.yaml"
    m = model_of(tmp_path, case__yaml=case.read_text(encoding="utf-8"))
    counts = {w.origin.name: [p.count for p in w.pod_sets] for w in m.workloads}
    assert counts == {"a": [3], "b": [1], "c": [2], "js": [2]}
    js = next(w for w in m.workloads if w.origin.name == "js")
    assert "2 of its 6 pods: 4 reclaimable (finished)" in js.pod_sets[0].origin
