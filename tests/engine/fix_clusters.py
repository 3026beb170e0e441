"""Small generated clusters written as `.kad` text (one statement per line, so every number a fix
may change has its own span), for the property tests of proven fixes."""

from __future__ import annotations

from hypothesis import strategies as st

FLAVORS = ("f", "g")


@st.composite
def kad_clusters(draw, max_queues: int = 3, max_pending: int = 5, max_admitted: int = 2) -> str:
    out = ["priority low = 10", "priority mid = 100 default", "priority high = 1000", ""]
    for f in FLAVORS:
        out.append(f"flavor {f} {{ node_labels = {{ model = \"{f}\" }} }}")
    out += ["namespace ns-a {", '  labels = { team = "a" }', "}",
            "namespace ns-b {", '  labels = { team = "b" }', "}"]
    cohorts = draw(st.integers(0, 2))
    for c in range(cohorts):
        out.append(f"cohort c{c} {{ }}")
    queues = draw(st.integers(1, max_queues))
    first: list[str] = []
    for i in range(queues):
        cohort = draw(st.integers(-1, cohorts - 1)) if cohorts else -1
        strict = draw(st.booleans())
        team = draw(st.sampled_from(("a", "b", None)))
        flavors = draw(st.sampled_from((("f",), ("g",), ("f", "g"))))
        first.append(flavors[0])
        out.append(f"cluster_queue q{i} {{")
        if cohort >= 0:
            out.append(f"  cohort = c{cohort}")
        if team:
            out.append(f'  namespaces = {{ team = "{team}" }}')
        out.append(f"  queueing = {'strict_fifo' if strict else 'best_effort_fifo'}")
        if draw(st.booleans()):
            out.append("  preemption {")
            out.append("    within_cluster_queue = lower_priority")
            out.append("  }")
        out.append("  resources cpu {")
        for f in flavors:
            nominal = draw(st.integers(0, 6))
            borrow = draw(st.one_of(st.none(), st.integers(0, 4))) if cohort >= 0 else None
            out.append(f"    flavor {f} {{ cpu = {nominal}" + (f" borrow {borrow}" if borrow is not None else "") + " }")
        out.append("  }")
        out.append("}")
        for ns in ("ns-a", "ns-b"):
            out.append(f"local_queue {ns}/lq{i} -> q{i}")
    admitted = draw(st.integers(0, max_admitted))
    for j in range(admitted):
        q = draw(st.integers(0, queues - 1))
        out += [f"workload ns-a/adm{j} {{", f"  queue = lq{q}", "  priority = low",
                '  created = "2026-11-20T08:00:00Z"', "  pod_group main {", "    count = 1",
                "    requests = { cpu = 1 }", "  }", "  admitted {", f"    cluster_queue = q{q}",
                "    pod_group main {", "      count = 1", f"      flavor = {first[q]}", "    }", "  }", "}"]
    pending = draw(st.integers(1, max_pending))
    for j in range(pending):
        q = draw(st.integers(0, queues - 1))
        ns = draw(st.sampled_from(("ns-a", "ns-b")))
        count = draw(st.integers(1, 4))
        min_count = draw(st.one_of(st.none(), st.integers(1, count)))
        cpu = draw(st.integers(1, 4))
        prio = draw(st.sampled_from(("low", "mid", "high")))
        out += [f"workload {ns}/w{j} {{", f"  queue = lq{q}", f"  priority = {prio}",
                f'  created = "2026-11-20T09:{j:02d}:00Z"', "  pod_group main {", f"    count = {count}"]
        if min_count is not None:
            out.append(f"    min_count = {min_count}")
        out += [f"    requests = {{ cpu = {cpu} }}", "  }", "}"]
    if draw(st.booleans()):
        out += ["forbid no-big-on-g:", "  pod_group.count > 3 and flavor == g"]
    return "\n".join(out) + "\n"
