"""Admission checks written in `.kad` deploy: the real API server (tools/kube-apiserver, the CRDs of
Kueue v0.17.0) accepts every object `kadmit export` writes for them — AdmissionChecks,
ProvisioningRequestConfigs, MultiKueueConfigs, MultiKueueClusters and the ClusterQueues'
admissionChecksStrategy — and kadmit reads what the server stores back to the same checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from kube.server import KubeAPIServer

from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.model import merge

pytestmark = pytest.mark.slow

GOOD = Path(__file__).resolve().parents[1] / "corpus" / "syntax" / "good" / "admission-checks.kad"


def test_the_export_of_a_kad_with_checks_is_accepted_and_reads_back(kube_apiserver: KubeAPIServer,
                                                                    tmp_path: Path) -> None:
    got = api.export([str(GOOD)], str(tmp_path))
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    checks = tmp_path / "12-admission-checks.yaml"
    kinds = [d["kind"] for d in yaml.safe_load_all(checks.read_text()) if d]
    assert sorted(set(kinds)) == ["AdmissionCheck", "MultiKueueCluster", "MultiKueueConfig", "ProvisioningRequestConfig"]
    files = [tmp_path / "05-resource-flavors.yaml", tmp_path / "07-cluster-queues.yaml", checks]
    args = [x for f in files for x in ("-f", str(f))]
    dry = kube_apiserver.run("apply", "--dry-run=server", "--validate=strict", *args, check=False)
    assert dry.returncode == 0, dry.stderr
    # stored: what the server keeps (its defaults added) reads back to the same checks
    kube_apiserver.run("apply", "--validate=strict", "-f", str(checks))
    try:
        stored = _stored(kube_apiserver, checks)
    finally:  # the server is the session's: other tests read whole clusters from it
        kube_apiserver.run("delete", "-f", str(checks))
    d = Diagnostics()
    back = merge([read_manifest_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": stored}), "s.json", d)])
    assert not [x for x in d.items if x.severity.value == "error"], [x.message for x in d.items]
    source = api.load_for_engine([str(GOOD)]).workspace.model
    strip = {"status_active": None, "status_reason": ""}
    assert sorted((a.model_copy(update=strip) for a in back.admission_checks), key=lambda a: a.name) == \
        sorted((a.model_copy(update=strip) for a in source.admission_checks), key=lambda a: a.name)
    # the server fills a ProvisioningRequestConfig's unset retry fields with Kueue's defaults (3, 60, 1800)
    (prc,) = [c for c in back.check_configs if c.kind == "ProvisioningRequestConfig"]
    (want,) = [c for c in source.check_configs if c.kind == "ProvisioningRequestConfig"]
    assert prc.model_copy(update={"retry_strategy": None}) == want.model_copy(update={"retry_strategy": None})
    assert (prc.retry_strategy.backoff_limit_count, prc.retry_strategy.backoff_base_seconds,
            prc.retry_strategy.backoff_max_seconds) == (2, 30, 600)
    others = lambda m: sorted(((c.kind, c.name, c.clusters, c.kubeconfig, c.kubeconfig_location_type, c.cluster_profile)  # noqa: E731
                               for c in m.check_configs if c.kind != "ProvisioningRequestConfig"))
    assert others(back) == [(k, n, cl, kc, lt or ("Secret" if kc else ""), cp) for k, n, cl, kc, lt, cp in others(source)]


def _stored(kube: KubeAPIServer, checks: Path) -> list[dict]:
    """The objects of `checks` as the server stores them, less what the server adds to metadata and the
    status (`apply` writes none: a status is a subresource)."""
    stored = []
    for doc in filter(None, yaml.safe_load_all(checks.read_text())):
        obj = kube.get(doc["kind"].lower() + ".kueue.x-k8s.io", doc["metadata"]["name"])
        for k in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "annotations"):
            obj["metadata"].pop(k, None)
        obj.pop("status", None)
        stored.append(obj)
    return stored
