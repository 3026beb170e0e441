"""`why` never proposes a quota for a misspelt resource (`check`'s KAD300): it says why instead, and
the fix that covers a resource nothing misspells stays (tests/engine/test_fixes_kueue_knobs.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kadmit import api

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"
KEEP = ("cluster-queues.yaml", "cohorts.yaml", "local-queues.yaml", "namespaces.yaml", "resource-flavors.yaml",
        "topology.yaml", "priority-classes.yaml", "kueue-configuration.yaml")
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: typo
  namespace: team-vision
  labels: {kueue.x-k8s.io/queue-name: training}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1", nvidia.com/gpus: "1"}
          limits: {nvidia.com/gpus: "1"}
"""


@pytest.mark.parametrize("nodes", [False, True])
def test_no_quota_for_a_misspelt_resource(tmp_path: Path, monkeypatch, nodes: bool) -> None:
    for name in KEEP + (("nodes.yaml",) if nodes else ()):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    (tmp_path / "job.yaml").write_text(JOB)
    monkeypatch.chdir(tmp_path)
    checked = api.check(["."])
    assert [(d.code, d.help) for d in checked.diagnostics if d.severity.value != "note"] == [
        ("KAD300", "did you mean `nvidia.com/gpu`?")]
    out = api.why("team-vision/typo", ["."])
    assert out.result is not None and not out.result.admitted
    assert not any("nvidia.com/gpus" in c.edit.new for fix in out.result.fixes for c in fix.changes)
    assert out.result.fixes_notes == [
        "`nvidia.com/gpus` looks like a misspelling of `nvidia.com/gpu` (KAD300): no cluster queue covers it"
        + (" and no node has it" if nodes else "")
        + "; no fix adds it to a quota: correct the request to `nvidia.com/gpu` if that is what it means"]
