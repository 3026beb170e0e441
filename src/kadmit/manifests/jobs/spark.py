"""Spark operator's SparkApplication: an integration of Kueue v0.17
(`sparkoperator.k8s.io/sparkapplication`, left out of the Configuration Kueue installs) whose
Workload kadmit does not build. Read so that it is listed as Kueue would treat it: not managed
where the integration is off (the installed Configuration), else skipped as not modelled."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder
from kadmit.model import Job

FRAMEWORK = "sparkoperator.k8s.io/sparkapplication"
NOT_MODELLED = ("kadmit does not model Kueue's SparkApplication integration (the driver and executor "
                "pod sets Kueue makes of it): not decided")


def spark_application(f: Fields, o: Meta) -> Job:
    return Builder(f, o, FRAMEWORK).job(workloads=[], note=NOT_MODELLED)
