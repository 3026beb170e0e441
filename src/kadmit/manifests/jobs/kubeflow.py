"""Kubeflow training jobs -> a pod set per replica type, in Kueue's order (pkg/controller/jobs/
kubeflow/kubeflowjob, kubeflow/jobs/<kind>, mpijob)."""

from __future__ import annotations

from typing import NamedTuple

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder, condition_true, run_state
from kadmit.manifests.jobs.templatepods import group_refusals, own_pods
from kadmit.manifests.podspec import KEPT
from kadmit.model import Job


class Training(NamedTuple):
    framework: str
    replica_specs: str  # the spec's field holding the replica specs
    order: tuple[str, ...]  # OrderedReplicaTypes; pod sets are named by the type, lower-cased


TRAINING = {
    "PyTorchJob": Training("kubeflow.org/pytorchjob", "pytorchReplicaSpecs", ("Master", "Worker")),
    "TFJob": Training("kubeflow.org/tfjob", "tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "PaddleJob": Training("kubeflow.org/paddlejob", "paddleReplicaSpecs", ("Master", "Worker")),
    "XGBoostJob": Training("kubeflow.org/xgboostjob", "xgbReplicaSpecs", ("Master", "Worker")),
    "JAXJob": Training("kubeflow.org/jaxjob", "jaxReplicaSpecs", ("Worker",)),
    "MPIJob": Training("kubeflow.org/mpijob", "mpiReplicaSpecs", ("Launcher", "Worker")),
}


def training_job(f: Fields, o: Meta) -> Job:
    """Replica types present in the spec, in Kueue's order; count = `replicas` (default 1).
    Priority: `runPolicy.schedulingPolicy.priorityClass`, else the first template's class (after
    the `kueue.x-k8s.io/priority-class` label, as for every job)."""
    t = TRAINING[o.kind]
    spec = f.map(o.node, "spec", required=True, what=f"{o.kind} `{o.name}`")
    replicas = f.map(spec, t.replica_specs, required=True, what=f"the spec of {o.kind} `{o.name}`")
    b = Builder(f, o, t.framework)
    run_policy = f.map(spec, "runPolicy")
    policy_class = f.str(f.map(run_policy, "schedulingPolicy"), "priorityClass")
    if policy_class:
        b.priority_class_names.append(policy_class)
    for kind in t.order:
        rs = f.map(replicas, kind)
        if rs is None:
            continue
        count = f.int(rs, "replicas", default=1, lo=0)
        template = f.map(rs, "template", required=True, what=f"replica spec `{kind}`")
        b.template(kind.lower(), count, template, rs, count_node=f.field(rs, "replicas"),
                   origin=f"replica type `{kind}` ({count} replica{'s' if count != 1 else ''})",
                   # mpi-operator's newLauncherJob, its restartPolicy the replica spec's (setRestartPolicy)
                   made="Job" if (o.kind, kind) == ("MPIJob", "Launcher") else None,
                   restart=None if o.kind == "MPIJob" else KEPT)
        group_refusals(b, template)
    if o.kind == "MPIJob":  # the one training kind whose webhook checks pod-set groups
        b.check_groups({k.lower(): f"spec.mpiReplicaSpecs[{k}].template.metadata.annotations" for k in t.order})
    status = f.map(o.node, "status")
    # Kueue's KubeflowJob.IsActive and MPIJob.IsActive: any replica status with active pods, whatever
    # its replica type (the status map's every key, not only the types the spec's pod sets come from)
    statuses = f.map(status, "replicaStatuses")
    started = any(f.int(f.map(statuses, k), "active", default=0) for k in (statuses.v if statuses is not None else ()))
    finished = condition_true(f, status, "Succeeded", "Failed")
    return own_pods(b, b.job(state=run_state(started, finished)))
