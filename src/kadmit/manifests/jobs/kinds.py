"""The job kinds Kueue integrates, each read by its module (`INTEGRATIONS`), the objects they refer
to (`REFERENCED`), and a schema of the kinds whose fields kadmit does not bundle."""

from __future__ import annotations

import importlib
from typing import Callable, NamedTuple

from kadmit.manifests import schema
from kadmit.manifests.jobs import batch, kubeflow


def _lazy(module: str, name: str) -> Callable:
    """The reader `name` of `module`, imported when the first object of its kind is read: an input
    without TrainJobs or RayJobs doesn't pay for building their modules at start-up."""
    def read(*args, **kwargs):
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args, **kwargs)
    read.__qualname__ = read.__name__ = f"{module}.{name}"
    return read


class Integration(NamedTuple):
    group: str
    kind: str
    versions: tuple[str, ...]
    read: Callable


INTEGRATIONS: tuple[Integration, ...] = (
    Integration("batch", "Job", ("v1",), batch.job),
    Integration("jobset.x-k8s.io", "JobSet", ("v1alpha2",), _lazy("jobset", "jobset")),
    Integration("leaderworkerset.x-k8s.io", "LeaderWorkerSet", ("v1",), _lazy("lws", "leader_worker_set")),
    Integration("apps", "Deployment", ("v1",), _lazy("apps", "deployment")),
    Integration("apps", "StatefulSet", ("v1",), _lazy("apps", "stateful_set")),
    *(Integration("kubeflow.org", kind, ("v2beta1",) if kind == "MPIJob" else ("v1",), kubeflow.training_job)
      for kind in kubeflow.TRAINING),
    Integration("ray.io", "RayJob", ("v1", "v1alpha1"), _lazy("ray", "ray_job")),
    Integration("ray.io", "RayCluster", ("v1", "v1alpha1"), _lazy("ray", "ray_cluster")),
    Integration("ray.io", "RayService", ("v1", "v1alpha1"), _lazy("ray", "ray_service")),
    Integration("workload.codeflare.dev", "AppWrapper", ("v1beta2",), _lazy("appwrapper", "appwrapper")),
    Integration("trainer.kubeflow.org", "TrainJob", ("v1alpha1",), _lazy("trainjob", "train_job")),
    # listed as Kueue treats it (not managed, or not modelled), never decided
    Integration("sparkoperator.k8s.io", "SparkApplication", ("v1beta2",), _lazy("spark", "spark_application")),
)
# Objects jobs refer to, read into their own lists (group, kind, versions, target, reader, namespaced).
_RUNTIME = _lazy("trainjob", "training_runtime")
REFERENCED = (
    ("trainer.kubeflow.org", "ClusterTrainingRuntime", ("v1alpha1",), "training_runtimes", _RUNTIME, False),
    ("trainer.kubeflow.org", "TrainingRuntime", ("v1alpha1",), "training_runtimes", _RUNTIME, True),
)


# Kinds whose known fields kadmit does not bundle yet: their `spec` is not checked field by field
# (metadata is). A schema registered or bundled for the kind takes precedence.
UNCHECKED_SPEC: schema.Tree = {"o": {"apiVersion": "s", "kind": "s", "metadata": "core:V1ObjectMeta",
                                     "spec": "*", "status": "*"}}
for _group, _kind, _versions in [(i.group, i.kind, i.versions) for i in INTEGRATIONS] + [r[:3] for r in REFERENCED]:
    for _v in _versions:
        if schema.schema_for(_group, _v, _kind) is None:
            schema.register(_group, _v, _kind, UNCHECKED_SPEC,
                            "not bundled yet: metadata checked, spec fields not checked")
