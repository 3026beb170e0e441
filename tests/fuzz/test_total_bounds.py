"""The bounds on the inputs together (kadmit.budget, docs/LIMITS.md): bytes, objects and Workloads over
every file of one load, each passed bound one KAD003 error at the first thing not read, exit 2, and
nothing else said about a half-read input."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kadmit import budget, workspace
from kadmit.cli import cli
from kadmit.model import Fragment
from kadmit.workspace import Limits, ReadCache

SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: lq}
spec: {clusterQueue: cq}
"""


def deployment(name: str, replicas: int) -> str:
    return (f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: default, labels: "
            f"{{kueue.x-k8s.io/queue-name: lq}}}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: a}}}}\n"
            "  template:\n    metadata: {labels: {app: a}}\n    spec:\n"
            "      containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n")


def _errors(ws) -> list[tuple[str, str, int]]:
    return [(d.code, Path(d.span.file).name if d.span else "", d.span.line if d.span else 0)
            for d in ws.diagnostics if d.severity.value == "error"]


def test_replicas_past_the_total_refuse_the_object_at_its_replicas(tmp_path: Path) -> None:
    (tmp_path / "setup.yaml").write_text(SETUP)
    text = "".join(deployment(f"d{i}", 100) for i in range(4))
    (tmp_path / "deps.yaml").write_text(text)
    ws = workspace.load([str(tmp_path)], limits=Limits(max_workloads=250))
    third = text.index("replicas: 100", text.index("name: d2"))
    assert _errors(ws) == [("KAD003", "deps.yaml", text[:third].count("\n") + 1)], [str(d) for d in ws.diagnostics]
    (d,) = ws.diagnostics.items
    assert "more than 250 Workloads together" in d.message and "2 more objects making them not read" in d.message
    assert ws.input_error and len(ws.model.workloads) == 200


def test_objects_past_the_total_are_not_read_and_nothing_else_is_said(tmp_path: Path) -> None:
    items = [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": f"f{i}"}}
             for i in range(50)]
    (tmp_path / "list.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1))
    ws = workspace.load([str(tmp_path)], limits=Limits(max_objects=10))
    (d,) = ws.diagnostics.items  # no unused-flavor warnings about the half read
    assert d.code == "KAD003" and "more than 10 objects together: 40 more not read" in d.message
    lines = (tmp_path / "list.yaml").read_text().splitlines()
    assert '"f10"' in "".join(lines[d.span.line - 1: d.span.line + 4]) and '"f9"' not in "".join(lines[d.span.line - 1:])
    assert ws.input_error and len(ws.model.flavors) == 10


def test_files_past_the_total_bytes_are_not_read(tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / f"{name}.yaml").write_text(f"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
                                               f"metadata: {{name: {name}}}\n")
    size = (tmp_path / "a.yaml").stat().st_size
    ws = workspace.load([str(tmp_path)], limits=Limits(max_input_bytes=2 * size + 1))
    assert _errors(ws) == [("KAD003", "c.yaml", 1)]
    assert f"1 file not read, the first `{tmp_path.name}/c.yaml`" not in str(ws.diagnostics)  # named as read
    assert "not read, the first" in ws.diagnostics.items[0].message
    assert [f.name for f in ws.model.flavors] == ["a", "b"]


def test_kad_files_count_their_objects_and_workloads(tmp_path: Path) -> None:
    wl = ('workload t/w{i} {{\n  queue = lq\n  created = "2026-11-20T08:10:00Z"\n'
          '  pod_group main {{\n    count = 1\n    requests = {{ cpu = 1 }}\n  }}\n}}\n')
    (tmp_path / "a.kad").write_text("".join(wl.format(i=i) for i in range(3)))
    (tmp_path / "b.kad").write_text("".join(wl.format(i=i) for i in range(3, 6)))
    ws = workspace.load([str(tmp_path)], limits=Limits(max_workloads=4))
    assert _errors(ws) == [("KAD003", "b.kad", 1)]
    assert "3 more objects making them not read, the first in `" in ws.diagnostics.items[0].message
    assert ws.diagnostics.items[0].message.endswith("b.kad`")
    assert len(ws.model.workloads) == 3


def test_an_editors_cached_files_count_each_load(tmp_path: Path) -> None:
    (tmp_path / "setup.yaml").write_text(SETUP)
    (tmp_path / "a.yaml").write_text(deployment("a", 100))
    (tmp_path / "b.yaml").write_text(deployment("b", 100))
    cache = ReadCache()
    for _ in range(2):  # the second load reads nothing again: its counts are the cache's
        ws = workspace.load([str(tmp_path)], limits=Limits(max_workloads=150), cache=cache)
        assert [c for c, _, _ in _errors(ws)] == ["KAD003"]
    (tmp_path / "b.yaml").write_text(deployment("b", 10))
    ws = workspace.load([str(tmp_path)], limits=Limits(max_workloads=150), cache=cache)
    assert not ws.diagnostics.has_errors and len(ws.model.workloads) == 110


def test_the_totals_grow_with_max_file_size() -> None:
    base, double = Limits(), Limits(max_file_bytes=2 * workspace.DEFAULT_MAX_FILE_BYTES)
    assert (base.max_input_bytes, base.max_objects, base.max_workloads) == (
        workspace.INPUT_FILES * workspace.DEFAULT_MAX_FILE_BYTES, budget.MAX_OBJECTS, budget.MAX_WORKLOADS)
    assert (double.max_input_bytes, double.max_objects, double.max_workloads) == (
        2 * base.max_input_bytes, 2 * base.max_objects, 2 * base.max_workloads)
    assert Limits(max_file_bytes=1000).max_workloads == budget.MAX_WORKLOADS  # a smaller file, the same totals


def test_every_verb_refuses_an_input_past_a_total_with_exit_2(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(budget, "MAX_WORKLOADS", 150)
    (tmp_path / "setup.yaml").write_text(SETUP)
    (tmp_path / "deps.yaml").write_text(deployment("a", 100) + deployment("b", 100))
    for args in (["check"], ["admit"], ["admit", "--format", "json"], ["why", "default/a"], ["simulate"],
                 ["import", "-o", str(tmp_path / "out")]):
        got = CliRunner().invoke(cli, [*args, str(tmp_path)])
        assert got.exit_code == 2, (args, got.output)
        assert "KAD003" in got.output and "Workloads together" in got.output, (args, got.output)



def test_creation_times_are_not_counted_as_objects(tmp_path: Path) -> None:
    """The run clock's creation times (`Model.creation_times`, one per object read) are no objects: a file of ten
    objects with a creationTimestamp counts ten against `max_objects` where it is kept whole (`Budget.take_file`: a file
    read in an earlier load), not twenty."""
    items = [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
              "metadata": {"name": f"f{i}", "creationTimestamp": "2026-11-01T09:00:00Z"}} for i in range(10)]
    (tmp_path / "list.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1))
    ws = workspace.load([str(tmp_path)])
    fragment = Fragment(flavors=list(ws.model.flavors), creation_times=list(ws.model.creation_times))
    assert len(ws.model.creation_times) == 10 and workspace.objects_in(fragment) == 10
