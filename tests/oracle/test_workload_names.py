"""Kueue's names of the Workloads it makes of jobs (`kueue_workload` in the oracle's answer) against kadmit's
(`Workload.kueue_name`), where a Configuration changes how Kueue names them (feature gate ShortWorkloadNames;
manifests/jobs/shortnames.py). Every object of the cases carries a UID: without one each tool gives its own,
and the hash in the name follows it (docs/INTEGRATIONS.md J4)."""

from __future__ import annotations

import pytest

from kadmit.workspace import load
from oracle.harness import ROOT, run_oracle


@pytest.mark.parametrize("case", ["tests/oracle/features/feature-gate-short-workload-names-on.yaml"])
def test_kadmit_names_the_workloads_of_jobs_as_kueue_does(kueue_oracle, case):
    kueue = sorted(d["kueue_workload"] for d in run_oracle(kueue_oracle, [case])["decisions"])
    mine = sorted(f"{w.namespace}/{w.kueue_name}" for w in load([str(ROOT / case)]).model.workloads if w.kueue_name)
    assert mine == kueue
    assert max(len(name.split("/", 1)[1]) for name in kueue) == 63  # one name cut, as the gate cuts it
