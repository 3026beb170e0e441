"""A JobSet or a LeaderWorkerSet being submitted that names no queue while its templates do. A JobSet's Jobs are
Kueue's one by one (jobset.child_jobs, templatepods.route; tests/oracle/features/jobset-queue-in-its-job-templates-
only.yaml), as JobSet's controller makes them: a replicated job that dependsOn another later (none now), those of a
JobSet suspended by its own spec suspended (Kueue's alike), under InOrder the first's alone (tests/oracle/features/
jobset-unmarked-depends-on-suspended-and-in-order.yaml): no KAD161; a LeaderWorkerSet's leader pods are Kueue's one
by one (lws._pods)."""

from __future__ import annotations

from kadmit.workspace import load

from .helpers import SETUP

JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: team}}
spec:{suspend}
  replicatedJobs:
  - name: w
    replicas: 2
    template:
      metadata: {{labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
      spec:
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
  - name: later
    dependsOn: [{{name: w, status: Complete}}]
    template:
      metadata: {{labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{{name: c, image: x}}]
"""
TEAM = SETUP.replace('namespace: "default"', 'namespace: "team"') + "---\napiVersion: v1\nkind: Namespace\n" \
    "metadata: {name: team}\n"
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve, namespace: team}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def _load(tmp_path, **files):
    for name, text in files.items():
        (tmp_path / (name if name.endswith(".yaml") else f"{name}.yaml")).write_text(text)
    return load([str(tmp_path)])


def test_a_jobsets_jobs_each_get_a_workload_of_their_templates_queue(tmp_path):
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=JOBSET.format(suspend=""))
    wls = loaded.model.workloads
    assert [(w.name, w.queue, [(ps.name, ps.count) for ps in w.pod_sets]) for w in wls] == [
        ("js:job-js-w-0", "user-queue", [("main", 2)]), ("js:job-js-w-1", "user-queue", [("main", 2)])]
    assert all(w.origin.kind == "JobSet" and w.origin.name == "js" for w in wls)
    # `later`'s Jobs come once `w`'s complete: pending work then, not now (no Workload, no KAD161)
    assert not [d for d in loaded.diagnostics if d.code == "KAD161"]


def test_a_jobset_suspended_by_its_own_spec_has_its_jobs_workloads_alike(tmp_path):
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=JOBSET.format(suspend="\n  suspend: true"))
    assert [(w.name, w.queue) for w in loaded.model.workloads] == [
        ("js:job-js-w-0", "user-queue"), ("js:job-js-w-1", "user-queue")]
    assert not [d for d in loaded.diagnostics if d.code == "KAD161"]


def test_a_jobset_in_order_has_its_first_replicated_jobs_jobs_alone(tmp_path):
    """`later` made to depend on nothing: under InOrder the controller waits for `w`'s Jobs to start first."""
    text = JOBSET.format(suspend="\n  startupPolicy: {startupPolicyOrder: InOrder}").replace(
        "    dependsOn: [{name: w, status: Complete}]\n", "")
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=text)
    assert [w.name for w in loaded.model.workloads] == ["js:job-js-w-0", "js:job-js-w-1"]
    text = text.replace("  - name: w\n    replicas: 2", "  - name: w\n    replicas: 0")  # w started, with no Jobs
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=text)
    assert [w.part for w in loaded.model.workloads] == ["Job js-later-0"]


def test_a_leaderworkerset_naming_a_queue_only_in_a_template_has_its_leader_pods_decided(tmp_path):
    """Its leaders take the worker template (no leader template): each leader pod a plain pod's Workload; its
    workers, under a leader pod naming a queue, are left ungated (lws._pods)."""
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, lws=LWS)
    assert [(w.part, w.queue, w.origin.name) for w in loaded.model.workloads] == [("pod serve-0", "user-queue", "serve")]
    assert not [d for d in loaded.diagnostics if d.code == "KAD161"]


POD_QUEUE = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: team}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def test_a_jobset_whose_jobs_pod_template_alone_names_a_queue_has_its_jobs_pods_decided(tmp_path):
    """Its Jobs name none and run; Kueue's pod webhook gates the pods they start, each a plain pod's Workload of that
    queue (oracle: the harness makes the Jobs' pods, test_convert on this case). Suspended by its own spec, its Jobs
    start no pods. Naming a pod group too, the group across the Jobs is not modelled: KAD161."""
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=POD_QUEUE.replace("spec:\n  replicatedJobs:\n  - name: w\n",
                                                                        "spec:\n  replicatedJobs:\n  - name: w\n    replicas: 2\n"))
    assert [(w.part, w.queue, [ps.count for ps in w.pod_sets]) for w in loaded.model.workloads] == [
        ("pod 0 of Job js-w-0", "user-queue", [1]), ("pod 0 of Job js-w-1", "user-queue", [1])]
    assert not [d for d in loaded.diagnostics if d.code == "KAD161"]
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=POD_QUEUE.replace("spec:\n  replicatedJobs", "spec:\n  suspend: true\n  replicatedJobs"))
    assert not loaded.model.workloads and not [d for d in loaded.diagnostics if d.code == "KAD161"]
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, js=POD_QUEUE.replace(
        "{kueue.x-k8s.io/queue-name: user-queue}", "{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: g}"))
    assert not loaded.model.workloads and [s.object.name for s in loaded.model.skipped] == ["js"]
    (d,) = [d for d in loaded.diagnostics if d.code == "KAD161"]
    assert "pod template" in d.message and d.span.line == 10


GROUPED = LWS.replace("{kueue.x-k8s.io/queue-name: user-queue}",
                      "{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: g}, annotations: "
                      "{kueue.x-k8s.io/pod-group-total-count: \"2\"}")


def test_a_leaderworkersets_leaders_naming_a_pod_group_are_its_members(tmp_path):
    """Size 1: its two leaders, gated, are group g's pods: one Workload of 2 pods, the LeaderWorkerSet's
    (tests/oracle/features/leaderworkerset-templates-naming-a-pod-group.yaml)."""
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, lws=GROUPED.replace("size: 2", "size: 1").replace(
        "spec:\n  leaderWorkerTemplate", "spec:\n  replicas: 2\n  leaderWorkerTemplate"))
    assert [(w.origin.name, w.queue, [ps.count for ps in w.pod_sets]) for w in loaded.model.workloads] == [
        ("serve", "user-queue", [2])]
    assert not [d for d in loaded.diagnostics if d.code == "KAD161"]


def test_a_leaderworkerset_whose_ungated_workers_carry_the_leaders_pod_group_is_warned_at(tmp_path):
    """Its workers, under a leader naming a queue, run ungated with group g's label: Kueue's group reconciler counts
    them by it (one Workload of leader and worker, as the oracle makes: tests/oracle/features/leaderworkerset-ungated-
    pods-carrying-the-gated-pods-group.yaml), and a running one holds the group back: that timing is warned of."""
    loaded = _load(tmp_path, **{"setup.yaml": TEAM}, lws=GROUPED)
    assert [(w.origin.name, [ps.count for ps in w.pod_sets]) for w in loaded.model.workloads] == [("serve", [2])]
    (d,) = [d for d in loaded.diagnostics if d.code == "KAD161"]
    assert "pod group `g`" in d.message and d.span.line == 1


def test_a_disabled_leaderworkersets_leader_statefulset_managed_without_queue_name_is_never_admitted():
    """`statefulset` enabled, the LeaderWorkerSet's integration not, manageJobsWithoutQueueName, no `default`: Kueue's
    StatefulSet integration takes the leader StatefulSet (lws._leader_set), whose Workload has no queue, even where
    the LeaderWorkerSet names a queue itself (w): the reason names that StatefulSet."""
    from pathlib import Path
    case = Path(__file__).parents[1] / "oracle" / "features" / \
        "leaderworkerset-without-its-integration-statefulset-managed-without-queue-name.yaml"
    loaded = load([str(case)])
    reasons = {s.object.name: s.reason for s in loaded.model.skipped if s.object.kind == "LeaderWorkerSet"}
    assert set(reasons) == {"d", "w"} and not loaded.model.workloads
    assert all(r.startswith("Kueue manages its leader StatefulSet (`manageJobsWithoutQueueName`) but its leader "
                            "StatefulSet names no queue") and "never admitted" in r for r in reasons.values()), reasons


def test_a_disabled_leaderworkersets_leader_pods_the_pod_webhook_refuses_are_warned_at():
    """The leader StatefulSet Kueue's StatefulSet integration takes: g's leader template names group lg with no
    total count, so Kueue's pod webhook refuses every leader pod, while the StatefulSet's Workload is admitted all the
    same (as the oracle's): KAD199 at the group's label, nothing refused (no KAD170); h's group has its count: none."""
    from pathlib import Path
    ws = load([str(Path(__file__).parents[1] / "oracle" / "features" /
                   "leaderworkerset-without-its-integration-statefulset-leader-pods-refused.yaml")])
    assert sorted(w.key for w in ws.model.workloads) == ["ns-b/g", "ns-b/h"]
    assert not [d for d in ws.diagnostics if d.code == "KAD170"]
    warned = [d for d in ws.diagnostics if d.code == "KAD199"]
    assert len(warned) == 1 and "every leader pod of LeaderWorkerSet `g`" in warned[0].message
    assert "pod-group-total-count]: Required value" in warned[0].message
    assert warned[0].span.line == 68 and [s.name for s in warned[0].about] == ["g"]


def test_a_disabled_leaderworkerset_already_in_the_cluster_leaves_its_leader_statefulset_to_the_input():
    """Already in the cluster, `statefulset` enabled and its own integration not: nothing is made of it (its leader
    StatefulSet was made when it was created); u's, in the input, is decided as any StatefulSet (admitted, as by the
    oracle); both LeaderWorkerSets skipped, the reason saying where their leader StatefulSet is decided."""
    from pathlib import Path
    ws = load([str(Path(__file__).parents[1] / "oracle" / "features" /
                   "leaderworkerset-without-its-integration-statefulset-already-in-the-cluster.yaml")])
    assert [(w.key, w.origin.kind) for w in ws.model.workloads] == [("ns-b/u", "StatefulSet")]
    reasons = {s.object.name: s.reason for s in ws.model.skipped if s.object.kind == "LeaderWorkerSet"}
    assert set(reasons) == {"u", "v"}
    assert all(f"its leader StatefulSet `{n}`" in r and "decided as any StatefulSet" in r for n, r in reasons.items())


def test_a_statefulsets_own_pod_group_is_warned_refused_or_gated_for_good():
    """A StatefulSet Kueue takes whose template names a pod group: its Workload is admitted all the same (as the
    oracle's); without the group's count every pod is refused (KAD199 at the group's label), with it every pod
    stays gated (KAD188, Kueue's StatefulSet pod reconciler cannot rename the group); nothing refused (KAD170)."""
    from pathlib import Path
    ws = load([str(Path(__file__).parents[1] / "oracle" / "features" / "statefulset-template-naming-a-pod-group.yaml")])
    assert sorted(w.origin.name for w in ws.model.workloads) == ["counted", "nocount"]
    assert not [d for d in ws.diagnostics if d.code == "KAD170"]
    refused, gated = ([d for d in ws.diagnostics if d.code == code] for code in ("KAD199", "KAD188"))
    assert len(refused) == 1 and "every pod of StatefulSet `ns/nocount`" in refused[0].message
    assert "pod-group-total-count]: Required value" in refused[0].message and refused[0].span.line == 47
    assert len(gated) == 1 and "every pod of StatefulSet `ns/counted` is created gated in its own pod group `g2`" \
        in gated[0].message and [s.name for s in gated[0].about] == ["counted"]


def test_a_disabled_leaderworkersets_leaders_in_their_own_counted_group_are_warned_gated_for_good():
    """h's leader template names group lh with its count: its leaders are created gated and stay so (KAD188),
    its leader StatefulSet's Workload admitted all the same; g's (no count) are refused (KAD199), not KAD188."""
    from pathlib import Path
    ws = load([str(Path(__file__).parents[1] / "oracle" / "features" /
                   "leaderworkerset-without-its-integration-statefulset-leader-pods-refused.yaml")])
    gated = [d for d in ws.diagnostics if d.code == "KAD188"]
    assert len(gated) == 1 and "every leader pod of LeaderWorkerSet `h`" in gated[0].message
    assert "own pod group `lh`" in gated[0].message and [s.name for s in gated[0].about] == ["h"]
