"""Upstream documents where kadmit was stricter than Kubernetes and Kueue, tried on the real API server
(Kubernetes v1.35.3 with Kueue v0.17.0's CRDs), and kadmit's answer for each:

- a Workload with no `spec` (Kueue's KEPs 3258 and 2941-DRA show their status so): the CRD requires none,
  the server stores it; it has no queue name, so Kueue never admits it. kadmit lists it as never admitted
  (KAD164) and decides the rest (it refused the whole input, KAD155).
- a duplicate key (Kubeflow Trainer's proposal 2170 repeats `volumeMounts`): `kubectl create` and `apply`
  keep the last value, the server stores it; the server refuses only a request body that repeats a
  field, which kubectl never sends. kadmit warns (KAD173) and reads the last (it was KAD151, exit 2).
- a Pod with unknown fields (the Kubernetes project's examples, rbd): `kubectl apply` refuses it, so it is
  never created; kadmit lists it as not decided and decides the rest (it refused the whole input).
- a v1beta2 Workload with no `spec.podSets` (its CRD requires none; v1beta1's does, and both refuse an
  empty list): stored, queued by Kueue and never admitted; kadmit decides it so (it refused the input).
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
KEP3258 = UPSTREAM / "kueue-docs-kep3258-workload-without-spec"
KEP2941 = UPSTREAM / "kueue-docs-kep2941-dra-workload-without-spec"


def _admit(path: Path) -> tuple[int, dict, str]:
    result = CliRunner().invoke(cli, ["admit", "--format", "json", str(path)], catch_exceptions=False)
    out = result.stdout
    return result.exit_code, json.loads(out[out.index("{\n"):]), result.stderr


def _workloads(path: Path, name: str) -> list[dict]:
    return [d for f in sorted(path.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text())
            if isinstance(d, dict) and d.get("kind") == "Workload" and d["metadata"]["name"] == name]


# KEP 3258's example status writes `requeueAfterSeconds: 50400 // in 14h`, a string the status schema refuses: the
# server drops a status on create, but refuses it on a status write, so no cluster holds it as written (the oracle
# skips it too: 'unrecognized type: int32'); kadmit leaves it out for that first, still warning it has no queue
NEVER_QUEUED = "it is never admitted: it has no `spec.queueName`"
STATUS_REFUSED = ("not decided: an error in the input, in this object: the API server refuses a write of its status, "
                  "so no cluster holds it as written: `status.admissionChecks[0].requeueAfterSeconds` should be an "
                  "integer, found a string")


@pytest.mark.parametrize("case, name, reason", [(KEP3258, "ml-training-job", STATUS_REFUSED),
                                                (KEP2941, "job-job0-6f46e", NEVER_QUEUED)],
                         ids=["kep3258", "kep2941"])
def test_a_workload_without_spec_is_stored_and_never_admitted(kube_apiserver: KubeAPIServer, case: Path,
                                                              name: str, reason: str) -> None:
    [workload] = _workloads(case, name)
    assert "spec" not in workload
    namespace = workload["metadata"]["namespace"]
    kube_apiserver.apply(yaml.safe_dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}))
    kube_apiserver.run("create", "-f", "-", input=yaml.safe_dump(workload))
    stored = kube_apiserver.get("workloads.kueue.x-k8s.io", name, namespace)
    assert "spec" not in stored and "status" not in stored, stored  # the status subresource drops it on create

    code, answer, err = _admit(case)
    assert code in (0, 1) and "error[KAD155]" not in err, err
    [skipped] = [s for s in answer["skipped"] if s["name"] == name]
    assert skipped["kind"] == "Workload" and skipped["reason"].startswith(reason)
    assert "warning[KAD164]" in err


DUPLICATE = """\
apiVersion: batch/v1
kind: Job
metadata: {name: duplicate-key, namespace: default}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        volumeMounts:
        - {mountPath: /a, name: v}
        volumeMounts:
        - {mountPath: /b, name: v}
      volumes:
      - {name: v, emptyDir: {}}
"""


def test_kubectl_keeps_the_last_of_a_duplicate_key_and_kadmit_warns(kube_apiserver: KubeAPIServer,
                                                                     tmp_path: Path) -> None:
    mounts = "{.spec.template.spec.containers[0].volumeMounts[*].mountPath}"
    for verb in (["create"], ["apply"], ["apply", "--server-side"]):
        got = kube_apiserver.run(*verb, "--dry-run=server", "-f", "-", "--output", f"jsonpath={mounts}",
                                 input=DUPLICATE)
        assert got.stdout == "/b", (verb, got.stdout, got.stderr)
    # the server itself refuses a body that repeats a field (strict field validation), which kubectl never sends
    body = DUPLICATE.replace("volumeMounts:\n        - {mountPath: /b", "volumeMountz:\n        - {mountPath: /b")
    body = json.dumps(yaml.safe_load(body)).replace('"volumeMountz"', '"volumeMounts"')
    assert body.count('"volumeMounts"') == 2
    raw = kube_apiserver.run("create", "--raw", "/apis/batch/v1/namespaces/default/jobs?dryRun=All&"
                             "fieldValidation=Strict", "-f", "-", input=body, check=False)
    assert raw.returncode != 0 and 'duplicate field "spec.template.spec.containers[0].volumeMounts"' in raw.stderr

    (tmp_path / "job.yaml").write_text(DUPLICATE)
    result = CliRunner().invoke(cli, ["check", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "warning[KAD173]: duplicate key `volumeMounts` (first at line 12); kubectl keeps the last one" \
        in result.output


POD_CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "pod-with-unknown-field-refused-alone.yaml"


def test_a_pod_with_unknown_fields_is_refused_alone(kube_apiserver: KubeAPIServer) -> None:
    [pod] = [d for d in yaml.safe_load_all(POD_CASE.read_text()) if d["kind"] == "Pod"]
    pod["metadata"]["namespace"] = "default"
    proc = kube_apiserver.run("apply", "--dry-run=server", "-f", "-", input=yaml.safe_dump(pod), check=False)
    assert proc.returncode != 0 and "strict decoding error" in proc.stderr, proc.stderr
    assert 'unknown field "spec.volumes[0].rbd.imageformat"' in proc.stderr

    code, answer, err = _admit(POD_CASE)
    assert code == 1, err
    assert [(d["workload"], d["admitted"]) for d in answer["decisions"]] == [("team/job", True)]
    assert [(s["kind"], s["name"], s["reason"].startswith("not decided: an error in the input"))
            for s in answer["skipped"]] == [("Pod", "rbd", True)]


def test_a_v1beta2_workload_without_pod_sets_is_stored_and_never_admitted(kube_apiserver: KubeAPIServer) -> None:
    case = Path(__file__).resolve().parents[1] / "oracle" / "features" / "workload-without-pod-sets.yaml"
    [empty] = [d for d in yaml.safe_load_all(case.read_text()) if d["metadata"]["name"] == "a-empty"]
    kube_apiserver.apply(yaml.safe_dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}))
    kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=yaml.safe_dump(empty))
    for version, pod_sets, error in (("v1beta2", {"podSets": []}, "spec.podSets in body should have at least 1 items"),
                                     ("v1beta1", {}, "spec.podSets: Required value")):
        refused = dict(empty, apiVersion=f"kueue.x-k8s.io/{version}", spec=dict(empty["spec"], **pod_sets))
        proc = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=yaml.safe_dump(refused), check=False)
        assert proc.returncode != 0 and error in proc.stderr, proc.stderr

    code, answer, err = _admit(case)
    assert code == 0 and "error[" not in err, err
    assert {d["workload"]: d["admitted"] for d in answer["decisions"]} == {
        "team/a-empty": False, "team/b-real": False, "team/c-empty": False, "team/d-real": True}
