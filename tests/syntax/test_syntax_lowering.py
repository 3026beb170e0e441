"""Lowering `.kad` statements to the model: values, defaults, enums and spans."""

from __future__ import annotations

from datetime import datetime, timezone

from kadmit.diagnostics import Diagnostics
from kadmit.model import (Binary, InSet, LabelSelector, Literal_, Quantifier, Ref, Requirement, Taint,
                          Toleration, Unary)
from kadmit.syntax import parse_text

GI = 2**30 * 1000


def parse(text: str):
    diags = Diagnostics()
    frag = parse_text(text, "t.kad", diags)
    return frag, [(d.code, d.span.line, d.span.column, d.message) for d in diags.sorted()]


def clean(text: str):
    frag, diags = parse(text)
    assert diags == []
    return frag


def test_cluster_queue_quotas_limits_and_enums() -> None:
    cq = clean("""cluster_queue q {
  cohort = research
  queueing = strict_fifo
  stop_policy = hold
  preemption { within_cluster_queue = lower_priority  reclaim_within_cohort = any
    borrow_within_cohort { policy = lower_priority  max_priority_threshold = 100 } }
  flavor_fungibility { when_can_borrow = try_next_flavor }
  fair_sharing { weight = 0.5 }
  resources cpu, nvidia.com/gpu {
    flavor h100 { cpu = 500m  nvidia.com/gpu = 32 borrow 16 lend 8 }
    flavor a100 { cpu = 1  nvidia.com/gpu = 16 }
  }
}""").cluster_queues[0]
    assert cq.cohort == "research" and cq.queueing_strategy == "StrictFIFO" and cq.stop_policy == "Hold"
    assert cq.preemption.within_cluster_queue == "LowerPriority"
    assert cq.preemption.reclaim_within_cohort == "Any"
    assert cq.preemption.borrow_within_cohort.policy == "LowerPriority"
    assert cq.preemption.borrow_within_cohort.max_priority_threshold == 100
    assert cq.flavor_fungibility.when_can_borrow == "TryNextFlavor"
    assert cq.fair_sharing.weight == 500
    assert cq.namespace_selector == LabelSelector()  # omitted: every namespace
    (group,) = cq.resource_groups
    assert group.covered_resources == ("cpu", "nvidia.com/gpu")
    assert [f.flavor for f in group.flavors] == ["h100", "a100"]
    cpu, gpu = group.flavors[0].resources
    assert (cpu.nominal, cpu.borrowing_limit, cpu.lending_limit) == (500, None, None)
    assert (gpu.nominal, gpu.borrowing_limit, gpu.lending_limit) == (32000, 16000, 8000)
    assert (gpu.spans.get("nominal").column, gpu.spans.get("borrowing_limit").column) == (48, 58)
    assert gpu.spans.get("lending_limit").line == 10


def test_namespace_selectors() -> None:
    f = clean("""cluster_queue a { namespaces = { team = "vision" } }
cluster_queue b { namespaces = all }
cluster_queue c { namespaces = none }
cluster_queue d { namespaces { match "team" in ["a", "b"]  match "x" exists  match "y" not in ["z"] } }""")
    a, b, c, d = f.cluster_queues
    assert a.namespace_selector.match_labels == {"team": "vision"}
    assert b.namespace_selector == LabelSelector() and c.namespace_selector is None
    assert d.namespace_selector.match_expressions == (
        Requirement(key="team", operator="In", values=("a", "b")),
        Requirement(key="x", operator="Exists"), Requirement(key="y", operator="NotIn", values=("z",)))


def test_flavor_taints_and_tolerations() -> None:
    fl = clean("""flavor f {
  node_labels = { "k" = "v" }
  node_taints = ["a=b:NoSchedule", "c:NoExecute"]
  tolerations = ["a=b:NoSchedule", "c:NoSchedule", "d", "e=f", "*"]
  topology = dc
}""").flavors[0]
    assert fl.node_taints == (Taint(key="a", value="b", effect="NoSchedule"), Taint(key="c", effect="NoExecute"))
    assert fl.tolerations == (
        Toleration(key="a", value="b", effect="NoSchedule"),
        Toleration(key="c", operator="Exists", effect="NoSchedule"),
        Toleration(key="d", operator="Exists"), Toleration(key="e", value="f"),
        Toleration(operator="Exists"))
    assert fl.topology == "dc" and fl.node_labels == {"k": "v"}


def test_workload_pod_groups_admission_and_defaults() -> None:
    wl = clean("""workload ns/w {
  queue = training
  priority = production
  created = "2026-11-01T10:00:00Z"
  pod_group workers { count = 3  min_count = 2  requests = { cpu = 16, memory = 128Gi, nvidia.com/gpu = 8 }
    topology = required rack }
  pod_group launcher { requests = { cpu = 2 } }
  admitted { cluster_queue = cq  pod_group workers { count = 2  flavor = h100 } }
}""").workloads[0]
    assert (wl.namespace, wl.name, wl.queue) == ("ns", "w", "training")
    assert (wl.priority_class, wl.priority_class_kind, wl.priority) == ("production", "workload", None)
    assert wl.created == datetime(2026, 11, 1, 10, tzinfo=timezone.utc)
    workers, launcher = wl.pod_sets
    assert workers.requests == {"cpu": 16000, "memory": 128 * GI, "nvidia.com/gpu": 8000}
    assert (workers.count, workers.min_count, launcher.count) == (3, 2, 1)
    assert (workers.topology.mode, workers.topology.level) == ("required", "rack")
    assert workers.spans.get("requests.nvidia.com/gpu").column == 105
    (psa,) = wl.admission.pod_sets
    assert psa.count == 2 and psa.flavors == {"cpu": "h100", "memory": "h100", "nvidia.com/gpu": "h100"}
    assert wl.admitted


def test_integer_priority_and_priority_classes() -> None:
    f = clean("""priority research = 100 default
priority low = -10
workload a/b { queue = q  priority = 7 }""")
    assert [(p.name, p.value, p.global_default) for p in f.priority_classes] == [
        ("research", 100, True), ("low", -10, False)]
    assert f.workloads[0].priority == 7 and f.workloads[0].priority_class is None


def test_nodes_and_local_queues() -> None:
    f = clean("""node n { labels = { a = "1" } taints = ["k=v:NoSchedule"]
  allocatable = { cpu = 96, pods = 110 } unschedulable = true ready = false }
local_queue team-a/training -> team-a""")
    n = f.nodes[0]
    assert n.allocatable == {"cpu": 96000, "pods": 110000} and n.unschedulable and not n.ready
    lq = f.local_queues[0]
    assert (lq.namespace, lq.name, lq.cluster_queue) == ("team-a", "training", "team-a")


def test_rule_expressions_lower_with_precedence() -> None:
    f = clean("""require a: pod_group.requests[nvidia.com/gpu] > 0 implies flavor in {h100, a100}
forbid b: not x == 1 or y and z
prefer c weight 5: workload.priority <= scavenger
rule d: forbid all g in workload.pod_groups: g.count > 1 - -2 * 3
require e: namespace.labels["team"] not in {"a"} implies p implies q""")
    a, b, c, d, e = f.rules
    assert a.kind == "require" and a.expr == Binary(
        op="implies",
        left=Binary(op=">", left=Ref(path=("pod_group", "requests", "nvidia.com/gpu")),
                    right=Literal_(kind="int", value=0)),
        right=InSet(elem=Ref(path=("flavor",)), items=(Literal_(kind="name", value="h100"),
                                                       Literal_(kind="name", value="a100"))))
    x, y, z = (Literal_(kind="name", value=v) for v in "xyz")
    assert b.expr == Binary(op="or", left=Unary(op="not", arg=Binary(op="==", left=x, right=Literal_(kind="int", value=1))),
                            right=Binary(op="and", left=y, right=z))
    assert (c.kind, c.weight) == ("prefer", 5)
    assert d.kind == "forbid" and isinstance(d.expr, Quantifier) and d.expr.var == "g"
    assert d.expr.body.left == Ref(path=("g", "count"))
    assert d.expr.body.right == Binary(op="-", left=Literal_(kind="int", value=1), right=Binary(
        op="*", left=Unary(op="-", arg=Literal_(kind="int", value=2)), right=Literal_(kind="int", value=3)))
    assert e.expr.op == "implies" and e.expr.right.op == "implies"  # right-associative
    assert e.expr.left.negated and e.expr.left.elem == Ref(path=("namespace", "labels", "team"))


def test_quantity_literals_in_rules() -> None:
    (r,) = clean("require q: workload.requests[memory] < 1.5Ti and workload.requests[cpu] > 2e3").rules
    assert r.expr.left.right == Literal_(kind="quantity", value=int(1.5 * 2**40) * 1000)
    assert r.expr.right.right == Literal_(kind="quantity", value=2_000_000)


def test_strings_decode_escapes() -> None:
    ns = clean('namespace n { labels = { k = "a\\"b\\\\c\\n\\u00e9" } }').namespaces[0]
    assert ns.labels == {"k": 'a"b\\c\né'}


def test_mistakes_are_located_with_did_you_mean() -> None:
    _, diags = parse("""cluster_queue q {
  queueing = best_effort
  preemptoin { }
  namespaces = ["a"]
}""")
    assert [(c, l, col) for c, l, col, _ in diags] == [("KAD110", 2, 14), ("KAD105", 3, 3), ("KAD107", 4, 16)]
    assert "did you mean" not in diags[0][3]


def test_one_broken_statement_does_not_hide_the_others() -> None:
    f, diags = parse("""flavor a { topology = }
flavor b {}
cohort c { parent = = }
cohort d {}
""")
    assert [f.name for f in f.flavors] == ["b"] and [c.name for c in f.cohorts] == ["d"]
    assert [(c, l) for c, l, _, _ in diags] == [("KAD100", 1), ("KAD100", 3)]


def test_keywords_are_names_where_no_keyword_fits() -> None:
    f = clean("""cluster_queue flavor {
  resources flavor, match { flavor flavor { flavor = 1  "match" = 2 } }
}""")
    assert f.cluster_queues[0].resource_groups[0].covered_resources == ("flavor", "match")


def test_a_pod_groups_topology_group() -> None:
    """`topology_group` is Kueue's podSetGroupName: beside a topology request, and only there."""
    wl = clean("""workload ns/w {
  queue = q
  pod_group leader { requests = { cpu = 1 }  topology = required rack  topology_group = replica }
  pod_group workers { count = 3  requests = { cpu = 1 }  topology = required rack  topology_group = replica }
}""").workloads[0]
    assert [ps.topology.group for ps in wl.pod_sets] == ["replica", "replica"]
    _, diags = parse("""workload ns/w {
  queue = q
  pod_group leader { requests = { cpu = 1 }  topology_group = replica }
}""")
    assert [(line, message.split(":")[0]) for _, line, _, message in diags] == [
        (3, "`topology_group` groups pod groups placed by topology")]


def test_a_topology_aware_flavor_without_node_labels_is_refused_in_the_api_servers_words() -> None:
    """The `.kad` checker refuses what the ResourceFlavor CRD refuses (`!has(self.topologyName) ||
    self.nodeLabels.size() >= 1`), in the words the manifest reader quotes (tests/manifests/test_kinds.py; oracle:
    tests/oracle/features/tas-flavor-without-node-labels-refused.yaml): absent or empty `node_labels` alike."""
    from kadmit.manifests import read_manifest_text

    _, found = parse('flavor none { topology = dc }\nflavor empty { node_labels = {}  topology = dc }\n'
                     'flavor good { node_labels = { pool = "tas" }  topology = dc }\nflavor plain { }\n')
    assert [(c, line, col) for c, line, col, _ in found] == [("KAD157", 1, 26), ("KAD157", 2, 30)]
    yaml = Diagnostics()
    read_manifest_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: none}\n"
                       "spec: {topologyName: dc}\n", "f.yaml", yaml)
    assert [d.message for d in yaml.items] == [found[0][3]]
