"""What the API server refuses of the spec of a Job a JobSet's controller makes of a replicated job's template
(`podspec.template_refusals`). The JobSet CRD stores the template unvalidated, and the JobSet webhook checks none of
this (jobset v0.11.1 ValidateCreate); its controller's constructJob copies the spec as it is, the webhook having
made an unset `completionMode` Indexed (and restartPolicy OnFailure: `podspec.restart_refusals`). The words are
k8s.io/kubernetes v1.35 pkg/apis/batch/validation validateJobSpec's, in its order, for the scalar fields; a
negative `parallelism` or `completions` kadmit refuses itself (KAD157); a `podFailurePolicy`'s rules, a
`successPolicy` and `managedBy` are not checked."""

from __future__ import annotations

from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import Val

INDEXED, NON_INDEXED = "Indexed", "NonIndexed"
MAX_PARALLELISM_INDEXED = 100_000  # maxParallelismForIndexedJob
MAX_FAILED_INDEXES = 100_000  # maxFailedIndexesForIndexedJob
COMPLETIONS_SOFT_LIMIT = 100_000  # completionsSoftLimit, and the limits above it with backoffLimitPerIndex
HIGH_COMPLETIONS_LIMIT = 10_000  # parallelismLimitForHighCompletions, maxFailedIndexesLimitForHighCompletions
NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg


def _int(f: Fields, spec: Val | None, key: str) -> int | None:
    node = f.field(spec, key)
    return node.v if node is not None and isinstance(node.v, int) and not isinstance(node.v, bool) else None


def _str(f: Fields, spec: Val | None, key: str) -> str | None:
    node = f.field(spec, key)
    return node.v if node is not None and isinstance(node.v, str) else None


def job_spec_refusals(f: Fields, spec: Val | None, default_mode: str = INDEXED) -> list[str]:
    """validateJobSpec's words refusing the spec of a JobSet's Job (at `spec`), its `completionMode` the JobSet
    webhook's Indexed where unset (`default_mode`: a built-in Job's, SetDefaults_Job's NonIndexed,
    `builtinspec.job_refusals`)."""
    out = []
    value = {k: _int(f, spec, k) for k in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                                           "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes")}
    for key in ("activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished", "backoffLimitPerIndex",
                "maxFailedIndexes"):
        if value[key] is not None and value[key] < 0:
            out.append(f"spec.{key}: Invalid value: {value[key]}: {NEGATIVE}")
    parallelism, completions = value["parallelism"], value["completions"]
    per_index, max_failed = value["backoffLimitPerIndex"], value["maxFailedIndexes"]
    if max_failed is not None and per_index is None:
        out.append("spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified")
    mode = _str(f, spec, "completionMode") or default_mode
    if mode not in (NON_INDEXED, INDEXED):
        out.append(f'spec.completionMode: Unsupported value: "{mode}": supported values: "{NON_INDEXED}", "{INDEXED}"')
    if mode == INDEXED:
        if completions is None and parallelism is not None:  # SetDefaults_Job: both unset are both 1
            out.append(f"spec.completions: Required value: when completion mode is {INDEXED}")
        if parallelism is not None and parallelism > MAX_PARALLELISM_INDEXED:
            out.append(f"spec.parallelism: Invalid value: {parallelism}: must be less than or equal to "
                       f"{MAX_PARALLELISM_INDEXED} when completion mode is {INDEXED}")
        if completions is not None and max_failed is not None and max_failed > completions:
            out.append(f"spec.maxFailedIndexes: Invalid value: {max_failed}: must be less than or equal to completions")
        if max_failed is not None and max_failed > MAX_FAILED_INDEXES:
            out.append(f"spec.maxFailedIndexes: Invalid value: {max_failed}: must be less than or equal to "
                       f"{MAX_FAILED_INDEXES}")
        if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
            high = f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
            if max_failed is None:
                out.append(f"spec.maxFailedIndexes: Required value: must be specified when completions is above "
                           f"{COMPLETIONS_SOFT_LIMIT}")
            if parallelism is not None and parallelism > HIGH_COMPLETIONS_LIMIT:
                out.append(f"spec.parallelism: Invalid value: {parallelism}: must be less than or equal to "
                           f"{HIGH_COMPLETIONS_LIMIT} {high}")
            if max_failed is not None and max_failed > HIGH_COMPLETIONS_LIMIT:
                out.append(f"spec.maxFailedIndexes: Invalid value: {max_failed}: must be less than or equal to "
                           f"{HIGH_COMPLETIONS_LIMIT} {high}")
    if mode == NON_INDEXED:
        for key in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if value[key] is not None:
                out.append(f"spec.{key}: Invalid value: {value[key]}: requires indexed completion mode")
    replacement = _str(f, spec, "podReplacementPolicy")
    if replacement is not None:  # validatePodReplacementPolicy
        allowed = ("Failed",) if f.field(spec, "podFailurePolicy") is not None else ("Failed", "TerminatingOrFailed")
        if replacement not in allowed:
            out.append(f'spec.podReplacementPolicy: Unsupported value: "{replacement}": supported values: '
                       + ", ".join(f'"{a}"' for a in allowed))
    return out
