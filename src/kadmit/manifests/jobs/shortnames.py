"""Kueue's Workload names of jobs under its ShortWorkloadNames feature gate (off by default in v0.17.0):
jobframework's maxWorkloadNameLength is 63 (a label value's limit) instead of 253, so GenerateWorkloadNamePrefix
cuts `<kind>-<name>` to 63 - 1 - 5 characters; the hash after it is the same at either value. Apart from the
kinds' readers (`common.workload_name` makes the long names), so that `manage` loads none of them."""

from __future__ import annotations

from kadmit.model import Job

HASH_LENGTH = 5  # jobframework's hashLength
SHORT_WORKLOAD_NAME = 63  # shortMaxWorkloadNameLength


def short_name(name: str) -> str:
    """A name `common.workload_name` made, as Kueue makes it under ShortWorkloadNames: its prefix cut to 57
    characters, the hash kept. A name of 63 characters or fewer is the same either way (so a pod group's or a
    prebuilt Workload's, label values, stay as they are)."""
    if len(name) <= SHORT_WORKLOAD_NAME:
        return name
    return name[: SHORT_WORKLOAD_NAME - 1 - HASH_LENGTH] + name[-1 - HASH_LENGTH:]


def short_names(job: Job) -> Job:
    """`job` with its Workloads (and those of the pods it starts, `unsuspended`) named as under ShortWorkloadNames."""
    update: dict = {"workloads": tuple(w.model_copy(update={"name": short_name(w.name)}) for w in job.workloads)}
    if job.unsuspended is not None:
        update["unsuspended"] = short_names(job.unsuspended)
    return job.model_copy(update=update)
