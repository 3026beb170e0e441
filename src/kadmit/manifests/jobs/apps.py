"""Deployment and StatefulSet under Kueue (pkg/controller/jobs/deployment, statefulset): a
Deployment's pods are each a one-pod Workload; a StatefulSet's pods are one pod group."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import DEFAULT_POD_SET, Builder, object_ref, run_state, workload_name
from kadmit.model import Job

DEPLOYMENT = "deployment"
STATEFULSET = "statefulset"


def _started(f: Fields, o: Meta) -> bool:
    status = f.map(o.node, "status")
    return bool(f.int(status, "replicas", default=0) or f.int(status, "readyReplicas", default=0))


def deployment(f: Fields, o: Meta) -> Job:
    """Each replica is a plain pod Kueue admits on its own ("every Pod from a Deployment is
    represented as a single independent Plain Pod", site/content/en/docs/tasks/run/deployment.md)."""
    spec = f.map(o.node, "spec", required=True, what=f"Deployment `{o.name}`")
    replicas = f.int(spec, "replicas", default=1, lo=0)
    template = f.map(spec, "template", required=True, what=f"the spec of Deployment `{o.name}`")
    b = Builder(f, o, DEPLOYMENT)
    ref = object_ref(o, f)
    workloads = []
    for i in range(replicas):
        b.pod_sets = []
        b.template(DEFAULT_POD_SET, 1, template, template, origin=f"replica {i} (one pod)")
        wl = b.workload(ref, b.pod_sets)
        workloads.append(wl.model_copy(update={"name": workload_name("Pod", "", f"{ref.name}-{i}", ref.uid),
                                               "part": f"replica {i}"}))
    return b.job(state=run_state(False, _started(f, o), False), workloads=workloads)


def stateful_set(f: Fields, o: Meta) -> Job:
    """One pod group of `replicas` pods, pod set `main` (statefulset_pod_reconciler.go sets the
    group name, total count = replicas, role `main`)."""
    spec = f.map(o.node, "spec", required=True, what=f"StatefulSet `{o.name}`")
    replicas = f.int(spec, "replicas", default=1, lo=0)
    template = f.map(spec, "template", required=True, what=f"the spec of StatefulSet `{o.name}`")
    b = Builder(f, o, STATEFULSET)
    if replicas:
        b.template(DEFAULT_POD_SET, replicas, template, template, count_node=f.field(spec, "replicas"),
                   origin=f"its {replicas} replicas")
        return b.job(state=run_state(False, _started(f, o), False))
    return b.job(workloads=[], note="it has no replicas")
