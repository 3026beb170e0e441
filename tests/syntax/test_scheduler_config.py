"""`.kad`: the `scheduler` declaration (its `feature_gates`), `admitted_at` / `evicted` of workloads, a node-affinity
term's `match_fields`, a toleration's map form; lowering and fmt."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.model import FAIR_SHARING_STRATEGIES, SchedulerConfig
from kadmit.syntax import format_text, parse_text

from .strategies import sep, statement

FINAL, INITIAL = FAIR_SHARING_STRATEGIES


def parse(text: str):
    diags = Diagnostics()
    return parse_text(text, "s.kad", diags), diags


def clean(text: str):
    frag, diags = parse(text)
    assert not diags.items, [f"{d.code} {d.span}: {d.message}" for d in diags]
    return frag


def found(diags: Diagnostics) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in diags.sorted()]


def fmt(text: str) -> str:
    out, diags = format_text(text, "s.kad")
    assert out is not None, [d.message for d in diags]
    return out


# --- lowering -------------------------------------------------------------------------------------

def test_scheduler_lowers_to_kueues_names_with_spans() -> None:
    frag = clean("""scheduler {
  fair_sharing = true
  preemption_strategies = [less_than_or_equal_to_final_share, "less_than_initial_share"]
}
""")
    (cfg,) = frag.scheduler_configs
    assert (cfg.fair_sharing, cfg.preemption_strategies) == (True, (FINAL, INITIAL))
    assert cfg.span.line == 1 and cfg.field_span("fair_sharing").line == 2
    assert [cfg.field_span(f"preemption_strategies.{i}").column for i in (0, 1)] == [28, 63]


def test_kueue_spelling_and_unknown_names_are_kept_for_the_validator() -> None:
    (cfg,) = clean("scheduler { preemption_strategies = [LessThanInitialShare, less_than_final] }").scheduler_configs
    assert cfg == SchedulerConfig(preemption_strategies=(INITIAL, "less_than_final"))
    assert cfg.field_span("preemption_strategies.1").column == 60


def test_empty_scheduler_is_kueues_default() -> None:
    assert clean("scheduler {}").scheduler_configs == [SchedulerConfig()]
    assert clean("flavor f {}").scheduler_configs == []


def test_scheduler_mistakes_are_located() -> None:
    _, diags = parse("""scheduler {
  fair_sharing = yes
  preemption_strategies = less_than_initial_share
  fairsharing = true
  fair_sharing = false
  preemption_strategies = [{ a = 1 }]
}
""")
    assert found(diags) == [("KAD107", 2, 18), ("KAD107", 3, 27), ("KAD105", 4, 3), ("KAD106", 5, 3),
                            ("KAD106", 6, 3)]
    assert diags.sorted()[2].help == "did you mean `fair_sharing`?"


def test_feature_gates_lower_as_kueues_manager_sets_them() -> None:
    """`feature_gates` is the Configuration's `featureGates`: AllAlpha/AllBeta fill in the gates not named
    (featuregates.resolve), and the model keeps the gates away from Kueue v0.17.0's defaults."""
    frag, diags = parse("scheduler {\n  feature_gates = { PartialAdmission = false, ReclaimablePods = true,\n"
                        "    AllBeta = false, PrioritySortingWithinCohort = true }\n}")
    (cfg,) = frag.scheduler_configs
    assert found(diags) == [("KAD161", 3, 15)]  # AllBeta turns off run-time gates too (TASFailedNodeReplacement)
    assert cfg.feature_gates["PartialAdmission"] is False and "ReclaimablePods" not in cfg.feature_gates
    assert cfg.feature_gates["TopologyAwareScheduling"] is False  # beta, off through AllBeta
    assert "PrioritySortingWithinCohort" not in cfg.feature_gates  # named: AllBeta leaves it
    assert cfg.field_span("feature_gates.PartialAdmission").column == 40


def test_feature_gates_kueue_refuses_are_refused_in_its_words() -> None:
    frag, diags = parse("scheduler {\n  feature_gates = { KueueDRAIntegration = true, LendingLimit = false,\n"
                        "    TLSOptions = \"x\", SchedulerLongRequeueInterval = true, PartialAdmission = false }\n}")
    assert found(diags) == [("KAD157", 2, 21), ("KAD157", 2, 49), ("KAD107", 3, 18), ("KAD161", 3, 54)]
    words = [d.message for d in diags.sorted()]
    assert words[0] == "Kueue refuses to start with this Configuration: `unrecognized feature gate: KueueDRAIntegration`"
    assert words[1].endswith("`cannot set feature gate LendingLimit to false, feature is locked to true`")
    assert words[3].startswith("`feature_gates.SchedulerLongRequeueInterval` of the scheduler is not modelled: it "
                               "changes what Kueue does at run time")
    assert frag.scheduler_configs[0].feature_gates == {"PartialAdmission": False, "SchedulerLongRequeueInterval": True}


def test_scheduler_takes_no_name_and_recovery_resyncs_at_it() -> None:
    frag, diags = parse("scheduler main {}\nflavor f {\nscheduler { fair_sharing = true }\n")
    assert [d.code for d in diags.sorted()][:1] == ["KAD100"]
    assert frag.scheduler_configs == [SchedulerConfig(fair_sharing=True)]


def test_scheduler_is_a_name_where_no_statement_fits() -> None:
    frag = clean("""cohort scheduler {}
cluster_queue q { cohort = scheduler }
require r: flavor == scheduler
local_queue ns/scheduler -> q
""")
    assert frag.cohorts[0].name == "scheduler" and frag.cluster_queues[0].cohort == "scheduler"
    assert frag.local_queues[0].name == "scheduler" and frag.scheduler_configs == []


WORKLOAD = """workload ns/w {
  queue   = q
  evicted = true
  pod_group main { requests = { cpu = 1 } }
  admitted {
    cluster_queue = cq
    admitted_at   = "2026-11-20T09:00:00Z"
    pod_group main { flavor = f }
  }
}
"""


def test_admitted_at_and_evicted() -> None:
    (wl,) = clean(WORKLOAD).workloads
    assert wl.evicted is True and wl.field_span("evicted").line == 3
    assert wl.admission.admitted_at == datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    assert wl.admission.field_span("admitted_at").line == 7
    (plain,) = clean(WORKLOAD.replace("  evicted = true\n", "").replace(
        '    admitted_at   = "2026-11-20T09:00:00Z"\n', "")).workloads
    assert plain.evicted is False and plain.admission.admitted_at is None


def test_admitted_at_mistakes() -> None:
    _, diags = parse(WORKLOAD.replace('"2026-11-20T09:00:00Z"', '"tuesday"').replace("evicted = true", 'evicted = "y"'))
    assert found(diags) == [("KAD107", 3, 13), ("KAD112", 7, 21)]
    _, diags = parse(WORKLOAD.replace("  evicted = true\n", '  admitted_at = "2026-11-20T09:00:00Z"\n'))
    assert found(diags) == [("KAD105", 3, 3)]


# --- fmt ------------------------------------------------------------------------------------------

def test_fmt_canonical_layout() -> None:
    src = """scheduler { fair_sharing = true preemption_strategies = [less_than_or_equal_to_final_share,
  less_than_initial_share]   # why
}
workload ns/w { queue = q  evicted = true  pod_group main { requests = { cpu = 1 } }
  admitted { cluster_queue = cq admitted_at = "2026-11-20T09:00:00Z" pod_group main { flavor = f } } }
scheduler {}
"""
    out = fmt(src)
    assert out == """scheduler {
  fair_sharing          = true
  preemption_strategies = [less_than_or_equal_to_final_share, less_than_initial_share]  # why
}

workload ns/w {
  queue   = q
  evicted = true
  pod_group main {
    requests = { cpu = 1 }
  }
  admitted {
    cluster_queue = cq
    admitted_at   = "2026-11-20T09:00:00Z"
    pod_group main {
      flavor = f
    }
  }
}

scheduler {}
"""
    assert fmt(out) == out
    assert fmt(fmt(WORKLOAD)) == fmt(WORKLOAD)


SCHEDULER_FIELDS = st.sampled_from([
    "fair_sharing = true", "fair_sharing = false",
    "preemption_strategies = [less_than_or_equal_to_final_share]",
    "preemption_strategies = [LessThanInitialShare, less_than_or_equal_to_final_share,]",
    "preemption_strategies = []",
])


@st.composite
def scheduler_stmt(draw) -> str:
    fields = draw(st.lists(SCHEDULER_FIELDS, max_size=2, unique_by=lambda f: f.split(" ")[0]))
    s = draw(sep())
    return "scheduler {" + s + s.join(fields) + draw(sep()) + "}"


@st.composite
def policy_with_scheduler(draw) -> str:
    """A generated policy (as `strategies.policy` writes one) with a `scheduler` statement among
    its statements."""
    stmts = draw(st.lists(statement(), max_size=5))
    stmts.insert(draw(st.integers(0, len(stmts))), draw(scheduler_stmt()))
    return "".join(s + draw(sep()) + "\n" for s in stmts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy_with_scheduler())
def test_generated_policies_with_a_scheduler_round_trip(text: str) -> None:
    before, diags = parse(text)
    assert not diags.has_errors, [f"{d.code} {d.span}: {d.message}" for d in diags]
    assert len(before.scheduler_configs) == 1
    out = fmt(text)
    assert parse(out)[0] == before
    assert fmt(out) == out


def test_match_fields_lower_to_a_terms_match_fields() -> None:
    """A term's `match_fields { … }` is Kueue's `matchFields` (NodeSelectorTerm.match_fields), written as the
    term's own matches; one block a term."""
    frag, diags = parse("""workload ns/w {
  queue = q
  pod_group main {
    affinity {
      term {
        match "zone" exists
        match_fields { match "metadata.name" in ["n1"]  match "metadata.name" not_in ["n2", "n3"] }
        match_fields { match "metadata.name" in ["n4"] }
      }
      term { match_fields { match "metadata.name" exists  labels = {} } }
    }
  }
}
""")
    assert found(diags) == [("KAD106", 8, 9), ("KAD105", 10, 59)]
    first, second = frag.workloads[0].pod_sets[0].node_affinity
    assert [(r.key, r.operator, r.values) for r in first.match_fields] == [
        ("metadata.name", "In", ("n1",)), ("metadata.name", "NotIn", ("n2", "n3"))]
    assert [r.operator for r in first.match_expressions] == ["Exists"]
    assert [r.operator for r in second.match_fields] == ["Exists"] and not second.match_expressions
    assert not first.matches({"zone": "a"}, "n9")  # two values: Kueue cannot parse it, the term matches no node
    assert not second.matches({}, "n1")
    assert fmt('workload ns/w { queue = q  pod_group main { affinity { term { match_fields { '
               'match "metadata.name" in ["n1"] } } } } }\n').count("match_fields {\n") == 1


def test_tolerations_the_string_form_cannot_say_are_maps_of_kubernetes_fields() -> None:
    """An `Exists` with a value and an `Equal` without a key (it tolerates every taint of its value) as
    `{ key, operator, value, effect }`; `equal` by default, as Kubernetes defaults it."""
    frag, diags = parse("""flavor f {
  tolerations = [{ key = "", value = "v", effect = NoSchedule }, { key = "k", operator = exists, value = "x" },
    { key = "k", operator = lt }, { kye = "k" }, { effect = NoWhere }]
}
""")
    assert found(diags) == [("KAD110", 3, 29), ("KAD105", 3, 37), ("KAD111", 3, 61)]
    a, b = frag.flavors[0].tolerations
    assert (a.key, a.operator, a.value, a.effect) == ("", "Equal", "v", "NoSchedule")
    assert (b.key, b.operator, b.value, b.effect) == ("k", "Exists", "x", "")
    assert fmt('flavor f { tolerations = [{ key = "", operator = equal, value = "v" }] }\n') == \
        'flavor f {\n  tolerations = [{ key = "", operator = equal, value = "v" }]\n}\n'
