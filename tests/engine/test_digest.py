"""`why` in a few lines (`explain.digest`): blame sets that differ only by resource said as one, each
queue's numbers on one line, side effects counted by kind; and the human answer within its bounds."""

from __future__ import annotations

from click.testing import CliRunner

from kadmit import workspace
from kadmit.cli import cli
from kadmit.engine.decide import why
from kadmit.engine.explain.digest import MAX_NAMED, MAX_PER_KIND, merge, summarize
from kadmit.engine.explain.replay import Effect, State
from kadmit.engine.explain.prove import _gets
from kadmit.render.decisions import admit_human
from kadmit import api

KAD = "examples/ml-platform/"


def test_sets_that_differ_only_by_resource_are_one_and_every_statement_is_on_a_line():
    r = why(workspace.load([KAD]).model, "team-vision/llm-pretrain")
    groups = r.blame_groups
    sets = merge(groups)
    assert len(sets) < len(groups) and sum(bs.sets for bs in sets) == len(groups)
    for bs in sets:
        in_lines = [i for line in bs.lines for i in line.ids]
        assert sorted(in_lines) == sorted({o.id for o in bs.origins})  # each statement on exactly one line
        if bs.sets > 1:
            assert len(bs.resources) > 1
    # one line per queue or cohort: the numbers of `team-vision` in every flavor and resource together
    first = sets[0]
    assert sum(1 for line in first.lines if "cluster queue `team-vision`" in line.text) == 1


def _state(admitted: bool, by: str | None = None) -> State:
    return State(admitted, "q", (("main", 1, (("cpu", "f"),)),) if admitted else (), preempted_by=by)


def test_effects_read_as_before_and_after_states():
    assert Effect("a", _state(False), _state(False, "x")).kind == "pending → admitted, then evicted"
    assert Effect("a", _state(True), _state(False, "x")).kind == "admitted → evicted"
    assert Effect("a", _state(False, "x"), _state(False, "y")).kind == "evicted by another preemptor"
    assert not Effect("a", _state(False, "x"), _state(False, "y")).harmful
    assert Effect("a", _state(False, "x"), _state(True)).kind == "evicted → admitted"
    assert "preempted" not in Effect("a", _state(False), _state(False, "x")).as_dict()["after"]


def test_side_effects_are_counted_by_kind_with_a_few_named_and_the_ones_ahead_apart():
    effects = [Effect(f"n/ahead{i}", _state(False), _state(True)) for i in range(4)]
    effects += [Effect(f"n/other{i}", _state(False), _state(True)) for i in range(9)]
    effects += [Effect(f"n/hurt{i}", _state(True), _state(False)) for i in range(2)]
    s = summarize(sorted(effects, key=lambda e: (not e.harmful, e.workload)),
                  frozenset(f"n/ahead{i}" for i in range(4)))
    assert s.total == 15 and s.ahead == 4 and s.all_ahead
    assert [(k, n) for k, n, _ in s.by_kind] == [("admitted → pending", 2), ("pending → admitted", 9)]
    named = [w for _, _, names in s.by_kind for w in names]
    assert named == ["n/hurt0", "n/hurt1"]  # the workloads it harms; the ones it admits only counted
    # at most MAX_PER_KIND of one kind, MAX_NAMED in all, the counts exact
    hurt = [Effect(f"n/evicted{i}", _state(True), _state(False, "x")) for i in range(7)]
    hurt += [Effect(f"n/pending{i}", _state(True), _state(False)) for i in range(4)]
    hurt += [Effect(f"n/more{i}", _state(False, "y"), _state(False, "x")) for i in range(2)]
    s = summarize(hurt)
    assert [(k, n, len(names)) for k, n, names in s.by_kind] == [
        ("admitted → evicted", 7, MAX_PER_KIND), ("admitted → pending", 4, MAX_NAMED - MAX_PER_KIND),
        ("evicted by another preemptor", 2, 0)]


def test_a_workloads_pod_sets_keep_their_own_nodes():
    s = State(True, "q", (("launcher", 1, (("cpu", "h100"),)), ("workers", 2, (("cpu", "a100"),))),
              (("launcher", (("h1", 1),)), ("workers", (("a1", 1), ("a2", 1)))))
    assert _gets(s) == ("admitted to ClusterQueue `q` with 1 pod of `launcher` on h100 (h1); "
                        "2 pods of `workers` on a100 (a1, a2)")


def test_the_example_whys_are_said_in_a_few_lines_and_all_of_it_with_all():
    runner = CliRunner()
    short = runner.invoke(cli, ["why", "team-vision/llm-pretrain", KAD])
    full = runner.invoke(cli, ["why", "team-vision/llm-pretrain", KAD, "--all"])
    assert short.exit_code == full.exit_code == 1
    assert len(short.output.splitlines()) <= 30 < len(full.output.splitlines())
    assert "blame: " in short.output and "^" not in short.output  # no excerpts by default
    assert full.output.count("another reason on its own") >= 5  # every set as found


def test_admit_notes_fit_the_width_they_are_given():
    result = api.admit([KAD]).result
    for width in (100, 140):
        table = admit_human(result, width=width).split("\n\n")[0].splitlines()
        assert all(len(line) <= width for line in table), width
    # the summary too, where its words alone would not fit: its mode and solver checks go on the next line
    narrow = admit_human(result, width=50).splitlines()
    at = next(i for i, line in enumerate(narrow) if " pending workloads admitted" in line)
    assert len(narrow[at]) <= 50 and narrow[at + 1].startswith("(ordered mode, ")
    assert "kadmit why team-vision/llm-pretrain" in admit_human(result)  # no width: every word


def test_sets_that_differ_only_by_which_admitted_workloads_hold_the_quota_are_one_line():
    """Kueue's perf shape: each minimal set names some of the many workloads holding the cohort's cpu;
    they are one set, the holders one line with how many, how much and the largest named."""
    from states import kueue_perf_state

    r = why(kueue_perf_state(3, 1, 120), "ns-0000/medium-000000")
    assert not r.admitted and len(r.blame_groups) > 1
    sets = r.blame_sets
    assert len(sets) == 1 and sets[0].sets == len(r.blame_groups) and sets[0].holders_vary
    held = [line for line in sets[0].lines if "admitted workloads" in line.text]
    assert len(held) == 1 and len(sets[0].lines) == 4  # three queues' quotas and the holders
    counts = sorted({sum(1 for o in g if o.kind == "usage") for g in r.blame_groups})
    union = {o.id for g in r.blame_groups for o in g if o.kind == "usage"}
    lo, hi = counts[0], counts[-1]
    assert held[0].text.startswith(f"{lo} admitted" if lo == hi else f"{lo}–{hi} admitted")
    assert f"(of {len(union)} the sets name)" in held[0].text and sorted(held[0].ids) == sorted(union)
    assert held[0].text.endswith(f"and {len(union) - 3} more")


STRICT = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""
WL = """\
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-01-01T00:0{at}:00Z"}}
spec:
  queueName: q
  podSets: [{{name: main, count: {n}, template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""


def test_behind_a_strict_fifo_head_the_first_line_gives_the_heads_numbers(tmp_path):
    (tmp_path / "s.yaml").write_text(STRICT + WL.format(name="head", at=0, n=8) + WL.format(name="small", at=1, n=1))
    out = CliRunner().invoke(cli, ["why", "default/small", str(tmp_path), "--fixes", "0"])
    assert out.exit_code == 1
    first = out.output.splitlines()[2]
    assert first == ("   = waits behind the StrictFIFO head `default/head`: it needs 8 cpu at once (8 pods × 1); cq can "
                     "reach at most 4 in f (its own quota)")
    d = api.why("default/small", [str(tmp_path)]).result.standing.as_dict()
    assert d["waiting_behind"] == "default/head" and d["head"]["needs"] == {"cpu": "8"}


def test_a_gang_beyond_what_its_topology_aware_flavors_nodes_hold_says_so():
    """256 GPUs at once where the nodes of h100 and a100 (topology-aware) hold 64 and 32: no quota
    change alone admits it, and the first line says so with the numbers; without nodes nothing is said."""
    st = why(workspace.load([KAD]).model, "team-vision/llm-pretrain").standing
    assert st.beyond_nodes and dict(st.nodes_hold) == {"h100": 64_000, "a100": 32_000}
    assert st.as_dict()["nodes_hold"] == {"h100": "64", "a100": "32"}
    line = CliRunner().invoke(cli, ["why", "team-vision/llm-pretrain", KAD, "--fixes", "0"]).output.splitlines()[2]
    assert line.endswith("; the nodes of its flavors hold 64 in h100 and 32 in a100: no change of quota alone "
                         "admits it")
    from states import kueue_perf_state

    far = why(kueue_perf_state(3, 1, 120), "ns-0000/medium-000000").standing
    assert far.nodes_hold == [] and not far.beyond_nodes
