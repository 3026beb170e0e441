"""`why`'s blame sets by default: lines a set shown above already says (the same place, the same words but
for the StrictFIFO head they were about) are named by their places only, two or more of them, and where a
StrictFIFO workload's own set is the head's, line for line, the head's title says so; `--all` gives every
set whole."""

from __future__ import annotations

from types import SimpleNamespace

from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.engine.explain.digest import BlameSet, Line
from kadmit.render.why import _blame
from kadmit.source import Span

KAD = "examples/ml-platform/"


def _sets(*sets: list[tuple[str, int]]) -> SimpleNamespace:
    kinds = ["queueing", "quota"]
    return SimpleNamespace(blame_kind="queue", blame_sets=[
        BlameSet([Line(text, Span("q.yaml", at, 3)) for text, at in lines], origins=[SimpleNamespace(kind=kinds[i])])
        for i, lines in enumerate(sets)])


def test_a_strict_fifo_heads_lines_said_again_for_the_workload_are_named_by_place():
    head = [("cluster queue `q` uses StrictFIFO", 4), ("(`ns/head`) cluster queue `q`: nominal quota 4 cpu in f", 10),
            ("(`ns/head`) cohort `c`: nominal quota 8 cpu in f", 20)]
    own = [("cluster queue `q`: nominal quota 4 cpu in f", 10), ("cohort `c`: nominal quota 8 cpu in f", 20)]
    out = _blame(_sets(head, own))
    # its own set is every line of the head's: the head's title says both, and no line more
    assert out[0] == "waits behind the head of its queue (its strategy, the head, a minimal set keeping both out):"
    assert not any("its own obstacle" in line for line in out) and len(out) == 1 + 3
    assert sum(1 for line in out if "nominal quota" in line) == 2  # said once each
    # some of the head's lines only: each line of its set said above, named by how many, on one line
    more = head + [("(`ns/head`) cluster queue `q`: borrowing limit 2 cpu in f", 11)]
    out = _blame(_sets(more, own))
    assert out[0].endswith("a minimal set keeping the head out):")
    assert out[-1] == "its own obstacle, even without the head (a minimal set): the same 2 lines as above"
    # a different number at the same place is said again; one line alone is said again whole
    other = [("cluster queue `q`: nominal quota 5 cpu in f", 10), ("cohort `c`: nominal quota 8 cpu in f", 20)]
    assert not any("said above" in line for line in _blame(_sets(head, other)))
    mixed = [("cluster queue `q`: nominal quota 4 cpu in f", 10), ("cohort `c`: nominal quota 8 cpu in f", 20),
             ("workload `ns/w` holds 2 cpu", 30)]
    out = _blame(_sets(head, mixed))
    assert out[-2:] == ["  q.yaml:30:3  workload `ns/w` holds 2 cpu",
                        "   = and the 2 lines said above at q.yaml:10:3, :20"]


def test_the_example_gang_names_the_racks_said_above_by_place_and_all_says_them_whole():
    runner = CliRunner()
    short = runner.invoke(cli, ["why", "team-vision/frame-extract", KAD]).output
    full = runner.invoke(cli, ["why", "team-vision/frame-extract", KAD, "--all"]).output
    places = ["examples/ml-platform/nodes.kad:5:17", "examples/ml-platform/nodes.kad:50:17",
              "examples/ml-platform/workloads.kad:100:19"]
    assert ("   = and the 3 lines said above at examples/ml-platform/nodes.kad:5:17, :50; "
            "examples/ml-platform/workloads.kad:100:19") in short
    assert all(short.count(f"  {p}  ") == 1 for p in places)  # the first set says each whole, once
    assert all(full.count(p) >= 2 for p in places)  # --all: every set whole
