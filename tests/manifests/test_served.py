"""The API versions kadmit takes as served (`kadmit.manifests.served`, KAD171) are the CRDs' own: the
`served` versions of Kueue v0.17's CRDs and of the job operators' CRDs its go.mod pins, read from the
Go module cache (the Kueue oracle's build fills it); kadmit reads no version that is not served."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kadmit.manifests import KINDS
from kadmit.manifests.served import _K8S, LATER_K8S, SERVED, unserved

CRDS = {
    "sigs.k8s.io/kueue@v0.17.0": "config/components/crd/bases/kueue.x-k8s.io_*.yaml",
    "sigs.k8s.io/jobset@v0.11.1": "config/components/crd/bases/*.yaml",
    "sigs.k8s.io/lws@v0.8.0": "config/crd/bases/*.yaml",
    "github.com/ray-project/kuberay/ray-operator@v1.6.0": "config/crd/bases/*.yaml",
    "github.com/kubeflow/training-operator@v1.9.3": "manifests/base/crds/*.yaml",
    "github.com/kubeflow/mpi-operator@v0.8.0": "manifests/base/kubeflow.org_mpijobs.yaml",
    "github.com/project-codeflare/appwrapper@v1.2.0": "config/crd/bases/*.yaml",
    "github.com/kubeflow/trainer/v2@v2.2.0": "manifests/base/crds/*.yaml",
}


# The CRDs are megabytes of YAML: libyaml's safe loader where PyYAML has it (the same documents as
# `yaml.safe_load_all`, twenty times faster), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _module_cache() -> Path:
    go = shutil.which("go")
    found = Path(subprocess.run([go, "env", "GOMODCACHE"], capture_output=True, text=True).stdout.strip()) if go else None
    if found is None or not (found / "sigs.k8s.io/kueue@v0.17.0").is_dir():
        if os.environ.get("KADMIT_CI"):
            pytest.fail("the Go module cache has no sigs.k8s.io/kueue@v0.17.0 (the oracle's build downloads it)")
        pytest.skip("no Go module cache with Kueue v0.17.0 here")
    return found


def test_served_versions_are_the_crds():
    cache = _module_cache()
    crds: dict[tuple[str, str], tuple[str, ...]] = {}
    for module, pattern in CRDS.items():
        files = sorted((cache / module).glob(pattern))
        assert files, f"{module}/{pattern}"
        for path in files:
            for doc in yaml.load_all(path.read_text(), Loader=SAFE_LOADER):
                if doc and doc.get("kind") == "CustomResourceDefinition":
                    spec = doc["spec"]
                    key = (spec["group"], spec["names"]["kind"])
                    served = tuple(v["name"] for v in spec["versions"] if v.get("served"))
                    if key == ("kubeflow.org", "MPIJob") and "mpi-operator" not in module:
                        continue  # training-operator's v1 MPIJob: Kueue v0.17 reads mpi-operator's
                    crds[key] = served
    for key, (versions, _) in SERVED.items():
        if key in crds:
            assert sorted(versions) == sorted(crds[key]), key
        else:
            assert key[0] in ("", "batch", "apps", "scheduling.k8s.io", "node.k8s.io"), f"{key}: no CRD found"


def _registered(api: Path) -> dict[str, set[str]]:
    """k8s.io/api's scheduling group: version -> the kinds its register.go adds to the scheme."""
    return {d.name: set(re.findall(r"&(\w+)\{\}", (d / "register.go").read_text())) - {"metav1"}
            for d in sorted(api.glob("scheduling/v*")) if (d / "register.go").is_file()}


def test_scheduling_kinds_are_kubernetes_v1_35s():
    """The scheduling.k8s.io kinds kadmit takes as served are k8s.io/api v0.35.3's (Kueue v0.17.0's go.mod):
    Workload in v1alpha1 only; and a later Kubernetes' kind (LATER_K8S: PodGroup) in no version."""
    cache = _module_cache()
    v135 = _registered(cache / "k8s.io/api@v0.35.3")
    assert {v for v, kinds in v135.items() if "Workload" in kinds} == set(SERVED["scheduling.k8s.io", "Workload"][0])
    assert {v for v, kinds in v135.items() if "PriorityClass" in kinds} >= set(
        SERVED["scheduling.k8s.io", "PriorityClass"][0])
    for group, kind in LATER_K8S:
        assert group == "scheduling.k8s.io" and not any(kind in kinds for kinds in v135.values()), kind
        later = cache / "k8s.io/api@v0.36.0"
        if later.is_dir():  # the release LATER_K8S names, where the module cache has it
            assert kind in _registered(later)["v1alpha2"] and "v1.36, in `scheduling.k8s.io/v1alpha2`" == \
                LATER_K8S[group, kind][0]


def test_kadmit_reads_only_served_versions():
    for (group, kind), spec in KINDS.items():
        for version in spec.versions:
            assert unserved(group, version, kind) is None, (group, version, kind)
    assert unserved("ray.io", "v1alpha1", "RayJob") is None  # KubeRay v1.6.0 still serves it
    assert unserved("kueue.x-k8s.io", "v1alpha1", "Cohort") == (
        "`kueue.x-k8s.io/v1beta1`, `kueue.x-k8s.io/v1beta2`", "Kueue v0.17's CRDs")
    # a built-in kind of a later Kubernetes (v1.36's PodGroup): served in no version; v1.36's Workload version
    assert unserved("scheduling.k8s.io", "v1alpha2", "PodGroup") == (
        "none", "Kubernetes v1.35, whose API Kueue v0.17 builds with, has no `PodGroup` in `scheduling.k8s.io`: "
                "it came in v1.36, in `scheduling.k8s.io/v1alpha2`")
    assert unserved("scheduling.k8s.io", "v1alpha2", "Workload") == ("`scheduling.k8s.io/v1alpha1`", _K8S)
    # a group that served the kind once: the API server refuses it, it is not a kind kadmit doesn't read
    assert unserved("extensions", "v1beta1", "Deployment") == ("`apps/v1`", "Kubernetes v1.35, whose API Kueue "
                                                               "v0.17 builds with")
    # a built-in kind kadmit does not read, in a version Kubernetes removed (k8s.io/api's lifecycle data)
    assert unserved("batch", "v1beta1", "CronJob") == ("`batch/v1`", "Kubernetes v1.35, whose API Kueue v0.17 "
                                                       "builds with; removed in v1.25")
    assert unserved("batch", "v1", "CronJob") is None and unserved("events.k8s.io", "v1beta1", "Event")[0] == \
        "another version"


def test_an_unserved_object_is_refused_alone(tmp_path):
    """The API server refuses the object, not the input: KAD171 at its apiVersion, the object
    skipped with the served versions, the rest decided (`admit` exits 1, as for any error it leaves aside)."""
    import json

    from tests.jobs.helpers import SETUP, run, write

    jobs = """\
    apiVersion: batch/v1
    kind: Job
    metadata: {name: good, labels: {kueue.x-k8s.io/queue-name: user-queue}}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
    ---
    apiVersion: kueue.x-k8s.io/v1alpha1
    kind: Cohort
    metadata: {name: old}
    """
    paths = write(tmp_path, setup__yaml=SETUP, jobs__yaml=jobs)
    r = run("admit", *paths, "--format", "json")
    assert r.exit_code == 1, r.output  # an error printed: exit 1, the rest decided
    out = json.loads(r.stdout)
    assert [(d["workload"], d["admitted"]) for d in out["decisions"]] == [("default/good", True)]
    (old,) = [s for s in out["skipped"] if s["name"] == "old"]
    assert old["reason"] == ("the API server does not serve `Cohort` in `kueue.x-k8s.io/v1alpha1` (served: "
                             "`kueue.x-k8s.io/v1beta1`, `kueue.x-k8s.io/v1beta2`, by Kueue v0.17's CRDs)")
    assert "jobs.yaml:10:13" in r.stderr and "error[KAD171]" in r.stderr
    assert run("check", *paths).exit_code == 1
    assert run("simulate", *paths).exit_code == 1  # replayed without it, the error printed
