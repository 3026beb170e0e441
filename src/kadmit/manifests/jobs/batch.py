"""batch/v1 Job -> one pod set `main` (Kueue's pkg/controller/jobs/job)."""

from __future__ import annotations

from kadmit.manifests.builtinspec import job_refusals, job_selector_refusals
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import (DEFAULT_POD_SET, MIN_PARALLELISM, Builder, annotation_node,
                                          condition_true, reclaimed, run_state)
from kadmit.manifests.jobs.refusals import go_atoi, go_quote
from kadmit.manifests.jobs.templatepods import job_pods
from kadmit.manifests.podspec import WRITTEN
from kadmit.model import Job, Refusal

FRAMEWORK = "batch/job"
SYNC_COMPLETIONS = "kueue.x-k8s.io/job-completions-equal-parallelism"
GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
            "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def pods_count(f: Fields, spec) -> int:
    """Kueue's podsCount: parallelism (default 1), lowered to completions when that is smaller."""
    parallelism = f.int(spec, "parallelism", default=1, lo=0)
    completions = f.int(spec, "completions", lo=0)
    return parallelism if completions is None else min(parallelism, completions)


def job(f: Fields, o: Meta, restart: str = WRITTEN) -> Job:
    """A batch Job; `restart` KEPT for one JobSet's controller makes of a replicated job's template, whose unset
    restartPolicy JobSet's webhook made OnFailure (`builtinspec.job_refusals`)."""
    spec = f.map(o.node, "spec")  # none, or no template: refused alone (`builtinspec.job_refusals`)
    template = f.map(spec, "template")
    job_refusals(f, spec, f.map(template, "spec"), restart, job=o.node)
    uid = f.field(o.metadata, "uid")
    job_selector_refusals(f, o.name, uid.v if uid is not None and isinstance(uid.v, str) else None, spec, template)
    labels, _ = f.str_map(f.map(template, "metadata"), "labels")
    if not o.labels and labels:
        # the API server's SetDefaults_Job, before Kueue's webhook: a Job with no labels gets its pod template's
        # (a queue name, a priority class there are the Job's)
        o = Meta(o.api_version, o.kind, o.node, o.metadata, o.name, o.namespace, labels, o.annotations)
    count = pods_count(f, spec)
    min_count, refused = _min_parallelism(f, o, count)
    b = Builder(f, o, FRAMEWORK)
    b.template(DEFAULT_POD_SET, count, template, template, min_count=min_count,
               count_node=f.field(spec, "parallelism"),
               nodes={"min_count": annotation_node(f, o, MIN_PARALLELISM)})
    status = f.map(o.node, "status")
    # Kueue's Job.IsActive (status.active != 0): a started Job with no active pod and no Workload
    # gets one from Kueue's reconciler (handleJobWithNoWorkload waits only while pods are active)
    started = f.int(status, "active", default=0) != 0
    finished = condition_true(f, status, "Complete", "Failed")
    job = b.job(state=run_state(started, finished))
    job = reclaimed(job, {DEFAULT_POD_SET: _reclaimable(f, spec, status)})
    return job.model_copy(update={"refusals": job.refusals + refused + _sync_completions(f, o, spec),
                                  "unsuspended": job_pods(f, o, job, spec, template, count)})


def _reclaimable(f: Fields, spec, status) -> int:
    """Kueue's Job.ReclaimablePods: with parallelism above 1 and pods succeeded, the parallel pods
    beyond the completions still to come."""
    parallelism = f.int(spec, "parallelism", default=1, lo=0)
    succeeded = f.int(status, "succeeded", default=0, lo=0)
    if parallelism == 1 or not succeeded:
        return 0
    remaining = f.int(spec, "completions", lo=0, default=parallelism) - succeeded
    return 0 if remaining >= parallelism else parallelism - remaining


def _min_parallelism(f: Fields, o: Meta, count: int) -> tuple[int | None, tuple[Refusal, ...]]:
    """The `job-min-parallelism` annotation (partial admission) and what the Job webhook's
    `validatePartialAdmissionCreate` refuses of it: not an integer (strconv.Atoi), or not between
    1 and the pod count − 1 (`int32(v) >= podsCount || v <= 0`)."""
    text = o.annotations.get(MIN_PARALLELISM)
    if text is None:
        return None, ()
    at = f.span(annotation_node(f, o, MIN_PARALLELISM))
    path = f"metadata.annotations[{MIN_PARALLELISM}]"
    value, error = go_atoi(text)
    if value is None:
        return None, (Refusal(message=f"{path}: Invalid value: {go_quote(text)}: {error}", managed_only=False,
                              span=at),)
    as_int32 = (value + 2**31) % 2**32 - 2**31  # Kueue reads it as int32(v) (minPodsCount too)
    if as_int32 >= count or value <= 0:
        # refused on creation; a Job already in the cluster keeps it: a partially admitted one runs with its
        # parallelism lowered to the admitted count, down to the minimum itself, and Kueue's minPodsCount
        # still reads it (a prebuilt Workload's comparison sees it; equal to the count it allows no partial
        # admission). Above the count (no Workload takes one: the webhook refuses minCount > count), not kept
        return as_int32 if as_int32 == count else None, (
            Refusal(message=f"{path}: Invalid value: {value}: should be between 0 and {count - 1}",
                    managed_only=False, span=at),)
    return as_int32, ()


def _sync_completions(f: Fields, o: Meta, spec) -> tuple[Refusal, ...]:
    """The Job webhook's `validateSyncCompletionCreate`: `job-completions-equal-parallelism` must
    be a Go boolean and, when true, needs an Indexed Job whose completions equal its parallelism."""
    text = o.annotations.get(SYNC_COMPLETIONS)
    if text is None:
        return ()
    at = f.span(annotation_node(f, o, SYNC_COMPLETIONS))
    path = f"metadata.annotations[{SYNC_COMPLETIONS}]"
    if text not in GO_BOOLS:
        return (Refusal(message=f"{path}: Invalid value: {go_quote(text)}: strconv.ParseBool: parsing "
                                f"{go_quote(text)}: invalid syntax", managed_only=False, span=at),)
    if not GO_BOOLS[text]:
        return ()
    out = []
    if (f.str(spec, "completionMode") or "NonIndexed") == "NonIndexed":
        out.append(Refusal(message=f"{path}: Invalid value: {go_quote(text)}: should not be enabled for NonIndexed jobs",
                           managed_only=False, span=at))
    parallelism = f.int(spec, "parallelism", default=1)
    completions = f.int(spec, "completions")
    if (1 if completions is None else completions) != parallelism:
        shown = "null" if completions is None else str(completions)
        out.append(Refusal(message=f"spec.completions: Invalid value: {shown}: should be equal to parallelism when "
                                   f"{SYNC_COMPLETIONS} is annotation is true", managed_only=False,
                           span=f.span(f.field(spec, "completions") or spec)))
    return tuple(out)
