"""Arbitrary job objects give decisions or diagnostics, never a traceback."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.manifests.jobs import INTEGRATIONS
from kadmit.manifests.jobs.manage import apply_jobs
from kadmit.model import merge

from .helpers import SETUP, run

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(["", "1", "2", "x", "500m", "4Gi"]))
keys = st.sampled_from(["spec", "template", "replicas", "parallelism", "completions", "suspend", "containers",
                        "resources", "requests", "cpu", "name", "replicatedJobs", "leaderWorkerTemplate", "size",
                        "metadata", "annotations", "labels", "workerGroupSpecs", "headGroupSpec", "minReplicas",
                        "maxReplicas", "pytorchReplicaSpecs", "Master", "Worker", "components", "status",
                        "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/job-min-parallelism", "roles"])
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(keys, inner, max_size=4)), max_leaves=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(INTEGRATIONS), body=st.dictionaries(keys, values, max_size=4),
       queue=st.booleans())
def test_any_job_object_reads_or_reports(kind, body, queue):
    obj = {"apiVersion": f"{kind.group + '/' if kind.group else ''}{kind.versions[0]}", "kind": kind.kind,
           "metadata": {"name": "x", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"} if queue else {}},
           **body}
    diags = Diagnostics()
    frag = read_manifest_text(json.dumps(obj), "x.json", diags)
    model = apply_jobs(merge([frag]))
    assert len(model.workloads) + len(model.skipped) + len(diags.items) >= 1 or not frag.jobs


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(INTEGRATIONS), body=st.dictionaries(keys, values, max_size=3))
def test_any_job_object_through_the_cli(kind, body):
    obj = {"apiVersion": f"{kind.group + '/' if kind.group else ''}{kind.versions[0]}", "kind": kind.kind,
           "metadata": {"name": "x", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}}, **body}
    r = run("admit", "-", input=SETUP + "---\n" + json.dumps(obj))
    assert r.exit_code in (0, 2), r.output
    assert "internal error" not in r.output
