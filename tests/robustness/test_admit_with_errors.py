"""`admit` on an input with errors decides the cohort trees the errors don't touch (as Kueue keeps
admitting where queues are fine), lists the touched trees' workloads as not decided (a pending one; an
admitted one, whether it stays admitted), and exits 1; an error that may change every decision (a node,
a rule, the configuration) still refuses."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kadmit import api
from kadmit.cli import cli

from . import hostile


def _items() -> list[dict]:
    return [hostile.flavor("f"), hostile.namespace("t"),
            hostile.cluster_queue("q", flavor_name="missing"), hostile.local_queue("lq", "t", "q"),
            hostile.workload("w", "t", "lq"),
            hostile.cluster_queue("a", cohort="c"), hostile.cluster_queue("b", cohort="c"),
            hostile.local_queue("la", "t", "a"), hostile.local_queue("lb", "t", "b"),
            hostile.workload("ok", "t", "la"), hostile.workload("big", "t", "la", cpu="12"),
            hostile.cluster_queue("broken", cpu="2x", cohort="d"), hostile.cluster_queue("sibling", cohort="d"),
            hostile.local_queue("lx", "t", "broken"), hostile.local_queue("ls", "t", "sibling"),
            hostile.workload("inbroken", "t", "lx"), hostile.workload("insibling", "t", "ls")]


def _decided(out) -> dict[str, bool]:
    return {d.key: d.admitted for d in out.result.decisions}


def test_trees_the_errors_dont_touch_are_decided_and_the_others_listed(tmp_path: Path) -> None:
    hostile.write(tmp_path, "in.json", _items())
    out = api.admit([str(tmp_path)])
    assert out.exit_code == 1
    assert {d.code for d in out.diagnostics if d.severity.name == "ERROR"} == {"KAD158", "KAD200"}
    # cohort `c` borrows as if nothing were broken; `q` is inactive (missing flavor), as Kueue has it
    assert _decided(out) == {"t/ok": True, "t/big": True, "t/w": False}
    # `broken`'s tree (cohort `d`): its sibling queue's workload waits too, listed with the reason
    assert sorted(s.object.name for s in out.held) == ["inbroken", "insibling"]
    assert all("error in the input touches its cohort tree" in s.reason for s in out.held)
    # the same decisions as an input without the touched tree at all
    (tmp_path / "without").mkdir()
    hostile.write(tmp_path / "without", "in.json", [i for i in _items() if not any(
        n in json.dumps(i["metadata"]) for n in ('"broken"', '"sibling"', '"lx"', '"ls"', "inbroken", "insibling"))])
    alone = api.admit([str(tmp_path / "without")])
    assert alone.exit_code == 1 and _decided(alone) == _decided(out)  # KAD200 stays: `q` stays inactive
    got = CliRunner().invoke(cli, ["admit", str(tmp_path / "in.json"), "--format", "json"])
    assert got.exit_code == 1
    skipped = json.loads(got.stdout)["skipped"]
    assert sorted(s["name"] for s in skipped) == ["inbroken", "insibling"]
    # `why` reads the errors the same way: it answers in cohort `c`, not in `broken`'s cohort `d`
    assert api.why("t/ok", [str(tmp_path / "in.json")]).exit_code == 0
    assert api.why("t/insibling", [str(tmp_path / "in.json")]).exit_code == 2


def test_a_touched_trees_admitted_workloads_are_listed_too(tmp_path: Path) -> None:
    """An admitted workload of a touched tree is listed as well: whether it stays admitted is not decided (Kueue
    may preempt it for a pending one of its tree; fuzz14's duplicate LocalQueue case had the victim listed nowhere)."""
    items = [*_items(), hostile.admitted(hostile.workload("running", "t", "ls"), "sibling", {"cpu": "f"})]
    hostile.write(tmp_path, "in.json", items)
    out = api.admit([str(tmp_path)])
    reasons = {s.object.name: s.reason for s in out.held}
    assert sorted(reasons) == ["inbroken", "insibling", "running"]
    assert reasons["running"].startswith("admitted in the input; whether it stays admitted is not decided")
    assert reasons["insibling"] == "not decided: an error in the input touches its cohort tree"


def test_an_error_that_may_change_every_decision_still_refuses(tmp_path: Path) -> None:
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "fairSharing": {"preemptionStrategies": ["Sometimes"]}}
    hostile.write(tmp_path, "in.json", _items() + [config])
    out = api.admit([str(tmp_path)])
    assert out.exit_code == 2 and out.result is None
    assert api.why("t/ok", [str(tmp_path)]).exit_code == 2  # `why` reads the errors the same way


def test_a_node_the_api_server_refuses_is_left_out_alone(tmp_path: Path) -> None:
    """A Node the API server can't decode (a quantity it refuses) is never created: the rest is decided without it,
    and it is listed with the error (tests/oracle/features/node-refused-alone-topology.yaml on the oracle)."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "lots"}}}
    hostile.write(tmp_path, "in.json", _items() + [node])
    out = api.admit([str(tmp_path)])
    assert out.exit_code == 1 and _decided(out) == {"t/ok": True, "t/big": True, "t/w": False}
    assert [(s.object.kind, s.reason.split(":")[0]) for s in out.held if s.object.kind == "Node"] == [
        ("Node", "the API server refuses it, so it is never created")]
    assert api.why("t/ok", [str(tmp_path)]).exit_code == 0


def test_a_clean_input_still_exits_0(tmp_path: Path) -> None:
    items = [i for i in _items() if i["metadata"]["name"] not in ("q", "lq", "w", "broken", "lx", "inbroken")]
    hostile.write(tmp_path, "in.json", items)
    out = api.admit([str(tmp_path)])
    assert out.exit_code == 0 and out.held == []
