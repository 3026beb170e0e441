"""Kueue's names of the Workloads it makes of jobs (`kueue_workload` in the oracle's answer) against kadmit's
(`Workload.kueue_name`), where a Configuration changes how Kueue names them (feature gate ShortWorkloadNames;
manifests/jobs/shortnames.py). Every object of the cases carries a UID: without one each tool gives its own,
and the hash in the name follows it (docs/INTEGRATIONS.md J4)."""

from __future__ import annotations

import json

import pytest

from kadmit.workspace import load
from oracle.harness import ROOT, run_oracle


@pytest.mark.parametrize("case", ["tests/oracle/features/feature-gate-short-workload-names-on.yaml"])
def test_kadmit_names_the_workloads_of_jobs_as_kueue_does(kueue_oracle, case):
    kueue = sorted(d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"])
    mine = sorted(f"{w.namespace}/{w.kueue_name}" for w in load([str(ROOT / case)]).model.workloads if w.kueue_name)
    assert mine == kueue
    assert max(len(name.split("/", 1)[1]) for name in kueue) == 63  # one name cut, as the gate cuts it


@pytest.mark.parametrize("case", ["tests/oracle/features/leaderworkerset-templates-naming-a-pod-group.yaml"])
def test_every_output_names_a_pod_groups_workload_as_kueue_does(kueue_oracle, case):
    """A LeaderWorkerSet's pod group's Workload (Kueue names it as the group, no hash: the same without UIDs) is
    shown as its object (`workload`, as the oracle shows it) and named as Kueue names it (`kueue_workload`) by
    admit's JSON and why's JSON and text alike: kadmit keeps it under the LeaderWorkerSet's name, while why said
    Kueue's and admit's JSON did not say it."""
    from click.testing import CliRunner

    from kadmit.cli import cli

    kueue = {d["workload"]: d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"]}
    assert kueue == {"ns-b/a": "ns-b/ga", "ns-b/c": "ns-b/gc"}
    path = str(ROOT / case)
    mine = json.loads(CliRunner().invoke(cli, ["admit", "--format", "json", path]).stdout)["decisions"]
    assert {d["workload"]: d["kueue_workload"] for d in mine} == kueue
    for shown, named in kueue.items():
        for typed in (shown, named):  # found by either name
            said = json.loads(CliRunner().invoke(cli, ["why", "--format", "json", typed, path]).stdout)
            assert (said["workload"], said["kueue_workload"]) == (shown, named)
        text = CliRunner().invoke(cli, ["why", shown, path]).stdout
        assert text.splitlines()[0].endswith(f"is admitted (Workload {named})")
