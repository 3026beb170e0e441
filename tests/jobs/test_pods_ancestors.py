"""A pod being submitted under a controller other than a ReplicaSet: Kueue's pod webhook walks up its controllers
(FindAncestorJobManagedByKueue) and leaves it to the first Kueue manages, else it is a plain pod of its own
(jobs/ancestors.py; tests/oracle/features/pod-under-another-controller-walks-its-ancestors.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import SETUP, admit_json, model_of, run

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {{kueue.x-k8s.io/queue-name: user-queue}}{annotations}
  ownerReferences: [{{apiVersion: {api}, kind: {kind}, name: {owner}, uid: u-1, controller: true}}]
spec:
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {{name: j, labels: {labels}}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "2"}}}}}}]
"""
MANAGE_ALL = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\n"


def pod(api="batch/v1", kind="Job", owner="j", annotations=""):
    return POD.format(api=api, kind=kind, owner=owner, annotations=annotations)


@pytest.mark.parametrize("case, files, theirs", [
    # a kind Kueue does not know: the walk stops at once, the pod is its own
    ("unknown kind", {"p__yaml": pod("example.com/v1", "Foo", "foo")}, False),
    # a Job that names a queue: Kueue's, and so is the pod
    ("managed job", {"p__yaml": pod(), "j__yaml": JOB.format(labels="{kueue.x-k8s.io/queue-name: user-queue}")},
     True),
    # a Job naming none: the walk goes past it, the pod is its own
    ("unmanaged job", {"p__yaml": pod(), "j__yaml": JOB.format(labels="{app: j}")}, False),
    # ... unless Kueue manages jobs without a queue name
    ("managed without a queue name", {"p__yaml": pod(), "j__yaml": JOB.format(labels="{app: j}"),
                                      "cfg__yaml": MANAGE_ALL}, True),
    # a known controller the input does not hold: Kueue's webhook reads it to go on; the pod is left to it
    ("absent", {"p__yaml": pod()}, True),
    # a kind Kueue knows, but another version: not its integration's (isKnownOwner matches apiVersion and kind)
    ("other version", {"p__yaml": pod("batch/v2", "Job")}, False),
    # marked by a parent's webhook: suspended without a walk, its parent's
    ("parent marked", {"p__yaml": pod(annotations="\n  annotations: {kueue.x-k8s.io/pod-suspending-parent: x}")},
     True),
])
def test_a_pod_being_submitted_is_its_controllers_only_under_one_kueue_manages(tmp_path, case, files, theirs):
    m = model_of(tmp_path, setup__yaml=SETUP, **files)
    mine = [w for w in m.workloads if w.origin.kind == "Pod"]
    assert (not mine) == theirs, case
    if case == "absent":
        assert "Job `j` controls it, and the input does not hold that object" in m.skipped[0].reason


HAND_MADE_LWS = Path(__file__).parents[1] / "oracle" / "features" / \
    "leaderworkerset-queue-in-its-templates-pods-as-its-controller-makes-them.yaml"


def test_a_worker_pod_under_its_leader_pod_is_listed_as_running_outside_any_quota():
    """A LeaderWorkerSet's worker pod, given with its StatefulSet (owned by the leader pod, which names a queue):
    the walk finds the leader pod, Kueue's, so the worker is left ungated, and said so in `admit` (human and JSON)
    and `why`; the leader StatefulSet, under a LeaderWorkerSet Kueue does not manage, is not said to be covered by
    that LeaderWorkerSet's Workload (it has none)."""
    out = admit_json(str(HAND_MADE_LWS))
    assert [d["workload"] for d in out["decisions"]] == ["ns-b/serve-0"]
    reasons = {(s["kind"], s["name"]): s["reason"] for s in out["skipped"]}
    worker = reasons[("Pod", "serve-0-1")]
    assert "finds Pod `ns-b/serve-0`, a job Kueue manages (it names LocalQueue `lq`)" in worker
    assert worker.endswith("runs ungated, outside any quota")
    leader_set = reasons[("StatefulSet", "serve")]
    assert "admits as a whole" not in leader_set
    assert leader_set.startswith("its controller, LeaderWorkerSet `ns-b/serve`, is no job Kueue manages")
    human = run("admit", str(HAND_MADE_LWS))
    assert human.exit_code == 0 and "Pod ns-b/serve-0-1 (" in human.output
    why = run("why", "ns-b/serve-0-1", str(HAND_MADE_LWS))
    assert "KAD011" in why.output and "outside any quota" in why.output
