"""A Kueue kind's status checked against its CRD's status schema, as the API server checks a status write
(manifests/schema/status.py): the server's words, quoted in KAD157; a v1beta2 status as Kueue's Go types leave it
(tests/oracle/features/workload-status-refused-alone.yaml decides the same Workloads on the oracle)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from kadmit.manifests.schema.constraints import CEL_RULES
from kadmit.workspace import load

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "workload-status-refused-alone.yaml"


def _errors(path: str) -> dict[str, list[str]]:
    ws = load([path])
    out: dict[str, list[str]] = {}
    for d in ws.diagnostics:
        if d.severity.name == "ERROR":
            out.setdefault(d.about[0].name if d.about else "", []).append(d.message)
    return out


def test_the_api_servers_words_for_each_status_it_refuses():
    got = _errors(str(CASE))
    assert got["h-no-time"] == got["h-null-time"] == [
        "`status.conditions[0]` is refused by its CRD: `status.conditions[0].lastTransitionTime: Required value`"]
    assert got["h-empty-type"] == [
        "`status.conditions[0].type` is refused by its CRD: `status.conditions[0].type: Invalid value: \"\": "
        "status.conditions[0].type in body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
        "[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'`"]
    # Go writes `reason: ""`: the minimum length's error alone, as kube-openapi stops at a string's first
    assert got["h-no-reason"] == ["`status.conditions[0].reason` is refused by its CRD: `status.conditions[0].reason: "
                                  "Invalid value: \"\": status.conditions[0].reason in body should be at least 1 chars "
                                  "long`"]
    assert got["h-check-no-time"] == ["`status.admissionChecks[0]` is refused by its CRD: "
                                      "`status.admissionChecks[0].lastTransitionTime: Required value`"]
    assert got["h-unknown-field"] == ["unknown field `status.bogus` in `Workload` `h-unknown-field`"]
    assert "h-no-message" not in got  # Go writes `message: ""`, which the schema takes


def test_a_v1beta1_status_is_checked_as_written(tmp_path):
    """A v1beta1 Workload that Kueue's webhook leaves as it is is checked as sent (the oracle: Defaulter.Check): a
    condition without `message` lacks a required field (tests/corpus/manifests/good-workload-states.yaml had them)."""
    text = CASE.read_text().replace("kueue.x-k8s.io/v1beta2\nkind: Workload", "kueue.x-k8s.io/v1beta1\nkind: Workload")
    (tmp_path / "in.yaml").write_text(text)
    got = _errors(str(tmp_path / "in.yaml"))
    assert got["h-no-message"] == ["`status.conditions[0]` is refused by its CRD: "
                                   "`status.conditions[0].message: Required value`"]


def test_every_cel_rule_of_a_kueue_status_is_implemented():
    data = json.loads(resources.files("kadmit.manifests.schema").joinpath("data", "kueuestatus.json").read_text())
    rules = {r["rule"] for kind in data["kinds"].values() for c in kind["checks"].values() for r in c.get("rules", [])}
    assert rules and not rules - set(CEL_RULES)
