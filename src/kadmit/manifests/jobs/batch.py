"""batch/v1 Job -> one pod set `main` (Kueue's pkg/controller/jobs/job)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import (DEFAULT_POD_SET, MIN_PARALLELISM, Builder, annotation_node,
                                          check_min_count, condition_true, int_annotation, run_state)
from kadmit.model import Job

FRAMEWORK = "batch/job"
STOPPING = "kueue.x-k8s.io/stopping"


def pods_count(f: Fields, spec) -> int:
    """Kueue's podsCount: parallelism (default 1), lowered to completions when that is smaller."""
    parallelism = f.int(spec, "parallelism", default=1, lo=0)
    completions = f.int(spec, "completions", lo=0)
    return parallelism if completions is None else min(parallelism, completions)


def job(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"Job `{o.name}`")
    template = f.map(spec, "template", required=True, what=f"the spec of Job `{o.name}`")
    count = pods_count(f, spec)
    min_count = int_annotation(f, o, MIN_PARALLELISM)
    check_min_count(f, o, MIN_PARALLELISM, min_count, count, f"Job `{o.name}`")
    b = Builder(f, o, FRAMEWORK)
    b.template(DEFAULT_POD_SET, count, template, template, min_count=min_count,
               count_node=f.field(spec, "parallelism"),
               nodes={"min_count": annotation_node(f, o, MIN_PARALLELISM)})
    status = f.map(o.node, "status")
    suspended = f.bool(spec, "suspend", default=False) and o.annotations.get(STOPPING) != "true"
    started = f.field(status, "startTime") is not None or bool(f.int(status, "active", default=0))
    finished = condition_true(f, status, "Complete", "Failed")
    return b.job(state=run_state(suspended, started, finished))
