"""Fixes a Kueue user applies to manifests, proven by deciding again and checked by hand: each fix
`why` prints, as the diff `why --apply-fix N` prints, applied with `patch` to a copy of the files
and decided by `admit`, gives exactly the announced outcome and side effects.

- a queue without quota for a resource the job requests: the resource covered in a resource group
  (`coveredResources`, a quota in every flavor of the group) — with the unconstrained topology
  request Kueue needs to put a pod set on a topology flavor of a queue that has other flavors;
- a JobSet's pods: `replicas` × `parallelism`, the two lowered together when one job is too big;
- a Job's `kueue.x-k8s.io/job-min-parallelism`, a job's `kueue.x-k8s.io/priority-class` label."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from kadmit import api
from kadmit.cli import cli
from kadmit.render.why import why_patch

sys.path.insert(0, str(Path(__file__).parent))
from test_fixes_proven import _states  # noqa: E402

ROOT = Path(__file__).parents[2]
EXAMPLE = "examples/ml-platform-kueue"


def _check(tmp: Path, where: str, key: str, fix, before: dict, sources) -> dict:
    """The fix's diff applied with `patch -p1` to a copy of `where`, decided by `admit`."""
    copy = tmp / f"fix{id(fix)}"
    shutil.copytree(where, copy / where)
    subprocess.run(["patch", "-s", "-p1", "-d", str(copy)], input=why_patch(fix, sources), text=True, check=True)
    after = api.admit([str(copy / where)])
    assert after.exit_code in (0, 1), [d.message for d in after.diagnostics]
    new = _states(after)
    assert new[key] == fix.outcome, fix.message
    assert {k for k in new if k != key and new[k] != before.get(k)} == {e.workload for e in fix.effects}, fix.message
    return new


def _why(key: str, where: str):
    out = api.why(key, [where])
    assert out.result is not None and not out.result.admitted
    return out


def test_a_queue_without_gpu_quota_gets_a_gpu_flavor_and_the_job_asks_for_a_topology(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    before = _states(api.admit([EXAMPLE]))
    out = _why("team-infra/gpu-smoke", EXAMPLE)
    fixes = out.result.fixes
    assert fixes, "a queue without GPU quota can be given some"
    first = fixes[0]
    fields = [c.knob.field for c in first.changes]
    assert fields == ["spec.resourceGroups[0].coveredResources", "spec.resourceGroups[0].flavors[0].resources",
                      "spec.resourceGroups[0].flavors", "the pod template"]
    news = [c.edit.new for c in first.changes]
    assert news[0].startswith("- nvidia.com/gpu\n") and '{name: nvidia.com/gpu, nominalQuota: "0"}' in news[1]
    assert '{name: nvidia.com/gpu, nominalQuota: "1"}' in news[2]  # the job's one GPU
    assert "kueue.x-k8s.io/podset-unconstrained-topology" in news[3]
    assert first.outcome.admitted and first.outcome.cluster_queue == "team-infra"
    for fix in fixes:
        _check(tmp_path, EXAMPLE, "team-infra/gpu-smoke", fix, before, out.loaded.sources)
    # the GPU quota alone (on the spot flavor, whose nodes have no GPUs) is not offered
    assert not any(len(f.changes) == 2 for f in fixes)


def test_a_jobset_too_big_for_one_replica_gets_fewer_replicas_and_fewer_pods_per_job(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    before = _states(api.admit([EXAMPLE]))
    out = _why("team-vision/llm-pretrain", EXAMPLE)
    fix = next(f for f in out.result.fixes if [c.knob.field for c in f.changes] == ["`replicas`", "`parallelism`"])
    replicas, parallelism = fix.changes
    assert (replicas.edit.old, replicas.edit.new) == ("4", "1")
    assert (parallelism.edit.old, parallelism.edit.new, parallelism.minimal) == ("8", "3", True)
    assert "(neither" not in fix.message and fix.outcome.pod_sets[-1][1] == 3
    _check(tmp_path, EXAMPLE, "team-vision/llm-pretrain", fix, before, out.loaded.sources)


JOBS = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: q
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "8"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: q
  namespace: team
spec:
  clusterQueue: q
---
apiVersion: v1
kind: Namespace
metadata:
  name: team
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: low
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 100
---
apiVersion: batch/v1
kind: Job
metadata:
  name: first
  namespace: team
  creationTimestamp: "2026-11-20T09:00:00Z"
  labels:
    kueue.x-k8s.io/queue-name: q
    kueue.x-k8s.io/priority-class: low
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "4"}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: second
  namespace: team
  creationTimestamp: "2026-11-20T09:10:00Z"
  labels:
    kueue.x-k8s.io/queue-name: q
    kueue.x-k8s.io/priority-class: low
  annotations:
    kueue.x-k8s.io/job-min-parallelism: "4"
spec:
  parallelism: 6
  completions: 6
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"}
"""


def test_a_jobs_priority_label_is_its_owners_fix_beside_the_platforms_quota(tmp_path, monkeypatch):
    from kadmit.engine.explain import proposals

    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.yaml").write_text(JOBS)
    before = _states(api.admit(["in"]))
    assert before["team/first"].admitted and not before["team/second"].admitted  # older, same priority
    both = _why("team/second", "in").result.fixes
    # the quota raise changes no other workload; the priority label sends `first` back to pending
    assert [(f.actor, [c.knob.kind for c in f.changes]) for f in both] == [("platform", ["quota"]),
                                                                           ("owner", ["priority"])]
    monkeypatch.setattr(proposals, "_singles", lambda *a, **k: [])  # no other candidate
    out = _why("team/second", "in")
    [prio] = out.result.fixes
    change = prio.changes[0]
    assert (change.knob.field, change.edit.old, change.edit.new) == (
        "metadata.labels[kueue.x-k8s.io/priority-class]", "low", "high")
    assert change.knob.subject == "Job `second`"
    assert [e.workload for e in prio.effects] == ["team/first"]  # it goes first now
    _check(tmp_path, "in", "team/second", prio, before, out.loaded.sources)


def test_a_jobs_min_parallelism_annotation_is_lowered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    # `second` needs 5 of its 6 pods at once; a 4 cpu queue holds 4
    docs = [d for d in JOBS.split("---\n") if "name: first" not in d]
    (tmp_path / "in" / "c.yaml").write_text("---\n".join(docs).replace('job-min-parallelism: "4"', 'job-min-parallelism: "5"')
                                            .replace('nominalQuota: "8"', 'nominalQuota: "4"'))
    before = _states(api.admit(["in"]))
    out = _why("team/second", "in")
    fix = next(f for f in out.result.fixes if f.changes[0].knob.field.startswith("metadata.annotations"))
    change = fix.changes[0]
    assert change.knob.field == "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]"
    assert (change.edit.old, change.edit.new, change.minimal) == ('"5"', '"4"', True)
    for fix in out.result.fixes:
        _check(tmp_path, "in", "team/second", fix, before, out.loaded.sources)


MIXED = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata:
  name: dc
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: plain
spec:
  nodeLabels: {pool: plain}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: gpus
spec:
  nodeLabels: {pool: gpus}
  topologyName: dc
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: q
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: plain
      resources:
      - {name: cpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: q
  namespace: team
spec:
  clusterQueue: q
---
apiVersion: v1
kind: Namespace
metadata:
  name: team
---
apiVersion: v1
kind: Node
metadata:
  name: g0
  labels: {pool: gpus, kubernetes.io/hostname: g0}
status:
  allocatable: {cpu: "16", nvidia.com/gpu: "4", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata:
  name: p0
  labels: {pool: plain, kubernetes.io/hostname: p0}
status:
  allocatable: {cpu: "16", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: "1", nvidia.com/gpu: "2"}
"""


def test_a_workload_gets_a_topology_flavor_for_its_gpus_and_asks_for_an_unconstrained_topology(tmp_path,
                                                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.yaml").write_text(MIXED)
    before = _states(api.admit(["in"]))
    out = _why("team/w", "in")
    [fix] = out.result.fixes  # the plain nodes have no GPUs: only the GPU flavor is offered
    assert [c.edit.new for c in fix.changes] == [
        '["nvidia.com/gpu", ',
        '- {name: nvidia.com/gpu, nominalQuota: "0"}\n      -',
        '\n    - {name: gpus, resources: [{name: nvidia.com/gpu, nominalQuota: "4"}, {name: cpu, nominalQuota: "2"}]}',
        "topologyRequest: {unconstrained: true}\n    name"]
    assert fix.changes[3].knob.field == "spec.podSets[0]"
    assert fix.outcome.pod_sets == (("main", 2, (("cpu", "gpus"), ("nvidia.com/gpu", "gpus"))),)
    _check(tmp_path, "in", "team/w", fix, before, out.loaded.sources)
    # without the node that has GPUs, the reason there is no fix is said
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "c.yaml").write_text(MIXED.replace('cpu: "16", nvidia.com/gpu: "4"', 'cpu: "16"'))
    out = _why("team/w", "none")
    assert not out.result.fixes and out.result.fixes_notes == [
        "ClusterQueue `q` has no quota for `nvidia.com/gpu`, and no node has `nvidia.com/gpu` allocatable: a quota "
        "for it would admit `team/w` to pods no node can run"]
    got = CliRunner().invoke(cli, ["why", "team/w", "none"])
    assert got.exit_code == 1 and got.stdout.endswith(
        "fixes: none in reach of a change of the input\n   = note: ClusterQueue `q` has no quota for "
        "`nvidia.com/gpu`, and no node has `nvidia.com/gpu` allocatable: a quota for it would admit `team/w` to pods "
        "no node can run\n")


def test_the_kad_example_covers_the_gpu_the_same_way(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    before = _states(api.admit(["examples/ml-platform"]))
    out = _why("team-infra/gpu-smoke", "examples/ml-platform")
    fix = out.result.fixes[0]
    assert [c.edit.new for c in fix.changes] == [
        ", nvidia.com/gpu", "  nvidia.com/gpu = 0", "\n    flavor h100 { cpu = 1  memory = 1Gi  nvidia.com/gpu = 1 }",
        "{ topology = unconstrained"]
    for fix in out.result.fixes:
        _check(tmp_path, "examples/ml-platform", "team-infra/gpu-smoke", fix, before, out.loaded.sources)
