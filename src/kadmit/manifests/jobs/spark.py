"""Spark operator's SparkApplication: an integration of Kueue v0.17
(`sparkoperator.k8s.io/sparkapplication`, left out of the Configuration Kueue installs) whose
Workload kadmit does not build. Read so that it is listed as Kueue would treat it: not managed
where the integration is off (the installed Configuration), else skipped as not modelled; but for the refusals of
its webhook (sparkapplication_webhook.go validateCreate) of a managed one: a mode other than cluster, an elastic
job with ElasticJobsViaWorkloadSlices on, else dynamic allocation (`workloadslicing.Enabled`: the gate's check is
`manage`'s, `slices.spark_gated`)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder
from kadmit.manifests.jobs.refusals import go_quote
from kadmit.manifests.jobs.slices import SPARK_DYNAMIC, SPARK_REFUSAL
from kadmit.manifests.workloads import ELASTIC_JOB
from kadmit.model import Job, Refusal

FRAMEWORK = "sparkoperator.k8s.io/sparkapplication"
NOT_MODELLED = ("kadmit does not model Kueue's SparkApplication integration (the driver and executor "
                "pod sets Kueue makes of it): not decided")


def spark_application(f: Fields, o: Meta) -> Job:
    """A managed one's refusals in the webhook's order (each a managed job's only: its queue check)."""
    b = Builder(f, o, FRAMEWORK)
    spec = f.map(o.node, "spec")
    mode = f.str(spec, "mode") or ""
    if mode != "cluster":  # sparkv1beta2.DeployModeCluster; the CRD defaults none
        b.refusals.append(Refusal(message=f"spec.mode: Invalid value: {go_quote(mode)}: only Cluster mode is supported "
                                          "for a kueue managed job", span=f.span(f.field(spec, "mode") or spec)))
    value = o.annotations.get(ELASTIC_JOB)
    if value == "true":  # workloadslicing.EnabledAnnotationValue
        at = f.field(f.map(o.metadata, "annotations"), ELASTIC_JOB)
        b.refusals.append(Refusal(message=f"metadata.annotations[{ELASTIC_JOB}]: Invalid value: {go_quote(value)}: "
                                          + SPARK_REFUSAL, span=f.span(at)))
    dynamic = f.map(spec, "dynamicAllocation")
    if f.bool(dynamic, "enabled", default=False):  # refused but where the elastic job is (`slices.spark_gated`)
        b.refusals.append(Refusal(message="spec.dynamicAllocation.enabled: Invalid value: true: " + SPARK_DYNAMIC,
                                  span=f.span(f.field(dynamic, "enabled"))))
    return b.job(workloads=[], note=NOT_MODELLED)

