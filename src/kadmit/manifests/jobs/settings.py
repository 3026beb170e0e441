"""The integration settings Kueue's job framework works under (`manage.integrations` reads them), apart
from the kinds' modules so that reading a `.kad` policy, which needs them, loads none of the manifest reader."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.model import LabelSelector
from kadmit.modelconfig import POD_PARENTS, reconciles
# where its pod webhook (see `Integrations.pod_webhook`) refuses the pods a job's controller makes (`Refusal.pods`):
# the oracle's words for the job, and `manage._refused`'s
POD_WEBHOOK_REFUSES = "Kueue's pod webhook refuses its pods: "
# the field of a pod's `kueue.x-k8s.io/managed` label, as Kueue's pod webhook refuses its value (`pods._managed_refusal`)
MANAGED_PATH = "metadata.labels[kueue.x-k8s.io/managed]"


@dataclass(frozen=True)
class Integrations:
    """The integration settings in force, and where they come from."""

    frameworks: tuple[str, ...]
    manage_without_queue_name: bool
    namespace_selector: LabelSelector
    configured: bool  # a Configuration in the input set the frameworks (`manage.integrations`)
    # `integrations.externalFrameworks`' kinds, (apiVersion, kind), and the input's objects of them by
    # (apiVersion, kind, namespace, name): owners Kueue's walk up a job's controllers knows (`ancestors`)
    external_kinds: frozenset[tuple[str, str]] = frozenset()
    # feature gate ManagedJobsNamespaceSelectorAlwaysRespected (on by default): the generic reconciler leaves a job
    # of a namespace managedJobsNamespaceSelector does not select even where it names a queue (`manage._not_managed`)
    selector_respected: bool = True
    multi_layer: bool = False  # feature gate TASMultiLayerTopology: which slice layer refusals apply (`Refusal`)
    external: dict = field(default_factory=dict)

    @property
    def pod_webhook(self) -> bool:
        """Whether Kueue's pod webhook runs: the pod integration enabled, or turned on by a parent's."""
        return "pod" in self.frameworks or any(p in self.frameworks for p in POD_PARENTS)

    def reconciled(self, framework: str, parent_marked: bool) -> bool:
        """Whether a reconciler of Kueue's takes a job of `framework` (`modelconfig.reconciles`)."""
        return reconciles(self.frameworks, framework, parent_marked)


# The kinds whose controllers make plain pods of their templates, labels as written, while Kueue admits the kind's
# own Workload: Kueue's pod webhook sees each pod (`templatepods.refused_pods`). A RayService's through the RayCluster
# KubeRay makes of it, an AppWrapper's through the components its controller makes (their templates' labels merged
# with its own, MergeKeepFirst). Not a Deployment's, a StatefulSet's or a LeaderWorkerSet's (their pods are Kueue's
# Workloads: `manage._refused`, and Kueue's webhooks for the last two write the pod group's labels themselves); a
# TrainJob's through the JobSet of its runtime's templates (`RuntimeJob.pod_refusals`); not a SparkApplication's
GROUP_KEPT = ("jobset.x-k8s.io/jobset", "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice",
              "workload.codeflare.dev/appwrapper", "trainer.kubeflow.org/trainjob", *(
                  f"kubeflow.org/{k}job" for k in ("pytorch", "tf", "paddle", "xgboost", "jax", "mpi")))
