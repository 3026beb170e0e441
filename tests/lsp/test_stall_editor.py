"""The editor shows KAD542 as `kadmit check` does (`api.add_stall`, the engine's rule): a Workload holding
quota under admission fair sharing whose LocalQueue doesn't exist makes every cycle fail; the warning goes
once the buffer names a LocalQueue that exists."""

from __future__ import annotations

import shutil
from pathlib import Path

from kadmit.api import check
from kadmit.editor.project import Project

STALL = Path(__file__).resolve().parents[1] / "oracle" / "features" / "admission-fair-sharing-holder-without-local-queue.yaml"


def test_the_editor_warns_of_the_stall_as_check_does(tmp_path: Path) -> None:
    path = tmp_path / STALL.name
    shutil.copy(STALL, path)
    project = Project([str(tmp_path)])
    shown = [d for d in project.snapshot().by_file[str(path)] if d.code == "KAD542"]
    assert shown == [d for d in check([str(tmp_path)]).diagnostics if d.code == "KAD542"]
    [d] = shown
    assert d.severity == "warning" and "Workload team/old holds quota in ClusterQueue shared" in d.message
    project.set_text(path, path.read_text().replace("queueName: gone", "queueName: lq", 1))
    assert not any(d.code == "KAD542" for d in project.snapshot().diagnostics)
