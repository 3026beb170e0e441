"""`kadmit admit` / `why` on gangs kube-scheduler places all-or-nothing: their own section and JSON."""

import json
from pathlib import Path

GANGS = (Path(__file__).resolve().parents[1] / "manifests" / "gangs-two-apis.yaml").read_text()


def test_admit_shows_gangs_in_their_own_section_and_json(run):
    run.write("g.yaml", GANGS)
    r = run("admit", "g.yaml")
    assert r.exit_code == 0, r.output
    assert "gangs (placed by kube-scheduler all-or-nothing, not admitted by Kueue):" in r.output
    assert "ml/trainer        no      PodGroup (scheduling.x-k8s.io/v1alpha1)" in r.output
    out = json.loads(run("admit", "g.yaml", "--format", "json").stdout)
    trainer = next(g for g in out["gangs"] if g["gang"] == "ml/trainer")
    assert trainer["object"] == {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                                 "namespace": "ml", "name": "trainer"}
    assert not trainer["placed"] and trainer["min_count"] == 3 and trainer["need"] == 3


def test_why_explains_a_gang_with_a_core(run):
    run.write("g.yaml", GANGS)
    r = run("why", "ml/trainer", "g.yaml")
    assert r.exit_code == 1, r.output
    assert r.output.startswith("error[KAD540]: gang `ml/trainer` can't be placed")
    assert "blame (a minimal set that keeps the gang off the nodes; each one matters):" in r.output
    assert "pod `ml/busy` holds 6 `nvidia.com/gpu` on 1 node (gpu-1)" in r.output
    j = json.loads(run("why", "ml/trainer", "g.yaml", "--format", "json").stdout)
    assert j["gang"]["placed"] is False and [o["kind"] for o in j["cores"][0]] == ["domain", "holder", "count"]
    assert run("why", "ml/small/workers", "g.yaml").exit_code == 0
