"""`why` decides only the part of the cluster that holds the workload (`engine.decide.why_scope`:
its cohort tree, with every queue sharing nodes through a topology flavor) and proves fixes there,
deciding the rest only when a change reaches it. Its answer — text and JSON, fixes and their side
effects included — is byte for byte the one deciding the whole cluster gives, on generated clusters
with several cohort trees (one nested), borrowing, preemption (within the queue, reclaim and borrow
within the cohort), StrictFIFO, a topology-aware queue on nodes, and workloads whose queue doesn't
exist."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from unittest.mock import patch

from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit import workspace
from kadmit.cli import cli
from kadmit.engine import decide
from kadmit.engine.explain import part
from kadmit.engine.decide import PartScope, why_scope

sys.path.insert(0, str(Path(__file__).parents[1] / "simulate"))
sys.path.insert(0, str(Path(__file__).parent))
from sim_helpers import NODES  # noqa: E402

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@st.composite
def clusters(draw) -> str:
    out = ["priority low = 10", "priority mid = 100 default", "priority high = 1000",
           'flavor f { node_labels = { kind = "cpu" } }', 'flavor g { node_labels = { kind = "cpu" } }',
           'topology dc { levels = ["rack", "kubernetes.io/hostname"] }',
           'flavor gpu { node_labels = { kind = "gpu" }  topology = dc }',
           "namespace ns-a {}", "namespace ns-b {}", "cohort c0 {}", "cohort c1 {}", "cohort c2 {", "  parent = c0",
           "}"]
    queues = draw(st.integers(3, 5))
    first: list[str] = []
    for i in range(queues):
        cohort = draw(st.sampled_from(("c0", "c1", "c2", None)))
        out += [f"cluster_queue q{i} {{", "  namespaces = {}"]
        if cohort:
            out.append(f"  cohort = {cohort}")
        if draw(st.booleans()):
            out.append("  queueing = strict_fifo")
        if draw(st.booleans()):
            reclaim = draw(st.sampled_from(("any", "lower_priority", "never")))
            out += ["  preemption {", "    within_cluster_queue = lower_priority", f"    reclaim_within_cohort = {reclaim}"]
            if reclaim != "never" and draw(st.booleans()):
                out += ["    borrow_within_cohort {", "      policy = lower_priority", "    }"]
            out.append("  }")
        out.append("  resources cpu {")
        flavors = draw(st.sampled_from((("f",), ("g",), ("f", "g"))))
        first.append(flavors[0])
        for fl in flavors:
            borrow = f" borrow {draw(st.integers(0, 3))}" if cohort and draw(st.booleans()) else ""
            out.append(f"    flavor {fl} {{ cpu = {draw(st.integers(0, 4))}{borrow} }}")
        out += ["  }", "}", f"local_queue ns-a/lq{i} -> q{i}", f"local_queue ns-b/lq{i} -> q{i}"]
    tas = draw(st.booleans())
    if tas:
        out += ["cluster_queue tq {", "  namespaces = {}", f"  cohort = {draw(st.sampled_from(('c1', 'c2')))}",
                "  resources cpu, nvidia.com/gpu {",
                f"    flavor gpu {{ cpu = 16  nvidia.com/gpu = {draw(st.integers(2, 12))} }}", "  }", "}",
                "local_queue ns-a/tq -> tq"]
        if draw(st.booleans()):  # an admitted workload whose pods hold a GPU node
            out += ["workload ns-a/held {", "  queue = tq", "  priority = low", '  created = "2026-11-20T08:00:00Z"',
                    "  pod_group main {", "    count = 1", "    requests = { cpu = 1, nvidia.com/gpu = 3 }", "  }",
                    f'  admitted {{ cluster_queue = tq  pod_group main {{ count = 1  flavor = gpu  nodes = {{ "g{draw(st.integers(0, 3))}" = 1 }} }} }}',
                    "}"]
    names = [f"lq{i}" for i in range(queues)] + (["tq"] * 2 if tas else []) + ["nowhere"]
    for j in range(draw(st.integers(0, 3))):
        q = draw(st.integers(0, queues - 1))
        out += [f"workload ns-a/adm{j} {{", f"  queue = lq{q}", "  priority = low",
                '  created = "2026-11-20T08:00:00Z"', "  pod_group main {", "    count = 1",
                "    requests = { cpu = 1 }", "  }", "  admitted {", f"    cluster_queue = q{q}",
                "    pod_group main {", "      count = 1", f"      flavor = {first[q]}", "    }", "  }", "}"]
    for j in range(draw(st.integers(3, 9))):
        queue = draw(st.sampled_from(names))
        ns = "ns-a" if queue in ("tq", "nowhere") else draw(st.sampled_from(("ns-a", "ns-b")))
        count = draw(st.integers(1, 3))
        out += [f"workload {ns}/w{j} {{", f"  queue = {queue}",
                f"  priority = {draw(st.sampled_from(('low', 'mid', 'high')))}",
                f'  created = "2026-11-20T09:{j:02d}:00Z"', "  pod_group main {", f"    count = {count}"]
        if queue == "tq":
            out += [f"    requests = {{ cpu = 1, nvidia.com/gpu = {draw(st.integers(1, 4))} }}",
                    f"    topology = {draw(st.sampled_from(('required', 'preferred')))} rack"]
        else:
            out.append(f"    requests = {{ cpu = {draw(st.integers(1, 3))} }}")
        out += ["  }", "}"]
    return "\n".join(out) + "\n" + NODES


def _why(path: Path, key: str, fmt: str) -> tuple[int, str]:
    got = CliRunner().invoke(cli, ["why", key, str(path), "--format", fmt], catch_exceptions=False)
    text = got.output
    if fmt == "json":  # the solver's statistics count the work done, which is what scoping saves
        data = json.loads(text)
        data.pop("solver")
        text = json.dumps(data, indent=2)
    return got.exit_code, text


def _whole(model, key):
    return PartScope(model)


@SETTINGS
@given(text=clusters(), data=st.data())
def test_why_on_its_part_answers_as_on_the_whole_cluster(tmp_path_factory, text, data):
    tmp = tmp_path_factory.mktemp("scoped")
    (tmp / "c.kad").write_text(text)
    loaded = workspace.load([str(tmp)])
    assume(not loaded.diagnostics.has_errors)
    keys = sorted(w.key for w in loaded.model.workloads)
    for key in data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3, unique=True)):
        for fmt in ("json", "human"):
            scoped = _why(tmp, key, fmt)
            with patch.object(decide, "why_scope", _whole):
                whole = _why(tmp, key, fmt)
            assert scoped == whole, (key, fmt)


TWO_TREES = """
priority low = 10
priority high = 1000
flavor f {}
namespace ns {}
cohort a {}
cohort b {}
""" + "".join(f"""
cluster_queue {q} {{
  namespaces = {{}}
  cohort = {co}
  preemption {{
    within_cluster_queue = lower_priority
  }}
  resources cpu {{
    flavor f {{ cpu = 2 }}
  }}
}}
local_queue ns/{q} -> {q}
workload ns/{q}-old {{
  queue = {q}
  priority = low
  created = "2026-11-20T08:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 2 }}
  }}
}}
workload ns/{q}-big {{
  queue = {q}
  priority = low
  created = "2026-11-20T09:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 2 }}
  }}
}}""" for q, co in (("qa", "a"), ("qa2", "a"), ("qb", "b")))


def test_why_decides_only_its_cohort_tree_and_the_rest_when_a_fix_reaches_it(tmp_path):
    (tmp_path / "c.kad").write_text(TWO_TREES)
    model = workspace.load([str(tmp_path)]).model
    scope = why_scope(model, "ns/qb-big")
    assert sorted(w.key for w in scope.model.workloads) == ["ns/qb-big", "ns/qb-old"]
    assert sorted(w.key for w in scope.rest.workloads) == ["ns/qa-big", "ns/qa-old", "ns/qa2-big", "ns/qa2-old"]
    assert why_scope(model, "ns/qa-big").model.cluster_queues == tuple(
        cq for cq in model.cluster_queues if cq.name in ("qa", "qa2"))
    rests: list[int] = []
    complete = part.PartProver._complete

    def counted(self):
        rests.append(1)
        return complete(self)
    with patch.object(part.PartProver, "_complete", counted):
        scoped = _why(tmp_path, "ns/qb-big", "json")
    with patch.object(decide, "why_scope", _whole):
        whole = _why(tmp_path, "ns/qb-big", "json")
    assert scoped == whole
    fixes = json.loads(scoped[1])["fixes"]
    assert fixes  # its own quota, its priority against `ns/qb-old`, ...
    # a priority class's value is read by every tree: proving such a change decided the rest once
    assert len(rests) <= 1


def test_a_loop_is_reported_as_the_whole_run_catches_it():
    """A preemption loop is caught where the whole run's state repeats: while another tree is still
    admitting, later than the looping tree alone would catch it. `why` in the looping tree decides
    the whole cluster then, and answers in other trees are unchanged by the loop."""
    from reference.builders import build, cohort, fq, group, pod_set, workload
    from reference.test_preemption import cqp
    from test_loops import looping_model

    from kadmit.render.why import why_json
    loop = looping_model()
    busy = build(cqp("q2", group(fq("f", cpu=12))),
                 *(workload(f"w{i}", pod_set(cpu=1), queue="q2", minute=20 + i) for i in range(12)))
    model = loop.model_copy(update={name: getattr(loop, name) + getattr(busy, name)
                                    for name in ("cluster_queues", "local_queues", "workloads")})
    assert why_scope(model, "default/small").rest is not None
    for key in ("default/small", "default/w5"):
        scoped = json.loads(why_json(decide.why(model, key)))
        with patch.object(decide, "why_scope", _whole):
            whole = json.loads(why_json(decide.why(model, key)))
        scoped.pop("solver"), whole.pop("solver")
        assert scoped == whole, key
        if key == "default/small":  # decided alone, the looping tree names other cycles
            alone = json.loads(why_json(decide.why(loop, key)))
            assert alone["reasons"] != scoped["reasons"]


ONE_QUEUE_EACH = """
flavor f {}
namespace ns {}
cohort a {}
cohort b {}
""" + "".join(f"""
cluster_queue {q} {{
  namespaces = {{}}
  cohort = {q[1]}
  resources cpu {{
    flavor f {{ cpu = 2 }}
  }}
}}
local_queue ns/{q} -> {q}
workload ns/{q}-run {{
  queue = {q}
  created = "2026-11-20T08:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 1 }}
  }}
  admitted {{
    cluster_queue = {q}
    pod_group main {{
      count = 1
      flavor = f
    }}
  }}
}}
workload ns/{q}-big {{
  queue = {q}
  created = "2026-11-20T09:00:00Z"
  pod_group main {{
    count = 1
    requests = {{ cpu = 2 }}
  }}
}}""" for q in ("qa", "qb"))


def test_a_fix_within_its_tree_never_decides_the_rest(tmp_path):
    """A workload of the part that its run leaves as it was (`ns/qa-run`, admitted throughout: no
    decision) is the part's, not the rest's: a change of the part's quota, re-deciding it, doesn't
    decide the rest of the cluster, and the answer is the whole cluster's."""
    (tmp_path / "c.kad").write_text(ONE_QUEUE_EACH)
    rests: list[int] = []
    complete = part.PartProver._complete

    def counted(self):
        rests.append(1)
        return complete(self)
    with patch.object(part.PartProver, "_complete", counted):
        scoped = _why(tmp_path, "ns/qa-big", "json")
    with patch.object(decide, "why_scope", _whole):
        whole = _why(tmp_path, "ns/qa-big", "json")
    assert scoped == whole
    fixes = json.loads(scoped[1])["fixes"]
    assert fixes and all(c["file"].endswith("c.kad") for f in fixes for c in f["changes"])
    assert rests == []
