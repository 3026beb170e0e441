"""Table tests: one small model per case, the code it must produce, and which object it names."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics, Severity
from kadmit.model import (BorrowWithinCohort, CheckRule, CheckState, ClusterQueue, FlavorQuotas, NodeSelectorTerm, Preemption, Requirement,
                          ResourceGroup, ResourceQuota, SchedulerConfig, Taint, TopologyRequest)
from kadmit.validate import validate

from kadmit.model import Node

from .builders import (FairSharing, GPU, LabelSelector, LocalQueue, Namespace, PriorityClass, Topology, admitted,
                       assign, base_objects, cohort, cq, flavor, fq, model, pod_set, span, with_spans, workload)


def run(*objects, **kw) -> Diagnostics:
    d = Diagnostics()
    validate(model(*objects, **kw), d)
    return d


def found(d: Diagnostics) -> list[tuple[str, str]]:
    return [(x.code, x.message) for x in d.sorted()]


def base(**replace):
    """The clean base objects, with some replaced by type name (`cq=...`) or added (`extra=[...]`)."""
    objs = base_objects()
    names = {"flavor": 0, "cq": 1, "ns": 2, "lq": 3, "pc": 4, "wl": 5}
    for key, value in replace.items():
        if key == "extra":
            continue
        objs[names[key]] = value
    return [o for o in objs if o is not None] + list(replace.get("extra", []))


def team_a(**kw):
    return cq("team-a", "research", **kw).flavor("h100", cpu=64, memory=256, gpu=8)


TOPO = Topology(name="dc", levels=("cloud.example.com/block", "cloud.example.com/rack", "kubernetes.io/hostname"))

CASES = [
    # references
    ("unknown flavor", base(cq=cq("team-a", "research").flavor("h10", cpu=1)), "KAD200", "`h10`"),
    ("unknown flavor in cohort", base(extra=[cohort("research").flavor("a100", cpu=1)]), "KAD200", "`a100`"),
    ("cluster queue with a missing admission check", base(cq=team_a(admission_checks=(CheckRule(name="prov"),))),
     "KAD299", "references missing AdmissionCheck(s): prov"),
    ("admission check on a flavor the queue doesn't have", base(cq=team_a(admission_checks=(
        CheckRule(name="prov", on_flavors=("h100", "a100")),))), "KAD273", "on flavor `a100`"),
    ("state of a check the queue doesn't require", base(cq=team_a(admission_checks=(CheckRule(name="prov"),)),
     wl=workload("job", "team-a", "training").model_copy(update={"check_states": (CheckState(name="porv"),)})),
     "KAD274", "admission check `porv`"),
    ("lq to missing cq", base(lq=LocalQueue(namespace="team-a", name="training", cluster_queue="team-b")),
     "KAD201", "`team-b`"),
    ("workload to missing lq", base(wl=workload("job", "team-a", "trainin")), "KAD202", "`trainin`"),
    ("unknown priority class", base(wl=workload("job", priority_class="reserch")), "KAD203", "`reserch`"),
    ("unknown priority class, explicit value", base(wl=workload("job", priority_class="x", priority=5)),
     "KAD204", "`x`"),
    ("flavor to missing topology", base(flavor=flavor("h100", topology="dcc"), extra=[TOPO]), "KAD205", "`dcc`"),
    ("admitted to missing cq", base(wl=workload("job", admission=admitted("team-z", assign("main", cpu="h100")))),
     "KAD206", "`team-z`"),
    ("admitted with unknown flavor", base(wl=workload("job", admission=admitted("team-a", assign("main", cpu="a100")))),
     "KAD207", "`a100`"),
    ("admitted with flavor the cq lacks", base(
        extra=[flavor("a100")],
        wl=workload("job", admission=admitted("team-a", assign("main", cpu="a100")))), "KAD207", "no quota"),
    ("assignment for missing pod set",
     base(wl=workload("job", admission=admitted("team-a", assign("mian", cpu="h100")))),
     "KAD208", "`mian`"),
    ("admitted without a flavor",
     base(wl=workload("job", "team-a", "training", pod_set(cpu=1), admission=admitted("team-a", assign("main")))),
     "KAD296", "no flavor for `cpu`"),
    ("admitted count above count",
     base(wl=workload("job", admission=admitted("team-a", assign("main", 3, cpu="h100")))),
     "KAD212", "count 3"),
    ("unknown topology level", base(
        flavor=flavor("h100", topology="dc"), extra=[TOPO],
        wl=workload("job", "team-a", "training",
                    pod_set("main").model_copy(update={"topology": TopologyRequest(mode="required", level="rak")}))),
     "KAD209", "`rak`"),
    ("topology without TAS flavor", base(
        wl=workload("job", "team-a", "training",
                    pod_set("main").model_copy(update={"topology": TopologyRequest(mode="required", level="rack")}))),
     "KAD210", "no flavor"),
    ("cohort parent typo", base(extra=[cohort("research", "orgg"), cohort("org")]), "KAD211", "`orgg`"),
    # duplicates and cycles
    ("duplicate cq", base(extra=[team_a()]), "KAD220", "cluster queue `team-a`"),
    ("duplicate flavor", base(extra=[flavor("h100")]), "KAD220", "flavor `h100`"),
    ("duplicate local queue", base(extra=[LocalQueue(namespace="team-a", name="training", cluster_queue="team-a")]),
     "KAD220", "local queue `team-a/training`"),
    ("duplicate workload", base(extra=[workload("job", priority_class="research")]), "KAD220", "workload `team-a/job`"),
    ("duplicate namespace", base(extra=[Namespace(name="team-a")]), "KAD220", "namespace `team-a`"),
    ("duplicate priority class", base(extra=[PriorityClass(name="research", value=5)]), "KAD220", "`research`"),
    ("duplicate topology", base(extra=[TOPO, TOPO]), "KAD220", "topology `dc`"),
    ("cohort cycle", base(extra=[cohort("research", "org"), cohort("org", "research")]), "KAD221",
     "`org` -> `research` -> `org`"),
    ("cohort self parent", base(extra=[cohort("research", "research")]), "KAD222", "`research`"),
    # quotas
    ("negative nominal", base(cq=cq("team-a", "research").flavor("h100", cpu=-1)), "KAD225", "nominal quota"),
    ("lending above nominal", base(cq=cq("team-a", "research").flavor("h100", cpu=4, lending={"cpu": 5})),
     "KAD226", "above its nominal"),
    ("borrowing limit without cohort", base(cq=cq("team-a").flavor("h100", cpu=4, borrowing={"cpu": 1})),
     "KAD227", "has no cohort"),
    ("lending limit on root cohort", base(extra=[cohort("research").flavor("h100", cpu=4, lending={"cpu": 1})]),
     "KAD227", "has no parent"),
    ("resources out of order", base(cq=cq("team-a", "research").group(
        ["cpu", "memory"], fq("h100", memory=1, cpu=1))), "KAD228", "[memory, cpu]"),
    ("resource missing from flavor", base(cq=cq("team-a", "research").group(
        ["cpu", "memory"], fq("h100", cpu=1))), "KAD228", "[cpu]"),
    ("resource in two groups", base(extra=[flavor("a100")], cq=cq("team-a", "research").group(
        ["cpu"], fq("h100", cpu=1)).group(["cpu"], fq("a100", cpu=1))), "KAD229", "`cpu` twice"),
    ("flavor in two groups", base(cq=cq("team-a", "research").group(
        ["cpu"], fq("h100", cpu=1)).group(["memory"], fq("h100", memory=1))), "KAD230", "`h100` twice"),
    ("too many groups", base(cq=(_many := cq("team-a", "research"))), "KAD231", "17 resource groups"),
    ("empty group", base(cq=cq("team-a", "research").group([])), "KAD231", "0 flavors"),
    ("negative weight", base(cq=team_a(fair_sharing=FairSharing(weight=-1000))), "KAD232", "negative"),
    ("borrow within cohort without reclaim", base(cq=team_a(preemption=Preemption(
        borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority")))), "KAD233", "reclaimWithinCohort"),
    ("fractional gpu quota", base(cq=cq("team-a", "research").flavor("h100", cpu=64, memory=256, gpu=1.5)),
     "KAD234", "1500m"),
    # topologies and flavors
    ("duplicate level", base(extra=[Topology(name="dc", levels=("rack", "rack"))]), "KAD240", "`rack` twice"),
    ("hostname not last", base(extra=[Topology(name="dc", levels=("kubernetes.io/hostname", "rack"))]),
     "KAD241", "not the last"),
    ("too many levels", base(extra=[Topology(name="dc", levels=tuple(f"l{i}" for i in range(17)))]),
     "KAD242", "17 levels"),
    ("no levels", base(extra=[Topology(name="dc", levels=())]), "KAD242", "0 levels"),
    ("duplicate taint", base(flavor=flavor("h100", node_taints=(
        Taint(key="gpu", effect="NoSchedule"), Taint(key="gpu", value="x", effect="NoSchedule")))), "KAD243", "`gpu`"),
    ("nodes sharing a hostname", base(extra=[
        Node(name="n0", labels={"kubernetes.io/hostname": "h"}),
        Node(name="n1", labels={"kubernetes.io/hostname": "h"}, taints=(Taint(key="gpu", effect="NoSchedule"),))]),
     "KAD245", "node `n1` has the `kubernetes.io/hostname` value `h` of node `n0`"),
    ("selector In without values", base(cq=team_a(selector=LabelSelector(
        match_expressions=(Requirement(key="team", operator="In"),)))), "KAD244", "needs at least one value"),
    ("selector with Gt", base(cq=team_a(selector=LabelSelector(
        match_expressions=(Requirement(key="n", operator="Gt", values=("1",)),)))), "KAD244", "not a label selector"),
    ("affinity Gt non-integer", base(wl=workload("job", "team-a", "training", pod_set("main").model_copy(update={
        "node_affinity": (NodeSelectorTerm(match_expressions=(
            Requirement(key="n", operator="Gt", values=("x",)),)),)}))),
     "KAD246", "`nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
               "operators, the value must be an integer`"),
    # workloads
    ("min_count above count", base(wl=workload("job", "team-a", "training", pod_set("main", 2, min_count=3))),
     "KAD250", "min_count 3"),
    ("negative count", base(wl=workload("job", "team-a", "training", pod_set("main", -1))), "KAD251", "negative"),
    ("zero min_count", base(wl=workload("job", "team-a", "training", pod_set("main", 2, min_count=0))),
     "KAD251", "min_count 0"),
    ("duplicate pod set", base(wl=workload("job", "team-a", "training", pod_set("w"), pod_set("w"))), "KAD252", "`w`"),
    ("nine pod sets", base(wl=workload("job", "team-a", "training", *(pod_set(f"p{i}") for i in range(9)))),
     "KAD253", "9 pod sets"),
    ("two min_counts", base(wl=workload("job", "team-a", "training", pod_set("a", 2, min_count=1),
                                        pod_set("b", 2, min_count=1))), "KAD254", "2 pod sets"),
    ("negative request", base(wl=workload("job", "team-a", "training", pod_set("main", cpu=-1))), "KAD255", "`cpu`"),
    ("fractional gpu request", base(wl=workload("job", "team-a", "training", pod_set("main", gpu=0.5))),
     "KAD256", "500m"),
    ("pods requested", base(wl=workload("job", "team-a", "training", pod_set("main", pods=1))), "KAD257", "`pods`"),
    ("jobs tied in one second, their Workloads Kueue's to make",
     base(wl=workload("b", kueue_name="job-b-1"), extra=[workload("a", kueue_name="job-a-1")]),
     "KAD260", "2 pending workloads of ClusterQueue `team-a` tie on priority 0"),
    ("claim template not in the input",
     base(wl=workload("job", "team-a", "training", pod_set("main").model_copy(update={"claim_templates": ("gpus",)})),
          extra=[SchedulerConfig(feature_gates={"DynamicResourceAllocation": True})]),
     "KAD297", "`team-a/gpus`"),
    ("claims with the DynamicResourceAllocation gate off",
     base(wl=workload("job", "team-a", "training", pod_set("main").model_copy(update={"claim_templates": ("gpus",)}))),
     "KAD298", "`team-a/gpus`"),
    ("empty pod set", base(wl=workload("job", "team-a", "training", pod_set("main", 0))), "KAD258", "count 0"),
    ("pod-set group of three", base(wl=workload("job", "team-a", "training", *(
        pod_set(n, c).model_copy(update={"topology": TopologyRequest(mode="required", level="rack", group="g")})
        for n, c in (("leader", 1), ("workers", 3), ("extra", 2))))),
     "KAD259", "places only `leader` and `workers` (one leader and its workers) and gives `extra` no"),
    ("balanced placement of a preferred pod set of no whole slice",
     base(wl=workload("job", "team-a", "training", pod_set("main", 2).model_copy(update={"topology": TopologyRequest(
         mode="preferred", level="rack", slice_level="host", slice_size=4)})),
          extra=[SchedulerConfig(feature_gates={"TASBalancedPlacement": True})]),
     "KAD263", "count 2 and slice size 4, no whole slice: with TASBalancedPlacement on"),
    ("balanced placement of a preferred pod set partial admission takes below a slice",
     base(wl=workload("job", "team-a", "training", pod_set("main", 3, min_count=2).model_copy(update={
         "topology": TopologyRequest(mode="preferred", level="rack", slice_level="host", slice_size=3)})),
          extra=[SchedulerConfig(feature_gates={"TASBalancedPlacement": True})]),
     "KAD263", "count 3, down to 2 by partial admission, and slice size 3, no whole slice"),
    # priority classes
    ("two defaults", base(extra=[PriorityClass(name="a", value=1, global_default=True),
                                 PriorityClass(name="b", value=2, global_default=True)]), "KAD265", "`a` and `b`"),
    ("pod priority too high", base(extra=[PriorityClass(name="big", value=2_000_000_000, kind="pod")]),
     "KAD266", "above"),
    ("priority outside int32", base(extra=[PriorityClass(name="huge", value=2**31)]), "KAD266", "32-bit"),
    # usage
    ("unused flavor", base(extra=[flavor("a100")]), "KAD270", "`a100`"),
    ("selector matches nothing", base(cq=team_a(selector=LabelSelector(match_labels={"team": "b"}))),
     "KAD271", "`team-a`"),
    ("nil selector", base(cq=team_a(selector=None)), "KAD272", "no namespace selector"),
    # placements of admitted workloads
    ("placement that doesn't add up", base(wl=workload("job", admission=admitted(
        "team-a", assign("main", 2, cpu="h100").model_copy(update={"placement": {"n-1": 1}})))),
     "KAD290", "placed with 1"),
    ("placement on an unknown node", base(
        wl=workload("job", admission=admitted(
            "team-a", assign("main", 2, cpu="h100").model_copy(update={"placement": {"n-9": 2}}))),
        extra=[Node(name="n-1")]), "KAD291", "`n-9`"),
]

for _ in range(16):
    _many.group(["cpu"], fq("h100", cpu=1))
_many.group(["memory", GPU], fq("h100", memory=256, gpu=8))


@pytest.mark.parametrize("objects, code, fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(objects, code, fragment):
    got = found(run(*objects))
    hits = [msg for c, msg in got if c == code]
    assert hits, f"expected {code}, got {got}"
    assert any(fragment in msg for msg in hits), hits


def test_clean_model_has_no_diagnostics():
    assert found(run(*base_objects())) == []


def test_system_pod_priority_class_may_exceed_user_range():
    assert found(run(*base(extra=[PriorityClass(name="system-node-critical", value=2_000_001_000, kind="pod")]))) == []


def test_implicit_cohorts_and_untypo_parents_are_fine():
    d = run(*base(extra=[cohort("research", "platform-root")]))
    assert found(d) == []


def test_workload_to_missing_local_queue_is_a_warning_with_other_namespace_hint():
    d = run(*base(wl=workload("job", "team-b", "training")))
    [diag] = [x for x in d if x.code == "KAD202"]
    assert diag.severity is Severity.WARNING
    assert "team-a/training" in diag.help


def test_an_admitted_workload_without_its_local_queue_is_said_kept_admitted():
    """KAD202's note of an admitted Workload says Kueue keeps it admitted, holding its quota (the oracle case
    admitted-workload-without-local-queue-keeps-its-quota: the other workload waits for that quota), not pending."""
    from pathlib import Path

    from kadmit.workspace import load
    case = Path(__file__).parents[1] / "oracle/features/admitted-workload-without-local-queue-keeps-its-quota.yaml"
    [diag] = [d for d in load([str(case)]).diagnostics if d.code == "KAD202"]
    assert "`team/old`" in diag.message
    assert diag.notes[0].startswith("Kueue keeps the workload admitted, holding its quota")


def test_unknown_flavor_did_you_mean_and_span():
    at = span(7, 5)
    bad = cq("team-a", "research").flavor("h10", cpu=1).build()
    bad = with_spans(bad, resource_groups__0__flavors__0=at)
    [diag] = [x for x in run(*base(cq=bad)) if x.code == "KAD200"]
    assert diag.span is at and diag.help == "did you mean `h100`?"
    assert diag.severity is Severity.ERROR


def test_duplicate_points_at_first_definition():
    first = team_a(at=span(1))
    again = team_a(at=span(9))
    [diag] = [x for x in run(*base(cq=first, extra=[again])) if x.code == "KAD220"]
    assert diag.span.line == 9
    assert [(label.span.line, label.message) for label in diag.labels] == [(1, "first defined here")]


def test_lending_limit_span_is_the_field():
    at = span(12, 20)
    rq = ResourceQuota(resource="cpu", nominal=4000, lending_limit=8000)
    bad = ClusterQueue(name="team-a", cohort="research", namespace_selector=LabelSelector(), resource_groups=(
        ResourceGroup(covered_resources=("cpu",), flavors=(FlavorQuotas(flavor="h100", resources=(rq,)),)),))
    bad = with_spans(bad, resource_groups__0__flavors__0__resources__0__lending_limit=at)
    [diag] = [x for x in run(*base(cq=bad)) if x.code == "KAD226"]
    assert diag.span is at


def test_cohort_cycle_reported_once():
    d = run(*base(extra=[cohort("a", "b"), cohort("b", "c"), cohort("c", "a"), cohort("d", "a")]))
    cycles = [x for x in d if x.code == "KAD221"]
    assert len(cycles) == 1
    assert "`a` -> `b` -> `c` -> `a`" in cycles[0].message


def test_lending_above_nominal_is_allowed_in_cohorts():
    d = run(*base(extra=[cohort("research", "org").flavor("h100", cpu=1, lending={"cpu": 5})]))
    assert [c for c, _ in found(d)] == []


def test_validate_accumulates_every_finding():
    d = run(*base(cq=cq("team-a").flavor("h10", cpu=-1, borrowing={"cpu": 1}),
                  wl=workload("job", "team-a", "training", pod_set("main", 2, min_count=3, gpu=0.5))))
    codes = {c for c, _ in found(d)}
    assert {"KAD200", "KAD225", "KAD227", "KAD250", "KAD256", "KAD270"} <= codes


def test_ambiguous_topology_level():
    topo = Topology(name="dc", levels=("a.example.com/rack", "b.example.com/rack"))
    wl = workload("job", "team-a", "training", pod_set("main").model_copy(
        update={"topology": TopologyRequest(mode="preferred", level="rack")}))
    [diag] = [x for x in run(*base(flavor=flavor("h100", topology="dc"), extra=[topo], wl=wl)) if x.code == "KAD209"]
    assert "ambiguous" in diag.message and "`b.example.com/rack`" in diag.message


def test_duplicate_level_does_not_cascade_to_pod_sets():
    topo = Topology(name="dc", levels=("cloud.example.com/rack", "cloud.example.com/rack"))
    wl = workload("job", "team-a", "training", pod_set("main").model_copy(
        update={"topology": TopologyRequest(mode="required", level="rack")}))
    d = run(*base(flavor=flavor("h100", topology="dc"), extra=[topo], wl=wl))
    assert [c for c, _ in found(d)] == ["KAD240"]


def test_topology_level_resolves_short_names():
    wl = workload("job", "team-a", "training", pod_set("main").model_copy(
        update={"topology": TopologyRequest(mode="required", level="rack")}))
    d = run(*base(flavor=flavor("h100", topology="dc"), extra=[TOPO], wl=wl))
    assert found(d) == []


def test_pod_set_groups_of_one_and_two_are_no_error():
    """Kueue places a group of one pod set as a plain pod set and a group of two as leader and
    workers; KAD259 is for three or more only."""
    def grouped(n, c, g):
        return pod_set(n, c).model_copy(update={"topology": TopologyRequest(mode="required", level="rack", group=g)})
    wl = workload("job", "team-a", "training", grouped("leader", 1, "g"), grouped("workers", 3, "g"),
                  grouped("alone", 2, "h"))
    assert "KAD259" not in {c for c, _ in found(run(*base(wl=wl)))}


def test_a_kad_pod_set_group_of_three_is_blamed_at_its_topology_group(tmp_path):
    """KAD259 in `.kad`: the third pod group's `topology_group` value, the first two labelled."""
    from kadmit import api

    path = tmp_path / "three.kad"
    path.write_text("""workload ns/w {
  queue = q
  pod_group leader { requests = { cpu = 1 }  topology = required rack  topology_group = replica }
  pod_group workers { count = 3  requests = { cpu = 1 }  topology = required rack  topology_group = replica }
  pod_group extra { count = 2  requests = { cpu = 1 }  topology = required rack  topology_group = replica }
}
""")
    [d] = [d for d in api.check([str(path)]).diagnostics if d.code == "KAD259"]
    assert (d.span.line, d.span.column) == (5, 99)
    assert [(lab.span.line, lab.span.column) for lab in d.labels] == [(3, 89), (4, 101)]
    assert "gives `extra` no topology assignment" in d.message


def test_nodes_sharing_a_hostname_note_what_sets_them_apart():
    """KAD245's note names what the nodes differ in (Kueue then filters the shared leaf by whichever it
    reads first), and is left out where they differ in nothing but their names."""
    same = run(*base(extra=[Node(name=n, labels={"kubernetes.io/hostname": "h", "pool": "a"}) for n in ("n1", "n0")]))
    [d] = [x for x in same if x.code == "KAD245"]
    assert "node `n1`" in d.message and d.notes == ()
    apart = run(*base(extra=[Node(name="n0", labels={"kubernetes.io/hostname": "h", "pool": "a"}),
                             Node(name="n1", labels={"kubernetes.io/hostname": "h", "pool": "b"},
                                  taints=(Taint(key="gpu", effect="NoSchedule"),))]))
    [d] = [x for x in apart if x.code == "KAD245"]
    assert d.notes and "`pool`, `taints`" in d.notes[0] and "`n0`'s" in d.notes[0]


def test_queue_ties_name_the_order_and_only_unknown_ones():
    """KAD260: kadmit's order in the note (by the input's UIDs, a Workload Kueue has yet to make taken as the middle
    of the random UIDs it gets: after `held`'s 00000000-…, then names); no warning
    where the input holds every UID, the creation times differ, or the priorities do."""
    from datetime import datetime, timezone

    def job(name, **kw):
        return workload(name, kueue_name=f"job-{name}-1", **kw)
    held = workload("held", uid="00000000-0000-0000-0000-000000000001")
    [diag] = [x for x in run(*base(wl=job("b"), extra=[job("a"), held])) if x.code == "KAD260"]
    assert diag.severity is Severity.WARNING and "2 of them have no Workload in the input" in diag.message
    assert "`team-a/held`, `team-a/a`, `team-a/b` (by UID (one Kueue has yet to make as the middle of the random " \
           "UIDs), then by name)" \
        in diag.notes[0], diag.notes
    later = datetime(1970, 1, 1, 0, 0, 1, tzinfo=timezone.utc)
    for wl, other in ((held, workload("other", uid="00000000-0000-0000-0000-000000000002")),
                      (job("b"), job("a", created=later)), (job("b"), job("a", priority=5))):
        assert not [x for x in run(*base(wl=wl, extra=[other])) if x.code == "KAD260"], other


def test_balanced_placement_of_whole_slices_gates_off_or_a_group_of_two_is_no_panic():
    """KAD263 only where Kueue's balanced placement divides by zero: the gate on, a preferred pod set outside a
    group of two (whose leader Kueue counts), and no whole slice at a count Kueue tries."""
    def codes(*pod_sets, **gates):
        config = SchedulerConfig(feature_gates={"TASBalancedPlacement": True, **gates})
        return [c for c, _ in found(run(*base(wl=workload("job", "team-a", "training", *pod_sets), extra=[config])))
                if c == "KAD263"]

    def ps(name, count, mode="preferred", min_count=None, group=None, size=3):
        return pod_set(name, count, min_count=min_count).model_copy(update={"topology": TopologyRequest(
            mode=mode, level="rack", slice_level="host", slice_size=size, group=group)})
    assert codes(ps("main", 3)) == [] and codes(ps("main", 2, mode="required")) == []
    assert codes(ps("main", 2)) == ["KAD263"] and codes(ps("main", 3, size=-1)) == ["KAD263"]
    assert codes(ps("main", 3, min_count=2)) == ["KAD263"]
    assert codes(ps("main", 3, min_count=2), PartialAdmission=False) == []
    assert codes(ps("main", 2), TASBalancedPlacement=False) == []
    assert codes(ps("leader", 1, group="g", size=1), ps("workers", 0, group="g", size=1)) == []
