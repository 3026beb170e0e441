"""Admission checks in the editor: completion of the new fields, check names, controllers, parameters,
flavors and states; hover over a check (its controller, whether Kueue takes it as Active, the queues
requiring it) and over the objects its controllers read; definitions and references of check names."""

from __future__ import annotations

import shutil
from pathlib import Path

from kadmit.editor.complete import complete
from kadmit.editor.hover import hover
from kadmit.editor.project import Project

GOOD = Path(__file__).resolve().parents[1] / "corpus" / "syntax" / "good" / "admission-checks.kad"


def project(tmp_path: Path):
    path = tmp_path / "checks.kad"
    shutil.copy(GOOD, path)
    return Project([str(tmp_path)]).snapshot(), path, path.read_text()


def labels(snap, text: str, where: str, new: str, keywords: bool = False) -> list[str]:
    """What completes after `where` + `new` (the grammar's keywords there only if asked)."""
    edited = text.replace(where, where + new, 1)
    return [i.label for i in complete(snap, edited, edited.index(where + new) + len(where + new)).items
            if keywords or i.kind != "keyword"]


def at(text: str, needle: str, shift: int = 0) -> tuple[int, int]:
    i = text.index(needle) + shift
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def test_completion(tmp_path: Path) -> None:
    snap, _, text = project(tmp_path)
    assert {"admission_check", "provisioning_config", "multikueue_config", "multikueue_cluster"} <= set(
        labels(snap, text, "flavor spot {}\n", "\n", keywords=True))
    assert "admission_checks" in labels(snap, text, "cluster_queue checked {\n", "  adm")
    assert labels(snap, text, "admission_checks = [approval", ", ") == ["approval", "budget", "capacity", "remote"]
    assert labels(snap, text, "admission_checks = { approval = all, ", "") == ["approval", "budget", "capacity", "remote"]
    assert labels(snap, text, "capacity = [", "") == ["on-demand", "spot"]
    assert labels(snap, text, "checks  = { approval = ", "r") == ["ready", "retry", "rejected"]
    assert labels(snap, text, "  controller = ", "") == ["provisioning_request", "multikueue"]
    assert labels(snap, text, "  parameters = ", "") == ["gpu-capacity", "workers"]
    assert labels(snap, text, "  pod_set_merge_policy = ", "") == [
        "identical_pod_templates", "identical_workload_scheduling_requirements"]
    assert labels(snap, text, "clusters = [eu", ", ") == ["eu", "us"]
    assert "backoff_max_seconds" in labels(snap, text, "retry_strategy {\n", "    ")


def test_hover_and_definitions(tmp_path: Path) -> None:
    snap, path, text = project(tmp_path)
    shown = hover(snap, str(path), *at(text, "admission_checks = [remote", shift=21)).markdown
    assert "**admission check `remote`**" in shown and "controller: `kueue.x-k8s.io/multikueue`" in shown
    assert "Active" in shown and "cluster queues: `federated`" in shown
    budget = hover(snap, str(path), *at(text, "admission_check budget", shift=17)).markdown
    assert "not Active: BudgetExhausted (its controller `example.com/budget`)" in budget
    capacity = hover(snap, str(path), *at(text, "capacity = [spot]")).markdown
    assert "cluster queues: `per-flavor` (on `spot`)" in capacity
    config = hover(snap, str(path), *at(text, "parameters = gpu-capacity", shift=14)).markdown
    assert "provisioning class: `check-capacity.autoscaling.x-k8s.io`" in config and "admission checks: `capacity`" in config
    cluster = hover(snap, str(path), *at(text, "clusters = [eu, us]", shift=16)).markdown
    assert "**MultiKueueCluster `us`**" in cluster and "not Active" in cluster
    (d,) = snap.symbols.definitions("admission_check", "approval")
    assert (d.span.line, d.span.column) == at(text, "approval {", 0)
    uses = snap.symbols.references("admission_check", "approval")
    assert len(uses) == text.count("approval = ") + text.count("[approval]")
