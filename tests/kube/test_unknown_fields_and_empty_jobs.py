"""Two upstream examples as the real API server (Kubernetes v1.35.3, the job operators' CRDs Kueue v0.17.0
pins) takes them, and kadmit's answer for each (tests/corpus/upstream holds both, decided by Kueue's code):

- training-operator v1.9.3's xgboostjob_v1alpha1_rabit_test has `apiVersion` and `kind` inside its pod
  templates: `kubectl apply` (strict field validation, its default) refuses the XGBoostJob naming the four
  fields; a request without field validation is told of them and the object stored without them. kadmit
  answers as for `kubectl apply`: KAD180 at the same four fields, the job listed as not decided, the
  rest of the input decided (exit 1).
- JobSet's kubebuilder sample (`spec:` null) is accepted, but the Workload Kueue makes of a JobSet without
  replicated jobs (`podSets: []`) is refused: kadmit lists the JobSet as never admitted (KAD167).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from kube.server import KubeAPIServer

from kadmit.cli import cli

pytestmark = pytest.mark.slow

UPSTREAM = Path(__file__).resolve().parents[1] / "corpus" / "upstream"
XGB = UPSTREAM / "training-operator-v1.9.3-examples_xgboost_smoke-dist_xgboostjob_v1alpha1_rabit_test"
JOBSET = UPSTREAM / "jobset-config_samples_batch_v1alpha2_jobset"
TEMPLATE_FIELDS = [f"spec.xgbReplicaSpecs.{r}.template.{k}" for r in ("Master", "Worker") for k in ("apiVersion", "kind")]


def _admit(path: Path) -> tuple[int, dict, str]:
    result = CliRunner().invoke(cli, ["admit", "--format", "json", str(path)], catch_exceptions=False)
    out = result.stdout
    return result.exit_code, json.loads(out[out.index("{\n"):]), result.stderr


def test_kubectl_refuses_unknown_fields_of_a_job_and_kadmit_lists_it_not_decided(kube_apiserver: KubeAPIServer) -> None:
    manifest = (XGB / "xgboostjob_v1alpha1_rabit_test.yaml").read_text()
    proc = kube_apiserver.run("apply", "--dry-run=server", "-f", "-", input=manifest, check=False)
    assert proc.returncode != 0 and "strict decoding error" in proc.stderr, proc.stderr
    assert sorted(f for f in TEMPLATE_FIELDS if f'unknown field "{f}"' in proc.stderr) == sorted(TEMPLATE_FIELDS)
    # without field validation (a client that sets none: the server's default is Warn) it is stored, pruned
    body = json.dumps(yaml.safe_load(manifest))
    raw = kube_apiserver.run("create", "--raw", "/apis/kubeflow.org/v1/namespaces/default/xgboostjobs?dryRun=All",
                             "-f", "-", input=body)
    assert all(f'unknown field "{f}"' in raw.stderr for f in TEMPLATE_FIELDS), raw.stderr
    stored = json.loads(raw.stdout)["spec"]["xgbReplicaSpecs"]
    assert all(set(stored[r]["template"]) == {"spec"} for r in ("Master", "Worker")), stored

    code, answer, err = _admit(XGB)
    assert code == 1, err
    assert sorted(line.split("`")[1] for line in err.splitlines() if line.startswith("error[KAD180]")) == \
        sorted(TEMPLATE_FIELDS)
    assert answer["decisions"] == []
    assert [(s["kind"], s["name"], s["reason"].startswith("not decided: an error in the input"))
            for s in answer["skipped"]] == [("XGBoostJob", "xgboost-dist-test", True)]


def test_a_jobset_without_replicated_jobs_is_accepted_but_its_workload_is_not(kube_apiserver: KubeAPIServer) -> None:
    sample = (JOBSET / "batch_v1alpha2_jobset.yaml").read_text()
    kube_apiserver.run("apply", "--dry-run=server", "-f", "-", input=sample)  # the JobSet: accepted
    workload = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: jobset-jobset-sample-4a447, namespace: default}
spec: {queueName: default, podSets: []}
"""
    proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=workload, check=False)
    assert proc.returncode != 0 and "spec.podSets in body should have at least 1 items" in proc.stderr, proc.stderr

    code, answer, err = _admit(JOBSET)
    assert code == 0, err
    assert "warning[KAD167]" in err
    assert answer["decisions"] == []
    [skipped] = answer["skipped"]
    assert (skipped["kind"], skipped["name"]) == ("JobSet", "jobset-sample")
    assert "never admitted" in skipped["reason"] and "spec.podSets" in skipped["reason"]


XGB_SITE = UPSTREAM / "kueue-sample-xgboostjob"
LWS_NULL = UPSTREAM / "lws-docs-concepts-null-templates"


def test_a_fractional_number_quantity_is_refused_in_a_custom_resource_and_kadmit_declines_it(
        kube_apiserver: KubeAPIServer) -> None:
    """Kueue's site's sample-xgboostjob writes `cpu: 0.5`: the XGBoostJob's CRD types a quantity
    int-or-string, so the server refuses it (a Job's template takes it); kadmit says KAD156 at both and lists
    the job as not decided."""
    manifest = (XGB_SITE / "sample-xgboostjob.yaml").read_text()
    proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=manifest, check=False)
    assert proc.returncode != 0 and "must be of type integer,string" in proc.stderr, proc.stderr
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: half-cpu, namespace: default}\nspec:\n  template:\n"
           "    spec:\n      restartPolicy: Never\n"
           "      containers: [{name: c, image: x, resources: {requests: {cpu: 0.5}}}]\n")
    kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=job)  # a built-in kind takes it
    code, answer, err = _admit(XGB_SITE)
    assert code == 1, err
    assert [line.split("`")[1] for line in err.splitlines() if line.startswith("error[KAD156]")] == \
        [f"spec.xgbReplicaSpecs.{r}.template.spec.containers[0].resources.requests.cpu" for r in ("Master", "Worker")]
    assert [(s["kind"], s["reason"].startswith("not decided: an error in the input")) for s in answer["skipped"]] \
        == [("XGBoostJob", True)]


def test_a_custom_resources_null_pod_template_spec_is_stored_empty(kube_apiserver: KubeAPIServer) -> None:
    """LWS's concepts page's LeaderWorkerSet (`spec:` null in both templates) is stored with `{}` templates;
    the Workload Kueue's reconciler makes of it has no containers, which the Workload CRD refuses, so kadmit
    skips it in the API server's words (as the oracle, checking writes against the CRDs: test_upstream.py)."""
    manifest = (LWS_NULL / "_index-L73.yaml").read_text()
    stored = json.loads(kube_apiserver.run("create", "--dry-run=server", "-o", "json", "-f", "-",
                                           input=manifest).stdout)
    template = stored["spec"]["leaderWorkerTemplate"]
    assert template["leaderTemplate"] == {} and template["workerTemplate"] == {}, template
    code, answer, err = _admit(LWS_NULL)
    assert code == 0, err
    assert answer["decisions"] == []
    assert [s["reason"].endswith("template.spec.containers: Required value, <nil>: Invalid value: null: some "
                                 "validation rules were not checked because the object was invalid; correct the "
                                 "existing errors to complete validation]") for s in answer["skipped"]] == [True]
