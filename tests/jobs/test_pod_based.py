"""LeaderWorkerSet, plain Pods, pod groups, Deployment and StatefulSet become the Workloads Kueue makes."""

from __future__ import annotations

from .helpers import SETUP, admit_json, model_of, run, write

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
{leader}
    workerTemplate:
      spec:
        containers:
        - name: w
          image: nginx
          resources: {{requests: {{cpu: "1"}}}}
"""
LEADER = """\
    leaderTemplate:
      spec:
        containers:
        - name: l
          image: nginx
          resources: {requests: {cpu: "2"}}
"""


def pod(name: str, *, group: str | None = "g", total: int = 2, cpu: str = "1", gate: bool = True,
        extra_labels: str = "") -> str:
    labels = "kueue.x-k8s.io/queue-name: user-queue" + (f", kueue.x-k8s.io/pod-group-name: {group}" if group else "")
    ann = f"kueue.x-k8s.io/pod-group-total-count: '{total}'" if group else ""
    gates = "  schedulingGates: [{name: kueue.x-k8s.io/admission}]\n" if gate else ""
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{{labels}{extra_labels}}}
  annotations: {{{ann}}}
spec:
{gates}  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: "{cpu}"}}}}
---
"""


def test_leader_worker_set_makes_a_workload_per_group(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, lws__yaml=LWS.format(leader=LEADER))
    assert len(m.workloads) == 2
    for i, wl in enumerate(m.workloads):
        assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == [("leader", 1, 2000), ("worker", 2, 1000)]
        assert wl.part == f"group {i}" and wl.origin.kind == "LeaderWorkerSet"
    # Kueue's name: GetWorkloadNameForOwnerWithGVK("serve-<i>", uid, LeaderWorkerSet), its hash the cluster's (no UID);
    # kadmit's own key (`identity.own_name`), which no Workload of Kueue's can be named
    assert m.workloads[0].name == "serve:group-0" and m.workloads[0].kueue_name == ""


def test_leader_worker_set_without_a_leader_template_has_one_pod_set(tmp_path):
    (a, b) = model_of(tmp_path, setup__yaml=SETUP, lws__yaml=LWS.format(leader="")).workloads
    assert [(p.name, p.count) for p in a.pod_sets] == [("main", 3)]


def test_leader_worker_set_groups_are_named_and_decided(tmp_path):
    paths = write(tmp_path, setup__yaml=SETUP, lws__yaml=LWS.format(leader=LEADER).replace("replicas: 2", "replicas: 3"))
    out = admit_json(*paths)
    assert [d["admitted"] for d in out["decisions"]] == [True, True, False]  # 4 cpus each, 9 in the queue
    r = run("why", "default/serve", *paths)
    assert r.exit_code == 2 and "more than one workload" in r.output
    key = out["decisions"][2]["workload"]
    r = run("why", key, *paths)
    assert r.exit_code == 1 and "the leader of group" in r.output


def test_a_pod_group_is_one_workload_with_pod_sets_by_shape(tmp_path):
    pods = pod("a", total=3) + pod("b", total=3) + pod("c", total=3, cpu="2")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=pods).workloads
    assert wl.name == "g" and wl.origin.name == "g"
    assert sorted((p.count, p.requests["cpu"]) for p in wl.pod_sets) == [(1, 2000), (2, 1000)]
    assert [p.name for p in wl.pod_sets] == sorted(p.name for p in wl.pod_sets)


def test_an_incomplete_pod_group_waits_and_says_so(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=pod("a", total=3) + pod("b", total=3))
    assert m.workloads == () and "2 of its 3 pods" in m.skipped[0].reason and len(m.skipped) == 2


def test_fast_admission_counts_the_total(tmp_path):
    one = pod("a", total=4).replace("annotations: {", "annotations: {kueue.x-k8s.io/pod-group-fast-admission: 'true', ")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=one).workloads
    assert [p.count for p in wl.pod_sets] == [4]


def test_plain_pods_and_pods_kueue_does_not_manage(tmp_path):
    text = pod("solo", group=None) + """\
apiVersion: v1
kind: Pod
metadata: {name: unmanaged}
spec: {nodeName: n1, containers: [{name: c, image: x}]}
"""
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=text)
    (wl,) = m.workloads
    assert wl.origin.name == "solo" and wl.kueue_name == "" and wl.pod_sets[0].count == 1
    assert {p.name for p in m.pods} == {"solo", "unmanaged"} and m.skipped == ()


def test_a_pod_about_to_be_created_takes_the_default_local_queue(tmp_path):
    """Kueue's pod webhook gives a pod without a queue name the LocalQueue `default` of its
    namespace (local queue defaulting), and manages it; in a namespace without one it is not
    managed and says so; a pod on a node, or one already created, is node usage only."""
    default_lq = ("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: default, namespace: a}\n"
                  "spec: {clusterQueue: cluster-queue}\n")
    pods = "---\n".join(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}{extra}}}\n"
        f"spec: {{{node}containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]}}\n"
        for name, ns, extra, node in (("new", "a", "", ""), ("elsewhere", "b", "", ""),
                                      ("bound", "a", "", "nodeName: n1, "), ("old", "a", ", uid: u1", "")))
    m = model_of(tmp_path, setup__yaml=SETUP, lq__yaml=default_lq, pods__yaml=pods)
    (wl,) = m.workloads
    assert (wl.namespace, wl.origin.name, wl.queue) == ("a", "new", "default")
    assert [(s.object.name, s.reason) for s in m.skipped] == [
        ("elsewhere", "it has no `kueue.x-k8s.io/queue-name` label (and namespace has no LocalQueue `default`): "
                      "Kueue does not manage it")]


def test_plain_pods_need_the_pod_framework(tmp_path):
    cfg = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations: {frameworks: [batch/job]}\n"
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=cfg, pods__yaml=pod("solo", group=None))
    assert m.workloads == () and "`pod`" in m.skipped[0].reason
    assert "gates" not in m.skipped[0].reason


def test_a_plain_pod_under_an_implicit_pod_integration_stays_gated(tmp_path):
    """`deployment` (or statefulset, leaderworkerset) turns Kueue's pod integration on when it is not
    listed: its webhook gates a pod that names a queue, and its reconciler skips a pod no parent
    made (tests/oracle/features/pod-integration-on-implicitly-gates-a-plain-pod.yaml); a pod without
    a queue name is left alone."""
    cfg = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
           "integrations: {frameworks: [batch/job, statefulset]}\n")
    plain = ("apiVersion: v1\nkind: Pod\nmetadata: {name: plain}\n"
             "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=cfg, pods__yaml=pod("solo", group=None, gate=False) + plain)
    reasons = {s.object.name: s.reason for s in m.skipped}
    assert m.workloads == () and set(reasons) == {"solo", "plain"}
    assert "but `statefulset` there turns it on" in reasons["solo"]
    assert "gates this pod (it names LocalQueue `user-queue`)" in reasons["solo"]
    assert "stays gated" in reasons["solo"]
    assert reasons["plain"] == ("integration `pod` is not in `integrations.frameworks` of the input's "
                                "Configuration")


def test_deployment_pods_are_single_pod_workloads(tmp_path):
    dep = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "4"}}}]
"""
    paths = write(tmp_path, setup__yaml=SETUP, dep__yaml=dep)
    out = admit_json(*paths)
    assert [d["admitted"] for d in out["decisions"]] == [True, True, False]
    assert {d["object"]["kind"] for d in out["decisions"]} == {"Deployment"}


def test_an_existing_deployments_pods_take_their_templates_labels(tmp_path):
    """A Deployment already in the cluster (a UID) never passed Kueue's webhook, which copies its
    queue name and WorkloadPriorityClass label into the template: its pods are Kueue's only if the
    template names a queue, and their priority class is the template's (tests/oracle/features/
    existing-deployment.yaml decides such Deployments with Kueue)."""
    dep = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  uid: {uid}
  labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: high}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web{extra}}}}}
    spec:
      priorityClassName: pods-class
      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "1"}}}}}}]
---
"""
    text = (dep.format(name="old", uid="u-1", extra="") + dep.format(name="labelled", uid="u-2",
                                                                     extra=", kueue.x-k8s.io/queue-name: user-queue")
            + dep.format(name="new", uid='""', extra="")
            + "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: pods-class}\nvalue: 5\n---\n"
            + "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: high}\nvalue: 9\n")
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=text)
    got = {w.origin.name: (w.queue, w.priority_class, w.priority_class_kind) for w in m.workloads}
    # `labelled`'s pods are left alone: their Deployment names a queue (Kueue's, as an ancestor), and
    # the template lacks the mark Kueue's Deployment webhook gives it; so are `old`'s
    assert got == {"new": ("user-queue", "high", "workload")}
    assert sorted(s.object.name for s in m.skipped) == ["labelled", "old"]
    assert all("Skipping pod, not managed by Kueue" in s.reason for s in m.skipped)
    # the marks Kueue's Deployment webhook gives a template: the parent annotation and the managed label
    marked = text.replace("metadata: {labels: {app: web, kueue", "metadata: {annotations: {kueue.x-k8s.io/"
                          'pod-suspending-parent: deployment}, labels: {app: web, kueue.x-k8s.io/managed: "true", kueue')
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=marked)
    got = {w.origin.name: (w.queue, w.priority_class, w.priority_class_kind) for w in m.workloads}
    assert got == {"labelled": ("user-queue", "pods-class", "pod"), "new": ("user-queue", "high", "workload")}
    # the parent annotation alone: Kueue's pod webhook gates the pods without labelling them, and its pod
    # reconciler skips them (oracle: deployment-in-the-cluster-implicit-pod-integration-unmarked-pods-skipped.yaml)
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=marked.replace('kueue.x-k8s.io/managed: "true", ', ""))
    assert {w.origin.name for w in m.workloads} == {"new"}
    assert "without the `kueue.x-k8s.io/managed: \"true\"` label" in next(
        s.reason for s in m.skipped if s.object.name == "labelled")


def test_an_existing_deployment_naming_no_queue_gets_the_default_queue_for_its_pods(tmp_path):
    """A Deployment already in the cluster naming no queue: the pods its ReplicaSet makes pass Kueue's
    pod webhook, which gives them the namespace's LocalQueue `default` where it has one (no owner of
    theirs is Kueue's), so Kueue admits them through it (tests/oracle/features/deployment-in-the-
    cluster-pods-take-the-default-queue.yaml; soak seed 916). Under manageJobsWithoutQueueName the
    Deployment is Kueue's as their ancestor: the webhook leaves them alone, Kueue skips them."""
    dep = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, uid: u-1}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
"""
    default_lq = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default}\n" \
                 "spec: {clusterQueue: cluster-queue}\n"
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=dep)
    (skip,) = m.skipped
    assert m.workloads == () and "namespace has no LocalQueue `default`" in skip.reason
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=dep + default_lq)
    assert [(w.origin.name, w.queue) for w in m.workloads] == [("web", "default")] and not m.skipped
    cfg = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\n"
           "integrations: {frameworks: [batch/job, pod, deployment]}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, dep__yaml=dep + default_lq, cfg__yaml=cfg)
    (skip,) = m.skipped
    assert m.workloads == () and "Skipping pod, not managed by Kueue" in skip.reason
    assert "takes it as its own" in skip.reason


def test_statefulset_is_one_pod_group(tmp_path):
    sts = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "4"}}}]
"""
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, sts__yaml=sts).workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("main", 3)] and wl.kueue_name == ""  # statefulset-db-<its UID's hash>
    r = run("why", "default/db", *write(tmp_path, setup__yaml=SETUP, sts__yaml=sts))
    assert r.exit_code == 1 and "12" in r.output  # 3 × 4 cpus > 9


def test_a_statefulset_and_lws_naming_a_queue_ignore_the_namespace_selector(tmp_path):
    """Their own reconcilers make the Workload of one naming a queue whatever its namespace
    (tests/oracle/features/namespace-selector-leaves-statefulsets-and-lws-with-a-queue.yaml); one
    without a queue name, under manageJobsWithoutQueueName, still needs the namespace selected, as
    a Job with a queue name does."""
    cfg = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\n"
           "integrations: {frameworks: [batch/job, pod, statefulset, leaderworkerset.x-k8s.io/leaderworkerset]}\n"
           "managedJobsNamespaceSelector: {matchLabels: {kueue: enabled}}\n")
    sts = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: NAME
  labels: {LABELS}
spec:
  replicas: 1
  serviceName: NAME
  selector: {matchLabels: {app: NAME}}
  template:
    metadata: {labels: {app: NAME}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
"""
    lws = ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n"
           "metadata: {name: lws, labels: {kueue.x-k8s.io/queue-name: user-queue}}\n"
           "spec: {replicas: 1, leaderWorkerTemplate: {size: 1, workerTemplate: {spec: {containers: "
           "[{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}}}\n---\n")
    text = (sts.replace("NAME", "queued").replace("LABELS", "kueue.x-k8s.io/queue-name: user-queue")
            + sts.replace("NAME", "bare").replace("LABELS", "") + lws)
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: job, labels: {kueue.x-k8s.io/queue-name: user-queue}}\n"
           "spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: "
           "{requests: {cpu: '1'}}}]}}}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=cfg, jobs__yaml=text + job)
    assert sorted(w.origin.name for w in m.workloads) == ["lws", "queued"]
    reasons = {s.object.name: s.reason for s in m.skipped}
    assert set(reasons) == {"bare", "job"}
    assert all("not selected by `managedJobsNamespaceSelector`" in r for r in reasons.values())


def test_a_pod_already_created_without_kueues_label_is_not_kueues(tmp_path):
    """Kueue's webhook labels the pods it manages (`kueue.x-k8s.io/managed: "true"`); its reconciler
    skips a pod without it (pod.Skip, "Skipping pod, not managed by Kueue"). A pod the input shows as
    created (a UID, or a status) never met the webhook: no Workload. Being submitted, it gets one."""
    created = pod("p", group=None, gate=False).replace("  name: p\n", "  name: p\n  uid: 00000000-0000-0000-0000-000000000001\n")
    (tmp_path / "a").mkdir()
    assert model_of(tmp_path / "a", setup__yaml=SETUP, p__yaml=created).workloads == ()
    running = pod("p", group=None, gate=False) + "status: {phase: Pending}\n"
    (tmp_path / "b").mkdir()
    assert model_of(tmp_path / "b", setup__yaml=SETUP, p__yaml=running.replace("---\nstatus", "status")).workloads == ()
    labelled = created.replace("kueue.x-k8s.io/queue-name: user-queue", "kueue.x-k8s.io/queue-name: user-queue, "
                               "kueue.x-k8s.io/managed: 'true'")
    (tmp_path / "c").mkdir()
    assert len(model_of(tmp_path / "c", setup__yaml=SETUP, p__yaml=labelled).workloads) == 1
    (tmp_path / "d").mkdir()
    assert len(model_of(tmp_path / "d", setup__yaml=SETUP, p__yaml=pod("p", group=None, gate=False)).workloads) == 1


def _created(text: str, name: str, *, phase: str, node: str | None = None) -> str:
    """The pod of `pod(...)` as the cluster holds it: Kueue's managed label, a UID, a phase, a node."""
    text = text.replace("kueue.x-k8s.io/queue-name: user-queue", "kueue.x-k8s.io/queue-name: user-queue, "
                        "kueue.x-k8s.io/managed: 'true'")
    text = text.replace(f"  name: {name}\n", f"  name: {name}\n  uid: uid-{name}\n")
    if node:
        text = text.replace("spec:\n", f"spec:\n  nodeName: {node}\n", 1)
    return text.replace("\n---\n", f"\nstatus: {{phase: {phase}}}\n---\n")


def test_a_single_pod_running_on_no_node_is_pending_work(tmp_path):
    """Kueue's `Pod.IsActive` reads the group's list, empty for a single pod: the reconciler never
    waits for a single pod, stops it when ungated and makes its Workload
    (tests/oracle/features/single-pod-running-on-no-node.yaml). One on a node is node usage only."""
    running = _created(pod("r", group=None, gate=False), "r", phase="Running")
    bound = _created(pod("b", group=None, gate=False), "b", phase="Running", node="n1")
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=running + bound)
    (wl,) = m.workloads
    assert wl.origin.name == "r"
    ((skipped, reason),) = [(s.object.name, s.reason) for s in m.skipped]
    assert skipped == "b" and reason.startswith("it is on node `n1`, ungated, and the input holds no Workload")


def test_a_pod_group_with_a_running_member_waits(tmp_path):
    """A group's `Pod.IsActive` is true while any member's phase is Running, gated or not: Kueue's
    `handleJobWithNoWorkload` waits ("Job is suspended but still has active pods, waiting") even
    where another member is gated (the group is suspended, so nothing is stopped)."""
    gated = _created(pod("a"), "a", phase="Pending")
    running = _created(pod("b", gate=False), "b", phase="Running", node="n1")
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=gated + running)
    assert m.workloads == ()
    ((name, reason),) = [(s.object.name, s.reason) for s in m.skipped]
    assert name == "g" and "Kueue makes none while it is active" in reason


def test_a_pod_group_with_a_bound_member_not_running_is_made(tmp_path):
    """A member on a node whose phase is not Running is not active (`Pod.IsActive` reads the phase
    alone): with a gated member the group is suspended, nothing is stopped, and Kueue makes the
    group's Workload of both pods."""
    gated = _created(pod("a"), "a", phase="Pending")
    bound = _created(pod("b", gate=False), "b", phase="Pending", node="n1")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=gated + bound).workloads
    assert wl.origin.name == "g" and sum(p.count for p in wl.pod_sets) == 2


def test_a_running_member_waits_before_the_group_is_counted(tmp_path):
    """Kueue reads `IsActive` before it composes the group's Workload: a group with a Running
    member and fewer pods than its total waits for the running one, not for the missing ones."""
    running = _created(pod("b", total=3, gate=False), "b", phase="Running", node="n1")
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml=_created(pod("a", total=3), "a", phase="Pending") + running)
    assert m.workloads == ()
    ((name, reason),) = [(s.object.name, s.reason) for s in m.skipped]
    assert name == "g" and "Kueue makes none while it is active" in reason


def test_a_groups_succeeded_pods_count_and_are_reclaimed(tmp_path):
    """Kueue counts a Succeeded member among the group's pods (`isPodRunnableOrSucceeded`) and takes
    it off its role's count (`Pod.ReclaimablePods`, `podSetsCountsAfterReclaim`); a Failed one is
    neither; as many Succeeded pods as the total is a finished group
    (tests/oracle/features/pod-group-succeeded-member-reclaimed.yaml)."""
    done = _created(pod("a", total=3, gate=False), "a", phase="Succeeded")
    gated = _created(pod("b", total=3), "b", phase="Pending") + _created(pod("c", total=3), "c", phase="Pending")
    (tmp_path / "1").mkdir()
    (wl,) = model_of(tmp_path / "1", setup__yaml=SETUP, pods__yaml=done + gated).workloads
    assert [p.count for p in wl.pod_sets] == [2] and "1 Succeeded, its quota reclaimed" in wl.pod_sets[0].origin
    failed = _created(pod("a", total=3, gate=False), "a", phase="Failed")
    (tmp_path / "2").mkdir()
    m = model_of(tmp_path / "2", setup__yaml=SETUP, pods__yaml=failed + gated)
    assert m.workloads == () and "2 of its 3 pods" in m.skipped[0].reason
    all_done = "".join(_created(pod(n, total=2, gate=False), n, phase="Succeeded") for n in ("a", "b"))
    (tmp_path / "3").mkdir()
    m = model_of(tmp_path / "3", setup__yaml=SETUP, pods__yaml=all_done)
    assert m.workloads == () and [s.reason for s in m.skipped] == ["it has finished"]


def test_a_serving_groups_succeeded_pods_are_not_reclaimed_and_it_never_finishes(tmp_path):
    """`kueue.x-k8s.io/pod-group-serving: "true"`: Kueue's Pod.isReclaimable is false and Pod.Finished never
    finishes the group (tests/oracle/features/pod-group-serving-reclaims-nothing-never-finishes.yaml)."""
    def serving(text: str) -> str:
        return text.replace("pod-group-total-count: '", "pod-group-serving: 'true', kueue.x-k8s.io/pod-group-total-count: '")

    done = serving(_created(pod("a", total=3, gate=False), "a", phase="Succeeded"))
    gated = serving(_created(pod("b", total=3), "b", phase="Pending") + _created(pod("c", total=3), "c", phase="Pending"))
    (tmp_path / "1").mkdir()
    (wl,) = model_of(tmp_path / "1", setup__yaml=SETUP, pods__yaml=done + gated).workloads
    assert [p.count for p in wl.pod_sets] == [3] and "Succeeded" not in wl.pod_sets[0].origin
    all_done = serving("".join(_created(pod(n, total=2, gate=False), n, phase="Succeeded") for n in ("a", "b")))
    (tmp_path / "2").mkdir()
    m = model_of(tmp_path / "2", setup__yaml=SETUP, pods__yaml=all_done)
    assert [p.count for w in m.workloads for p in w.pod_sets] == [2] and m.skipped == ()


def test_an_object_making_more_workloads_than_kadmit_reads_is_refused_at_replicas(tmp_path, monkeypatch):
    """`replicas` up to 2^31 - 1 is valid Kubernetes, and Kueue makes a Workload per Deployment pod and per
    LeaderWorkerSet group: kadmit refuses the object at the field (KAD003) above 100,000 rather than build
    them (found by the CLI fuzz: an LWS of 2,147,483,647 groups ran until killed, 100,000 took 60 s).
    The bound itself is read at a bound of 3 (the same check, `replicas_read`): an object at the bound
    builds all its Workloads, one past it none (100,000 groups built took 25–50 s of the suite)."""
    from kadmit import budget, workspace
    from kadmit.manifests.jobs import common
    from kadmit.manifests.jobs.common import MAX_OBJECT_WORKLOADS

    lws = LWS.format(leader="").replace("replicas: 2", "replicas: 2147483647")
    dep = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {kueue.x-k8s.io/queue-name: "
           "user-queue}}\nspec:\n  replicas: 100001\n  template:\n    spec:\n      containers: [{name: c, image: "
           "nginx, resources: {requests: {cpu: '1'}}}]\n")
    surge = (LWS.format(leader="").replace("spec:\n", "spec:\n  rolloutStrategy: {rollingUpdateConfiguration: "
                                                      "{maxSurge: '1" + "0" * 5000 + "'}}\n", 1)
             + "status: {replicas: 2000000000, updatedReplicas: 0}\n")  # (5,000 digits: past Python's int())
    for name, text, big in [("lws", lws, "2147483647"), ("dep", dep, "100001"), ("surge", surge, "2000000000")]:
        line = text[:text.index(f"replicas: {big}")].count("\n") + 1
        ws = workspace.load(write(tmp_path, setup__yaml=SETUP, **{f"{name}__yaml": text}))
        got = [(d.code, d.span.line) for d in ws.diagnostics if d.severity.value == "error"]
        assert got == [("KAD003", line)], (name, [str(d) for d in ws.diagnostics])
        assert f"kadmit reads at most {MAX_OBJECT_WORKLOADS:,} from one object" in str(ws.diagnostics)
        assert ws.model.workloads == ()
    # an object at the bound is within the inputs' total too (budget.MAX_WORKLOADS refuses none of it)
    assert MAX_OBJECT_WORKLOADS <= budget.MAX_WORKLOADS
    monkeypatch.setattr(common, "MAX_OBJECT_WORKLOADS", 3)
    groups = LWS.format(leader="")
    at = workspace.load(write(tmp_path, setup__yaml=SETUP, lws__yaml=groups.replace("replicas: 2", "replicas: 3")))
    assert not at.diagnostics.has_errors and len(at.model.workloads) == 3
    past = workspace.load(write(tmp_path, setup__yaml=SETUP, lws__yaml=groups.replace("replicas: 2", "replicas: 4")))
    assert [d.code for d in past.diagnostics if d.severity.value == "error"] == ["KAD003"]
    assert "kadmit reads at most 3 from one object" in str(past.diagnostics) and past.model.workloads == ()


def test_a_managed_label_other_than_true_is_refused_where_kueue_does_not_manage_the_pod(tmp_path):
    """Kueue's pod webhook refuses `kueue.x-k8s.io/managed` of any value but `true` (validateManagedLabel), which its
    Default writes on a pod it gates: a pod naming no queue keeps the value and is refused (KAD170, Kueue's words);
    one naming a queue is Kueue's (tests/oracle/jobs/refusals.yaml compares both with the oracle)."""
    from kadmit.workspace import load

    def one(name: str, labels: str) -> str:
        return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{{labels}}}}}\n"
                "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n---\n")
    text = one("bare", "kueue.x-k8s.io/managed: 'no'") + one("queued", "kueue.x-k8s.io/managed: 'false', "
                                                             "kueue.x-k8s.io/queue-name: user-queue")
    ws = load(write(tmp_path, setup__yaml=SETUP, pods__yaml=text))
    words = "metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be 'true'"
    assert [(d.code, d.message) for d in ws.diagnostics if d.code == "KAD170"] == [
        ("KAD170", f"Kueue's webhook refuses Pod `bare`: {words}")]
    assert [s.reason for s in ws.model.skipped if s.object.name == "bare"] == [f"Kueue's webhook refuses it: {words}"]
    assert [w.origin.name for w in ws.model.workloads] == ["queued"]
