"""JobSet replicated jobs whose Jobs the API server refuses for the Job's own spec (`manifests/jobspec.py`), with
validateJobSpec's words: tests/jobs/test_jobset_job_spec.py checks kadmit's, tests/kube/test_jobset_job_spec.py the
real server's."""

from __future__ import annotations

CONTAINERS = "restartPolicy: Never, containers: [{name: c, image: busybox}]"
PFP = "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [42]}}]}, "
# the replicated job's spec fields -> the words refusing its Jobs (completionMode Indexed where unset: the JobSet
# webhook's default)
REFUSED = {
    "parallelism: 2, ": "spec.completions: Required value: when completion mode is Indexed",
    "backoffLimit: -1, ": "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
    "completions: 2, maxFailedIndexes: 1, ": "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is "
                                             "specified",
    "completionMode: NonIndexed, backoffLimitPerIndex: 1, ": "spec.backoffLimitPerIndex: Invalid value: 1: requires "
                                                             "indexed completion mode",
    "completions: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 3, ": "spec.maxFailedIndexes: Invalid value: 3: must "
                                                                      "be less than or equal to completions",
    "parallelism: 100001, completions: 100001, ": "spec.parallelism: Invalid value: 100001: must be less than or "
                                                  "equal to 100000 when completion mode is Indexed",
    "completionMode: Sometimes, ": 'spec.completionMode: Unsupported value: "Sometimes": supported values: '
                                   '"NonIndexed", "Indexed"',
    f"{PFP}podReplacementPolicy: TerminatingOrFailed, ": 'spec.podReplacementPolicy: Unsupported value: '
                                                         '"TerminatingOrFailed": supported values: "Failed"',
}
# taken: neither set (SetDefaults_Job makes both 1), NonIndexed with parallelism alone
TAKEN = ("", "completionMode: NonIndexed, parallelism: 2, ", "completions: 2, backoffLimitPerIndex: 1, ",
         f"{PFP}podReplacementPolicy: Failed, ")


def jobset(fields: str) -> str:
    return f"""\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: default, labels: {{kueue.x-k8s.io/queue-name: user-queue}}}}
spec:
  replicatedJobs:
  - {{name: w, replicas: 1, template: {{spec: {{{fields}template: {{spec: {{{CONTAINERS}}}}}}}}}}}
"""


def job(fields: str) -> str:
    """The Job the JobSet's controller makes of `jobset(fields)` (constructJob: the spec as the webhook left it)."""
    mode = "" if "completionMode" in fields else "completionMode: Indexed, "
    return f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: js-w-0, namespace: default}}
spec: {{{mode}{fields}template: {{spec: {{{CONTAINERS}}}}}}}
"""
