"""Kueue pod groups: the pods that share a `kueue.x-k8s.io/pod-group-name` joined into one job."""

from __future__ import annotations

from kadmit.manifests.jobs.prebuilt import PREBUILT_ABSENT, PREBUILT_OUT_OF_SYNC
from kadmit.model import Job, PodSet, Shapes, Skipped, Workload

# The label naming a pod's group (Kueue's pkg/controller/jobs/pod/constants GroupNameLabel): here, not in
# `pods`, so that `manage` reads it without the manifest reader `pods` imports (a `.kad` input needs none).
GROUP_NAME = "kueue.x-k8s.io/pod-group-name"


def join_pod_groups(jobs: tuple[Job, ...], sliced: bool = False) -> tuple[list[Job], list[Skipped]]:
    """Pods of one Kueue pod group (namespace and `pod-group-name`) become one job, in place of
    its first member (`ConstructComposableWorkload`, pod_controller.go): pod sets by role (pods
    of the same shape), sorted by role name; the group's size is `pod-group-total-count`, and
    without fast admission Kueue waits for that many runnable pods before making the Workload.
    `sliced`: the ElasticJobsViaWorkloadSlices gate is on (`join_group`)."""
    members: dict[tuple[str | None, str], list[Job]] = {}
    for job in jobs:
        if job.group:
            members.setdefault((job.object.namespace, job.group), []).append(job)
    out: list[Job] = []
    skipped: list[Skipped] = []
    for job in jobs:
        if not job.group:
            out.append(job)
            continue
        pods = members.get((job.object.namespace, job.group))
        if not pods or pods[0] is not job:
            continue
        joined, why = join_group(job.group, pods, sliced)
        if joined is not None:
            out.append(joined.model_copy(update={"deleting": False}))  # the group's, not its first member's
        else:
            skipped.extend(Skipped(object=p.object, reason=why, span=p.span) for p in pods)
    return out, skipped


def join_group(name: str, pods: list[Job], sliced: bool = False) -> tuple[Job | None, str]:
    """The job a pod group of these pods is, or None and why Kueue makes no Workload of it (`join_pod_groups`).
    An elastic group (its first member by name annotated `kueue.x-k8s.io/elastic-job`, `sliced` the gate on) with a Running
    member is made whole all the same, its state `running`: Kueue waits for no member to end before it makes the
    group's Workload (handleJobWithNoWorkload; `manage` makes it)."""
    first = pods[0]
    total = first.group_total or 0
    ref = first.object.model_copy(update={"name": name, "uid": None})
    serving = first.group_serving  # `Pod.isServing`: the reconciled pod's annotation (the group's, as written)
    if total and sum(p.succeeded for p in pods) >= total and not serving:
        # `Pod.Finished`: as many Succeeded pods as the group's total (a serving group never finishes)
        return first.model_copy(update={"object": ref, "state": "finished", "group": None,
                                        "generate_name": False}), ""
    # `Pod.ReclaimablePods`: the group's Succeeded pods, by role, which Kueue's reconciler writes to
    # the Workload's `status.reclaimablePods` (one it has: `reclaim.reclaim_applied`; one it makes: below) and its
    # scheduler takes off the pod set's count (`podSetsCountsAfterReclaim`); none of a serving group's
    # (`Pod.isReclaimable`)
    reclaimed = _succeeded(pods) if not serving else {}
    running = any(p.state == "running" for p in pods)
    # the group's Object, whose elastic-job annotation takes it through workload slices: Pod.Load's first listed
    # member, by name as the oracle's cache lists them (an informer's order in a cluster: KUEUE-DIFFERENCES §7)
    lead = min(pods, key=lambda p: p.object.name)
    elastic = lead.workloads[0].elastic if lead.workloads else None
    if running and not (sliced and elastic is not None):
        # a Running member keeps Kueue waiting (`Pod.IsActive` over the group's pods, read in
        # `handleJobWithNoWorkload` before the group's Workload is composed and its members checked)
        return first.model_copy(update={"object": ref, "state": "running", "group": None, "generate_name": False,
                                        "reclaimable": tuple(reclaimed.items()),
                                        "workloads": tuple(w.model_copy(update={"elastic": elastic})
                                                           for w in first.workloads)}), ""
    for p in pods[1:]:
        if p.queue != first.queue:
            return None, (f"pods `{first.object.name}` and `{p.object.name}` of group `{name}` name different "
                          "queues: Kueue makes no Workload of the group")
        if p.group_total != first.group_total:
            return None, (f"pods `{first.object.name}` and `{p.object.name}` of group `{name}` give different "
                          "`pod-group-total-count`: Kueue makes no Workload of the group")
    # `isPodRunnableOrSucceeded`: every pod but a Failed one (or one being deleted on no node:
    # pods.pod_job) counts among the group's pods
    active = [p for p in pods if p.state != "finished" or p.succeeded]
    if first.group_fast and active:
        chosen, counts = active[:1], {0: total}
    elif len(active) < total:
        left = len(pods) - len(active)
        return None, (f"group `{name}` has {len(active)} of its {total} pods in the input"
                      + (f" that can run ({left} more Failed or being deleted on no node)" if left else "")
                      + (f"; the API server refuses {', '.join(first.group_refused)}" if first.group_refused else "")
                      + ": Kueue waits for all of them before it makes the group's Workload")
    else:
        chosen = active[:total]  # Kueue deletes the excess pods
        counts = {}
    roles: dict[str, tuple[PodSet, list[str]]] = {}
    for p in chosen:
        ps = p.workloads[0].pod_sets[0]
        role = p.role or ""  # `getRoleHash` (pods.pod_job)
        if role in roles:
            roles[role][1].append(p.object.name)
        else:
            roles[role] = (ps, [p.object.name])
    pod_sets = []
    for role, (ps, names) in sorted(roles.items()):
        count = max(0, counts.get(0, len(names)) - reclaimed.get(role, 0))
        shown = ", ".join(f"`{n}`" for n in names[:4]) + (", …" if len(names) > 4 else "")
        done = f" ({reclaimed[role]} Succeeded, its quota reclaimed)" if reclaimed.get(role) else ""
        pod_sets.append(ps.model_copy(update={"name": role, "count": count,
                                              "origin": f"{count} pod{'s' if count != 1 else ''} of group "
                                                        f"`{name}` shaped like {shown}{done}"}))
    # (no job-uid label: Kueue's pod reconciler makes a group's Workload with the group's labels alone)
    # named as the group, whatever the members' UIDs (known: `kueue_name` set by `manage._own_names`)
    wl = first.workloads[0].model_copy(update={"name": name, "pod_sets": tuple(pod_sets), "origin": ref, "job_uid": "",
                                               "elastic": elastic,
                                               "kueue_name": None})
    # a gated or unplaced member leaves the group pending work (one running, where elastic: `running`, made at once)
    state = "running" if running else "pending" if serving or any(p.state == "pending" for p in pods) else "finished"
    # `Pod.Run` starts each gated member with the info of its role's pod set (found by name)
    templates = Shapes((p.role or "", *p.templates[0][1:]) for p in pods if p.templates)
    return first.model_copy(update={"object": ref, "workloads": (wl,), "state": state, "group": None,
                                    "generate_name": False, "templates": templates, "reclaimable": tuple(reclaimed.items()),
                                    "suspended": any(p.suspended for p in pods)}), ""  # `Pod.IsSuspended`


def prebuilt_group(group: Job, wl: Workload | None, jobs: tuple[Job, ...], sliced: bool = False) -> str | None:
    """Why a pod group naming its prebuilt Workload (its own name: the webhook refuses another) takes none, as
    Kueue's ensureOneWorkload finds it: absent (ErrPrebuiltWorkloadNotFound), or not equivalent to the group
    (`Pod.equivalentToWorkload`: each of the group's roles, in order, among the Workload's pod sets, by name, with
    at least as many pods as the role has runnable or Succeeded members (`constructGroupPodSets` over the group's
    pods in `jobs`: before its Succeeded pods are reclaimed, and past its total count), unless the Workload is
    finished), unless `sliced` (an elastic group, the ElasticJobsViaWorkloadSlices gate on) and the Workload is a
    scaled-up slice (ensureOneWorkload skips the check: workloadslicing.ScaledUp). None when the group takes it."""
    key = f"{group.object.namespace or 'default'}/{group.prebuilt}"
    if wl is None:
        return PREBUILT_ABSENT.format(wl=key)
    if wl.finished or sliced and wl.replaces:
        return None
    roles = group_roles(group, jobs)
    # the spec's counts, as Kueue compares them, not less the input's status.reclaimablePods (`reclaim.after_reclaim`)
    counts = [shape[0] for shape in wl.shapes[1]] if wl.shapes is not None else [p.count for p in wl.pod_sets]
    theirs = [(p.name, n) for p, n in zip(wl.pod_sets, counts)]
    at = 0
    for name, count in sorted(roles.items()):
        while at < len(theirs) and theirs[at][0] != name:
            at += 1
        if at == len(theirs):
            return PREBUILT_OUT_OF_SYNC.format(wl=key, what=f"the group's role `{name}` is not among its pod sets, "
                                                            "in the group's order")
        if theirs[at][1] < count:
            return PREBUILT_OUT_OF_SYNC.format(wl=key, what=f"its pod set `{name}` has {theirs[at][1]} pods, the "
                                                            f"group's role {count}, counting its Succeeded pods")
        at += 1
    return None


def group_roles(group: Job, jobs: tuple[Job, ...]) -> dict[str, int]:
    """`constructGroupPodSets` over the group's members in `jobs`: its runnable and Succeeded pods by role
    (`isPodRunnableOrSucceeded`, as join_group's `active`), past its total count and before its Succeeded pods are
    reclaimed."""
    roles: dict[str, int] = {}
    for p in jobs:
        if p.group == group.object.name and p.object.namespace == group.object.namespace \
                and (p.state != "finished" or p.succeeded):
            roles[p.role or ""] = roles.get(p.role or "", 0) + 1
    return roles


def sliced_counts(group: Job, jobs: tuple[Job, ...]) -> dict[str, int] | None:
    """The pod counts workloadslicing.EnsureWorkloadSlices reads of an elastic pod group (JobPodSets: the pod
    reconciler's PodSets, `group_roles`, or with fast admission its total count in its one pod set); None where
    every member is Running, a group kadmit keeps as read: the oracle's harness reconciles a group only through a
    member not bound to a node (kadmit reads bound pods as node usage, KUEUE-DIFFERENCES §2)."""
    if not any(p.state == "pending" for p in jobs if p.group == group.object.name
               and p.object.namespace == group.object.namespace):
        return None
    if group.group_fast and group.workloads and group.workloads[0].pod_sets:
        return {group.workloads[0].pod_sets[0].name: group.group_total or 0}
    return group_roles(group, jobs)


def _succeeded(pods: list[Job]) -> dict[str, int]:
    """`Pod.ReclaimablePods`: a group's Succeeded pods, by role (`getRoleHash`: pods.pod_job)."""
    out: dict[str, int] = {}
    for p in pods:
        if p.succeeded:
            out[p.role or ""] = out.get(p.role or "", 0) + 1
    return out
