"""Arbitrary job objects give decisions or diagnostics, never a traceback."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.manifests.jobs import INTEGRATIONS, REFERENCED, Integration
from kadmit.manifests.jobs.manage import apply_jobs
from kadmit.model import merge

from .helpers import SETUP, run

# Every job kind, Kueue-labelled Pods, and the Trainer runtimes TrainJobs refer to.
KINDS = list(INTEGRATIONS) + [Integration("", "Pod", ("v1",), None)] + [Integration(*r[:3], None) for r in REFERENCED]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(["", "1", "2", "x", "500m", "4Gi"]))
keys = st.sampled_from(["spec", "template", "replicas", "parallelism", "completions", "suspend", "containers",
                        "resources", "requests", "cpu", "name", "replicatedJobs", "leaderWorkerTemplate", "size",
                        "metadata", "annotations", "labels", "workerGroupSpecs", "headGroupSpec", "minReplicas",
                        "maxReplicas", "pytorchReplicaSpecs", "Master", "Worker", "components", "status",
                        "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/job-min-parallelism", "roles"])
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(keys, inner, max_size=4)), max_leaves=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), body=st.dictionaries(keys, values, max_size=4),
       queue=st.booleans(), more=st.lists(st.sampled_from(KINDS), max_size=2))
def test_any_job_object_reads_or_reports(kind, body, queue, more):
    def obj(k):
        return {"apiVersion": f"{k.group + '/' if k.group else ''}{k.versions[0]}", "kind": k.kind,
                "metadata": {"name": "x", "labels": {"kueue.x-k8s.io/queue-name": "user-queue",
                                                     "kueue.x-k8s.io/pod-group-name": "g"} if queue else {}},
                **body}
    diags = Diagnostics()
    frag = read_manifest_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [obj(k) for k in [kind, *more]]}),
                              "x.json", diags)
    model = apply_jobs(merge([frag]))
    assert len(model.workloads) + len(model.skipped) + len(diags.items) >= 1 or not frag.jobs


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), body=st.dictionaries(keys, values, max_size=3))
def test_any_job_object_through_the_cli(kind, body):
    obj = {"apiVersion": f"{kind.group + '/' if kind.group else ''}{kind.versions[0]}", "kind": kind.kind,
           "metadata": {"name": "x", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}}, **body}
    r = run("admit", "-", input=SETUP + "---\n" + json.dumps(obj))
    assert r.exit_code in (0, 1, 2), r.output  # 1: errors, the trees they don't touch decided
    assert "internal error" not in r.output


def test_a_spark_application_is_listed_as_kueue_treats_it(tmp_path):
    """Kueue's SparkApplication integration is off in the Configuration Kueue installs: not managed
    (as Kueue's own answer lists it); turned on, it is Kueue's but kadmit does not build its
    Workload, and says so; neither is a kind kadmit 'does not read'."""
    from .helpers import admit_json, write

    app = ("apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\n"
           "metadata: {name: pi, labels: {kueue.x-k8s.io/queue-name: user-queue}}\n"
           "spec: {type: Scala, mode: cluster, sparkVersion: 4.0.0, mainApplicationFile: \"local:///x.jar\", "
           "driver: {cores: 1}, executor: {instances: 1}}\n")
    on = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
          "integrations: {frameworks: [batch/job, sparkoperator.k8s.io/sparkapplication]}\n"
          "featureGates: {SparkApplicationIntegration: true}\n")  # without it Kueue's manager does not start (KAD157)
    off = admit_json(*write(tmp_path, setup__yaml=SETUP, app__yaml=app))
    assert [s["reason"] for s in off["skipped"]] == [
        "integration `sparkoperator.k8s.io/sparkapplication` is not in `integrations.frameworks` of the "
        "Configuration Kueue installs (none in the input)"]
    enabled = admit_json(*write(tmp_path, setup__yaml=SETUP, app__yaml=app, cfg__yaml=on))
    assert [s["reason"] for s in enabled["skipped"]] == [
        "kadmit does not model Kueue's SparkApplication integration (the driver and executor pod sets Kueue "
        "makes of it): not decided"]
    assert off["decisions"] == enabled["decisions"] == []
