"""Hypothesis strategies for `.kad` text: valid policies with random layout and comments."""

from __future__ import annotations

from hypothesis import strategies as st

WORD = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,4})?", fullmatch=True).filter(
    lambda w: w not in {"and", "or", "not", "in", "all", "any", "implies", "true", "false", "required",
                        "preferred", "borrow", "lend", "default", "match", "resources", "weight"})
RESOURCE = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "pods", '"example.com/fpga"'])
QUANTITY = st.sampled_from(["0", "1", "16", "500m", "1.5", "64Gi", "4Ti", "2e3", "1k", '"2Gi"'])
SPACE = st.sampled_from([" ", "  ", "\n", "\n\n", " \n  ", "\t"])
COMMENT = st.sampled_from(["", "", "", "# note", "// why", "# a \"quoted\" {comment}"])
INT = st.integers(0, 10**6).map(str)


@st.composite
def sep(draw) -> str:
    """Whitespace between tokens, sometimes with a comment that ends its line."""
    comment = draw(COMMENT)
    return f" {comment}\n" if comment else draw(SPACE)


def expr(leaves=None):
    names = st.sampled_from(["flavor", "pod_group.count", "pod_group.min_count", "workload.priority",
                             "workload.namespace", "h100", "a100", "spot-cpu", "production",
                             "namespace.labels[team]", 'namespace.labels["app.kubernetes.io/name"]',
                             "pod_group.requests[nvidia.com/gpu]", "workload.requests[cpu]"])
    atoms = leaves or st.one_of(names, INT, QUANTITY.filter(lambda q: not q.startswith('"')),
                                st.sampled_from(["true", "false", '"x"', '"a\\"b"']))

    def extend(inner):
        binop = st.tuples(inner, st.sampled_from(["and", "or", "implies", "==", "!=", "<", "<=", ">",
                                                  ">=", "+", "-", "*", "/"]), inner)
        return st.one_of(
            binop.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"(not ({e}))"),
            inner.map(lambda e: f"(-({e}))"),
            st.tuples(inner, st.lists(inner, min_size=1, max_size=3), st.booleans()).map(
                lambda t: f"({t[0]} {'not in' if t[2] else 'in'} {{{', '.join(f'({x})' for x in t[1])}}})"),
            inner.map(lambda e: f"(all g in workload.pod_groups: g.count > 0 and {e})"),
        )
    return st.recursive(atoms, extend, max_leaves=8)


@st.composite
def statement(draw) -> str:
    s = draw(sep())
    kind = draw(st.sampled_from(["flavor", "cq", "cohort", "workload", "priority", "lq", "rule",
                                 "node", "namespace", "topology", "check", "checks"]))
    name = draw(WORD)
    if kind == "flavor":
        return (f"flavor {name} {{{s}node_labels = {{ k = \"v\"{s}}}{s}"
                f"node_taints = [\"a=b:NoSchedule\",{s}\"c:NoExecute\"]{s}topology = dc }}")
    if kind == "cq":
        quotas = draw(st.lists(st.tuples(RESOURCE, QUANTITY, st.booleans()), min_size=1, max_size=3,
                               unique_by=lambda t: t[0]))
        body = s.join(f"{r} = {q}" + (f" borrow {q} lend 1" if b else "") for r, q, b in quotas)
        covered = ", ".join(r for r, _, _ in quotas)
        return (f"cluster_queue {name} {{{s}cohort = org{s}queueing = strict_fifo{s}"
                f"preemption {{ within_cluster_queue = lower_priority }}{s}"
                f"resources {covered} {{{s}flavor h100 {{ {body} }}{s}}}{s}}}")
    if kind == "check":  # an admission check and what its controller reads
        return draw(st.sampled_from([
            f"admission_check {name} {{{s}controller = provisioning_request{s}parameters = {name}-config{s}}}",
            f"admission_check {name} {{ controller = \"example.com/x\"{s}active = false{s}reason = \"R\" }}",
            f"admission_check {name} {{{s}controller = x{s}parameters {{ api_group = \"g\"{s}kind = \"K\"{s}name = \"n\" }}{s}}}",
            f"provisioning_config {name} {{{s}provisioning_class = \"c\"{s}managed_resources = [nvidia.com/gpu,{s}cpu]"
            f"{s}retry_strategy {{ backoff_limit_count = {draw(st.integers(0, 9))} }}{s}"
            f"pod_set_updates {{ node_selector = {{ k = \"v\" }} }}{s}}}",
            f"multikueue_config {name} {{ clusters = [a,{s}b] }}",
            f"multikueue_cluster {name} {{ kubeconfig = \"s\"{s}location_type = path{s}active = true }}"]))
    if kind == "checks":  # a queue's checks, and a workload's check states
        flavors = draw(st.sampled_from(["[a, b]", "all", "[h100]"]))
        return draw(st.sampled_from([
            f"cluster_queue {name} {{{s}admission_checks = [c1,{s}c2]{s}}}",
            f"cluster_queue {name} {{ admission_checks = {{ c1 = {flavors},{s}c2 = all }} }}",
            f"workload ns/{name} {{{s}queue = q{s}checks = {{ c1 = ready,{s}c2 = pending }}{s}"
            f"pod_group main {{ count = 1 }}{s}}}"]))
    if kind == "cohort":
        return f"cohort {name} {{{s}parent = org{s}fair_sharing {{ weight = 2 }}}}"
    if kind == "workload":
        count = draw(st.integers(1, 64))
        return (f"workload ns/{name} {{{s}queue = q{s}priority = research{s}"
                f"pod_group main {{ count = {count}{s}requests = {{ cpu = {draw(QUANTITY)},{s}memory = 1Gi }}"
                f"{s}topology = required rack }}{s}}}")
    if kind == "priority":
        return f"priority {name} = {draw(INT)}" + (" default" if draw(st.booleans()) else "")
    if kind == "lq":
        return f"local_queue ns/{name} -> {draw(WORD)}"
    if kind == "node":
        return f"node {name} {{ allocatable = {{ cpu = 8, pods = 110 }}{s}ready = false }}"
    if kind == "namespace":
        return f"namespace {name} {{ labels = {{ team = \"{draw(WORD)}\" }} }}"
    if kind == "topology":
        return f"topology {name} {{ levels = [\"a\",{s}\"b\"] }}"
    rule = draw(st.sampled_from(["require {}:", "forbid {}:", "prefer {} weight 3:", "rule {}: require",
                                 "rule {}: forbid"]))
    return f"{rule.format(name)}{s}{draw(expr())}"


@st.composite
def policy(draw) -> str:
    stmts = draw(st.lists(statement(), max_size=6))
    return "".join(s + draw(sep()) + "\n" for s in stmts)
