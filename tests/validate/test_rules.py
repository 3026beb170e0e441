"""Rule type checking: scopes, accepted rules, and one table case per error."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics, Severity
from kadmit.index import ModelIndex
from kadmit.model import Rule
from kadmit.validate import rule_scope, typecheck_rule, validate
from kadmit.validate.show import show

from .builders import Namespace, PriorityClass, cohort, cq, flavor, model, pod_set, workload
from .exprs import ALL, ANY, B, I, IN, N, NEG, NOT, Q, R, S, T, rule


def cluster():
    return model(
        flavor("h100"), flavor("a100"), flavor("spot-cpu"), flavor("gpu.b200"),
        cq("team-vision", "research").flavor("h100", cpu=1, memory=1, gpu=1)
        .flavor("a100", group=0, cpu=1, memory=1, gpu=1),
        cq("team-infra", "platform").flavor("spot-cpu", cpu=1, memory=1),
        cohort("research", "org"),
        Namespace(name="team-a"),
        PriorityClass(name="production", value=1000), PriorityClass(name="scavenger", value=10),
        workload("w", "team-a", "training", pod_set("main", cpu=1, gpu=1)))


INDEX = ModelIndex(cluster())

SKETCH = [
    rule(B(B(R("pod_group.requests[nvidia.com/gpu]"), ">", I(0)), "implies", IN(R("flavor"), N("h100"), N("a100")))),
    rule(B(B(R("pod_group.min_count"), ">", I(1)), "and", B(R("flavor"), "==", N("spot-cpu"))), kind="forbid"),
    rule(B(B(R("pod_group.count"), ">=", I(16)), "implies", B(R("pod_group.topology"), "!=", N("unconstrained")))),
    rule(B(B(R("workload.priority"), "<=", N("scavenger")), "implies", B(R("flavor"), "==", N("a100"))),
         kind="prefer", weight=5),
]


def check(r: Rule) -> tuple[bool, list]:
    d = Diagnostics()
    ok = typecheck_rule(r, INDEX, d)
    return ok, d.sorted()


@pytest.mark.parametrize("r", SKETCH, ids=["gpu-on-gpu-flavors", "no-gangs-on-spot", "big-gangs", "scavengers"])
def test_sketch_rules_typecheck(r):
    assert check(r) == (True, [])
    assert rule_scope(r) == "pod_group"


ACCEPTED = [
    ("workload scope", B(R("workload.priority"), ">=", N("production")), "workload"),
    ("cluster queue name", IN(R("cluster_queue"), N("team-vision"), N("team-infra")), "workload"),
    ("cohort", B(R("workload.cohort"), "==", N("research")), "workload"),
    ("implicit cohort", B(R("cohort"), "==", N("org")), "workload"),
    ("no cohort", B(R("cohort"), "==", S("")), "workload"),
    ("quantifier", ALL("g", B(R("g.flavor"), "==", N("h100"))), "workload"),
    ("nested quantifiers", ANY("g", ALL("h", B(R("g.count"), ">=", R("h.min_count")))), "workload"),
    ("quantity literal", B(R("pod_group.requests[cpu]"), "<=", Q(500)), "pod_group"),
    ("arithmetic", B(B(R("pod_group.requests[cpu]"), "*", R("pod_group.count")), "==", R("pod_group.total[cpu]")),
     "pod_group"),
    ("quantity ratio", B(B(R("pod_group.total[cpu]"), "/", R("pod_group.requests[cpu]")), "<=", I(4)), "pod_group"),
    ("negation", B(NEG(R("pod_group.count")), "<", I(0)), "pod_group"),
    ("labels", B(R("namespace.labels[team]"), "==", S("vision")), "workload"),
    ("node selector", B(R("pod_group.node_selector[zone]"), "!=", S("")), "pod_group"),
    ("flavor per resource", B(R("flavor[nvidia.com/gpu]"), "==", N("h100")), "pod_group"),
    ("string names a flavor", B(R("flavor"), "==", S("a100")), "pod_group"),
    ("pod_group inside a quantifier", ALL("g", B(R("g.count"), "<=", R("pod_group.count"))), "pod_group"),
    ("priority number", B(R("workload.priority"), ">", I(5)), "workload"),
    ("not", NOT(B(R("workload.pod_count"), ">", I(8))), "workload"),
    ("bool literal", T(), "workload"),
    ("priority class in arithmetic", B(R("workload.priority"), ">=", B(N("production"), "+", I(1))), "workload"),
    ("priority class as a number", B(R("workload.pod_count"), "<", N("scavenger")), "workload"),
    ("dotted flavor name", B(R("flavor"), "==", N("gpu.b200")), "pod_group"),
    ("not in", IN(R("workload.namespace"), S("a"), S("b"), negated=True), "workload"),
]


@pytest.mark.parametrize("expr, scope", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_accepted(expr, scope):
    r = rule(expr)
    assert check(r) == (True, [])
    assert rule_scope(r) == scope


REJECTED = [
    ("unknown field", B(R("workload.nam"), "==", S("x")), "KAD280", "did you mean `name`?"),
    ("unknown root", B(R("wrkload.name"), "==", S("x")), "KAD280", "did you mean `workload`?"),
    ("bare root", B(R("workload"), "==", S("x")), "KAD280", None),
    ("index a string", B(R("workload.name[x]"), "==", S("x")), "KAD281", None),
    ("index a cluster queue", B(R("cluster_queue[x]"), "==", S("x")), "KAD281", None),
    ("missing index", B(R("pod_group.requests"), ">", I(0)), "KAD281", "e.g. `pod_group.requests[cpu]`"),
    ("quantity vs string", B(R("pod_group.requests[cpu]"), "==", S("x")), "KAD282", None),
    ("order strings", B(R("workload.name"), "<", S("b")), "KAD282", None),
    ("flavor vs cluster queue", B(R("flavor"), "==", R("cluster_queue")), "KAD282", None),
    ("fractional int", B(R("pod_group.count"), ">", Q(1500)), "KAD282", None),
    ("add to a string", B(B(R("workload.name"), "+", I(1)), ">", I(2)), "KAD283", None),
    ("quantity squared", B(B(R("pod_group.requests[cpu]"), "*", R("pod_group.requests[cpu]")), ">", I(0)),
     "KAD283", None),
    ("int plus quantity", B(B(R("pod_group.count"), "+", R("pod_group.requests[cpu]")), ">", I(0)), "KAD283", None),
    ("non-boolean body", R("pod_group.count"), "KAD284", "compare it, e.g. `pod_group.count > 0`"),
    ("non-boolean and", B(R("pod_group.count"), "and", T()), "KAD284", None),
    ("non-boolean not", NOT(R("flavor")), "KAD284", None),
    ("unknown flavor", B(R("flavor"), "==", N("h10")), "KAD285", "did you mean `h100`?"),
    ("unknown flavor in set", IN(R("flavor"), N("h100"), N("a10")), "KAD285", "did you mean `a100`?"),
    ("bare name as string", B(R("workload.namespace"), "==", N("team-a")), "KAD285", None),
    ("unknown cluster queue", B(R("cluster_queue"), "==", N("team-visio")), "KAD285", "did you mean `team-vision`?"),
    ("unknown priority class", B(R("workload.priority"), "<=", N("scavengr")), "KAD285", "did you mean `scavenger`?"),
    ("unknown topology mode", B(R("pod_group.topology"), "==", N("requird")), "KAD285", "did you mean `required`?"),
    ("unknown priority class in arithmetic", B(B(N("prod"), "-", I(1)), ">", I(0)), "KAD285", None),
    ("unknown root lowered as a name", B(N("wrkload.name"), "==", S("x")), "KAD280", "did you mean `workload`?"),
    ("unbound variable lowered as a name", B(N("g.count"), ">", I(1)), "KAD287", None),
    ("misspelt root", B(N("flavr"), "==", N("h100")), "KAD285", "did you mean `flavor`?"),
    ("two bare names", B(N("a"), "==", N("b")), "KAD285", None),
    ("bad domain", ALL("g", B(R("g.count"), ">", I(0)), domain="workload.requests"), "KAD286", None),
    ("domain as value", B(R("workload.pod_groups"), "==", I(1)), "KAD286", None),
    ("unbound variable", B(R("g.count"), ">", I(1)), "KAD287", None),
    ("reserved variable", ALL("workload", T()), "KAD287", None),
    ("shadowed variable", ALL("g", ANY("g", T())), "KAD287", None),
    ("whole quantity as int", B(R("pod_group.count"), "<=", Q(2000)), "KAD282", None),
    ("non-boolean quantifier body", ALL("g", R("g.count")), "KAD284", None),
]


@pytest.mark.parametrize("expr, code, help_", [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_rejected(expr, code, help_):
    ok, diags = check(rule(expr))
    assert not ok
    assert code in [d.code for d in diags], diags
    if help_ is not None:
        assert help_ in [d.help for d in diags if d.code == code]


def test_prefer_needs_positive_weight():
    ok, diags = check(rule(T(), kind="prefer", weight=0))
    assert not ok and [d.code for d in diags] == ["KAD288"]


def test_require_takes_no_weight():
    ok, diags = check(rule(T(), kind="require", weight=3))
    assert not ok and [d.code for d in diags] == ["KAD288"]


def test_unknown_resource_is_a_warning_with_did_you_mean():
    ok, diags = check(rule(B(R("pod_group.requests[nvidia.com/gpus]"), ">", I(0))))
    assert ok
    [d] = diags
    assert (d.code, d.severity, d.help) == ("KAD289", Severity.WARNING, "did you mean `nvidia.com/gpu`?")


def test_one_error_does_not_cascade():
    ok, diags = check(rule(B(B(R("workload.nam"), "==", S("x")), "and", B(R("flavor"), "==", N("h100")))))
    assert not ok and [d.code for d in diags] == ["KAD280"]


def test_validate_typechecks_rules_and_reports_duplicate_names():
    m = cluster().model_copy(update={"rules": (rule(B(R("flavor"), "==", N("h10")), name="x"),
                                               rule(T(), name="x"))})
    d = Diagnostics()
    validate(m, d)
    assert {"KAD285", "KAD220"} <= {x.code for x in d}


def test_show_renders_source_like_text():
    assert show(SKETCH[0].expr) == "pod_group.requests[nvidia.com/gpu] > 0 implies flavor in {h100, a100}"
    assert show(B(B(I(1), "+", I(2)), "*", I(3))) == "(1 + 2) * 3"
    assert show(ALL("g", B(R("g.total[cpu]"), ">", Q(500)))) == "all g in workload.pod_groups: g.total[cpu] > 500m"
