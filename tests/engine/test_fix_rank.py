"""Which fix `why` offers first (issue 19, item 4; `explain.rank`): grouped by who acts, within a group
by side effects as a person sees them (evictions weigh), then the relative size of the change, both by
order of magnitude, the workload's own queue before a lender's at equal classes. The tables here are
built from proven fixes' shapes; `test_fixes_chosen.py` and the cases below prove them end to end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from kadmit import api
from kadmit.engine.explain.knobs import Knob
from kadmit.engine.explain.prove import Change, Proven
from kadmit.engine.explain.rank import at_best, disruption, magnitude, ordered, preference
from kadmit.engine.explain.replay import State, Effect
from kadmit.source import Span

sys.path.insert(0, str(Path(__file__).parent))
from test_fixes_proven import check_fixes  # noqa: E402

AT = Span("c.yaml", 1, 1)
PENDING, ADMITTED, EVICTED = State(False), State(True, "q", (("main", 1, (("cpu", "f"),)),)), State(False, preempted_by="x")


def quota(queue: str, old: int, new: int, cohort: bool = False) -> Change:
    nid = f"cohort:{queue}" if cohort else f"cq:{queue}"
    return Change(Knob("quota", AT, str(old), "nominalQuota", f"ClusterQueue `{queue}`", old, "cpu", quota_of=nid), new)


def lend(queue: str, old: int, new: int) -> Change:
    return Change(Knob("quota", AT, str(old), "lendingLimit", f"ClusterQueue `{queue}`", old, "cpu", quota_of=f"cq:{queue}"),
                  new)


def count(old: int, new: int) -> Change:
    return Change(Knob("count", AT, str(old), "count", "Workload `ns/w`", old, workload="ns/w"), new)


def priority(old: str, new: str) -> Change:
    return Change(Knob("priority", AT, old, "priorityClassName", "Workload `ns/w`", old, workload="ns/w"), new)


def fix(*changes: Change, admitted: int = 0, evicted: int = 0) -> Proven:
    effects = ([Effect(f"ns/a{i:04d}", PENDING, ADMITTED) for i in range(admitted)]
               + [Effect(f"ns/e{i:04d}", ADMITTED, EVICTED) for i in range(evicted)])
    return Proven("ns/w", list(changes), ADMITTED, effects)


@pytest.mark.parametrize("n,cls", [(0, -1), (1, 0), (2, 1), (3, 1), (4, 2), (10, 2), (11, 3), (30, 3), (31, 4),
                                   (100, 4), (101, 5), (300, 5), (301, 6), (1000, 6), (1001, 7), (1.5, 1), (10.04, 3)])
def test_magnitude_steps_one_three_ten(n, cls):
    assert magnitude(n) == cls


def test_an_eviction_weighs_more_than_an_admission():
    assert disruption(fix(quota("a", 4, 5), admitted=2, evicted=1)) == 2 + 1 * 3


def test_a_lenders_times_46_raise_harming_nobody_comes_after_an_own_times_10_raise_that_evicts_eight():
    # team-04/train-01071 and team-00/train-00930 of gpu_state(2000): the lender's raise admitted 583
    own = fix(quota("mine", 48, 482), admitted=157, evicted=8)
    lender = fix(quota("other", 48, 2233), admitted=583)
    assert ordered([lender, own], "mine") == [own, lender]


def test_at_equal_classes_the_own_queue_comes_before_a_lender_with_a_smaller_relative_change():
    own = fix(quota("mine", 4, 8))  # ×2
    lender = fix(lend("other", 20, 24))  # ×1.2: smaller, same class
    assert ordered([lender, own], "mine") == [own, lender]
    cohort = fix(quota("c", 20, 24, cohort=True))
    assert ordered([cohort, own], "mine") == [own, cohort]


def test_a_change_an_order_of_magnitude_smaller_comes_first_even_from_a_lender():
    own = fix(quota("mine", 2, 40))  # ×20
    lender = fix(lend("other", 20, 38))  # ×1.9
    assert ordered([own, lender], "mine") == [lender, own]


def test_side_effects_before_size():
    small = fix(quota("mine", 10, 11), admitted=40)  # ×1.1, 40 side effects
    large = fix(quota("mine", 10, 100), admitted=2)  # ×10, 2 side effects
    assert ordered([small, large], "mine") == [large, small]


def test_the_owners_group_first_where_its_best_fix_changes_the_cluster_less():
    raise_ = fix(quota("mine", 48, 538), admitted=130, evicted=13)
    bump = fix(priority("low", "high"), admitted=37, evicted=9)
    assert [p.actor for p in ordered([raise_, bump], "mine")] == ["owner", "platform"]
    # and the platform's first where its best changes less
    quiet = fix(quota("mine", 48, 60), admitted=3)
    assert [p.actor for p in ordered([bump, quiet], "mine")] == ["platform", "owner"]
    # a quota raise ×1.25 before a priority class (a change that is no number counts as doubling one)
    assert [p.actor for p in ordered([fix(priority("low", "high")), fix(quota("mine", 48, 60))], "mine")] == [
        "platform", "owner"]
    # ranked equal: the owner, who can act alone, before the platform team
    same = fix(quota("mine", 48, 96))
    own_spec = fix(priority("low", "high"))
    assert [p.actor for p in ordered([same, own_spec], "mine")] == ["owner", "platform"]


def test_shrinking_by_half_or_more_comes_after_a_policy_change_of_equal_effect():
    shrink = fix(count(10, 2))  # keeps a fifth
    raise_ = fix(quota("mine", 2, 10), admitted=1)  # ×5 with a side effect: more than the shrink's none
    assert magnitude(disruption(raise_)) == 0 and magnitude(disruption(shrink)) == -1
    assert ordered([shrink, raise_], "mine")[0] is shrink  # the raise changes more of the cluster
    quiet = fix(quota("mine", 2, 10))
    assert ordered([shrink, quiet], "mine") == [quiet, shrink]
    half = fix(count(10, 5))  # keeps half: demoted too, though ×2 is a smaller class than the raise's ×5
    assert ordered([quiet, half], "mine") == [quiet, half]
    most = fix(count(10, 6))  # keeps more than half: not demoted, the smaller class first
    assert ordered([quiet, most], "mine") == [most, quiet]
    # a quota raised 3 → 4 before the job halved; a gang's minimum halved (2 → 1) after its queue's empty
    # quota given one cpu (found on a generated cluster: the halving came first)
    assert ordered([fix(count(2, 1)), fix(quota("mine", 3, 4))], "mine")[0].actor == "platform"
    minimum = Change(Knob("min_count", AT, "2", "minCount", "Workload `ns/w`", 2, workload="ns/w"), 1)
    assert ordered([fix(minimum), fix(quota("mine", 0, 1000))], "mine")[0].actor == "platform"


def test_the_order_is_a_total_one():
    a, b = fix(quota("mine", 4, 6)), fix(quota("mine", 4, 6), admitted=0)
    assert preference(a, "mine") == preference(b, "mine")  # the same fix twice: equal
    c = fix(quota("mine", 4, 7))
    assert preference(a, "mine") < preference(c, "mine")


HEAD = """\
flavor f { node_labels = { model = "f" } }
namespace ns {
  labels = { team = "a" }
}
"""


def _queue(name: str, cpu: str, cohort: str) -> str:
    return (f"cluster_queue {name} {{\n  cohort = {cohort}\n  resources cpu {{\n    flavor f {{ cpu = {cpu} }}\n  }}\n}}\n"
            f"local_queue ns/{name} -> {name}\n")


def test_own_raise_and_a_lenders_raise_both_admit_the_own_queues_is_offered_first(tmp_path):
    # team-a can reach 4 own + 20 lent by team-b = 24; the gang needs 28: team-a's quota ×2 (4 → 8) or
    # team-b's lending limit ×1.2 (20 → 24), both the smallest class of change, neither moves anyone
    text = (HEAD + _queue("team-a", "4", "c") + _queue("team-b", "40 lend 20", "c") + "cohort c {}\n"
            + "workload ns/big {\n  queue = team-a\n  created = \"2026-11-20T09:00:00Z\"\n"
              "  pod_group main {\n    count = 28\n    requests = { cpu = 1 }\n  }\n}\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.kad").write_text(text)
    r = api.why("ns/big", [str(tmp_path / "in")], fixes=5).result
    assert r is not None and not r.admitted
    platform = [f for f in r.fixes if f.actor == "platform"]
    assert [[(c.knob.quota_of, c.edit.old, c.edit.new) for c in f.changes] for f in platform][:2] == [
        [("cq:team-a", "4", "8")], [("cq:team-b", "20", "24")]]
    assert all(not f.effects for f in platform[:2])
    assert check_fixes(tmp_path, text, "ns/big") >= 2

_fixes = st.lists(st.tuples(st.sampled_from(["quota-own", "quota-other", "lend", "count", "priority"]),
                            st.integers(1, 200), st.integers(1, 3000), st.integers(0, 400), st.integers(0, 40)),
                  min_size=1, max_size=6, unique_by=lambda t: (t[0], t[1], t[2]))


def _made(kind: str, old: int, new: int, admitted: int, evicted: int) -> Proven:
    if new == old:
        new = old + 1
    change = {"quota-own": lambda: quota("mine", old, new), "quota-other": lambda: quota("other", old, new),
              "lend": lambda: lend("other", old, new), "count": lambda: count(max(old, new), min(old, new)),
              "priority": lambda: priority(f"p{old}", f"p{new}")}[kind]()
    return fix(change, admitted=admitted, evicted=evicted)


@settings(max_examples=200, deadline=None)
@given(_fixes, st.randoms(use_true_random=False))
def test_the_order_does_not_depend_on_the_order_fixes_were_found_in(shapes, rnd):
    found = [_made(*s) for s in shapes]
    shuffled = list(found)
    rnd.shuffle(shuffled)
    assert [id(p) for p in ordered(found, "mine")] == [id(p) for p in ordered(shuffled, "mine")]


@settings(max_examples=200, deadline=None)
@given(_fixes.map(lambda s: s[0]), st.integers(0, 50), st.integers(0, 50), st.lists(st.integers(-1, 8), max_size=3))
def test_more_side_effects_never_rank_a_fix_better(shape, more_admitted, more_evicted, policy):
    # what proving may stop early by: a candidate proven with side effects ranks no better than with none
    kind, old, new, admitted, evicted = shape
    fewer = _made(kind, old, new, admitted, evicted)
    more = _made(kind, old, new, admitted + more_admitted, evicted + more_evicted)
    assert preference(fewer, "mine", policy) <= preference(more, "mine", policy)
    assert preference(_made(kind, old, new, 0, 0), "mine", policy) <= preference(fewer, "mine", policy)
    assert at_best(fewer.changes, "ns/w", "mine") <= preference(fewer, "mine", policy)
