"""Spark operator's SparkApplication: an integration of Kueue v0.17
(`sparkoperator.k8s.io/sparkapplication`, left out of the Configuration Kueue installs) whose
Workload kadmit does not build. Read so that it is listed as Kueue would treat it: not managed
where the integration is off (the installed Configuration), else skipped as not modelled; but for the refusal of
its webhook (sparkapplication_webhook.go validateCreate) of an elastic job with ElasticJobsViaWorkloadSlices on
(`workloadslicing.Enabled`: the gate's check is `manage`'s, `slices.unsliced`)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder
from kadmit.manifests.jobs.refusals import go_quote
from kadmit.manifests.jobs.slices import SPARK_REFUSAL
from kadmit.manifests.workloads import ELASTIC_JOB
from kadmit.model import Job, Refusal

FRAMEWORK = "sparkoperator.k8s.io/sparkapplication"
NOT_MODELLED = ("kadmit does not model Kueue's SparkApplication integration (the driver and executor "
                "pod sets Kueue makes of it): not decided")


def spark_application(f: Fields, o: Meta) -> Job:
    b = Builder(f, o, FRAMEWORK)
    value = o.annotations.get(ELASTIC_JOB)
    if value == "true":  # workloadslicing.EnabledAnnotationValue; a managed job's only (the webhook's queue check)
        at = f.field(f.map(o.metadata, "annotations"), ELASTIC_JOB)
        b.refusals.append(Refusal(message=f"metadata.annotations[{ELASTIC_JOB}]: Invalid value: {go_quote(value)}: "
                                          + SPARK_REFUSAL, span=f.span(at)))
    return b.job(workloads=[], note=NOT_MODELLED)

