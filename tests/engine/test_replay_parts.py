"""Re-deciding only the touched parts: a workload admitted with its pods on nodes holds them for
the part that places pods, whatever queue it was admitted to; re-decisions read only what the edit
changed and leave every other workload's state to the base run."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.explain.replay import Baseline, Overlay, decide_again, effects
from kadmit.model import merge
from kadmit.syntax import parse_text

POLICY = """\
topology dc {
  levels = ["cloud.example.com/rack", "kubernetes.io/hostname"]
}
flavor h100 { node_labels = { "node-pool" = "tas" }  topology = dc }
flavor plain { }
cluster_queue a {
  cohort = ta
  resources nvidia.com/gpu { flavor h100 { nvidia.com/gpu = 64 } }
}
cluster_queue b {
  cohort = tb
  resources nvidia.com/gpu { flavor plain { nvidia.com/gpu = 64 } }
}
namespace team { }
local_queue team/a -> a
local_queue team/b -> b
node n1 {
  labels      = { "node-pool" = "tas", "cloud.example.com/rack" = "r1", "kubernetes.io/hostname" = "n1" }
  allocatable = { nvidia.com/gpu = 8, pods = 110 }
}
node n2 {
  labels      = { "node-pool" = "tas", "cloud.example.com/rack" = "r1", "kubernetes.io/hostname" = "n2" }
  allocatable = { nvidia.com/gpu = 8, pods = 110 }
}
workload team/big {
  queue = a
  pod_group main {
    count    = 2
    requests = { nvidia.com/gpu = 8 }
    topology = required "cloud.example.com/rack"
  }
}
workload team/held {
  queue = b
  pod_group main {
    count    = 1
    requests = { nvidia.com/gpu = 8 }
  }
  admitted { cluster_queue = b  pod_group main { count = 1  flavor = plain  nodes = { "n1" = 1 } } }
}
workload team/other {
  queue = b
  pod_group main {
    count    = 1
    requests = { nvidia.com/gpu = 1 }
  }
}
"""


def _model(text: str):
    diags = Diagnostics()
    model = merge([parse_text(text, "c.kad", diags)])
    assert not diags.has_errors
    return model


def test_a_workload_holding_nodes_from_a_queue_without_topology_is_in_the_placing_part():
    """`held` is admitted to `b` (no topology flavor, another cohort tree) with a pod on n1: the
    part re-deciding `a` keeps it, so `big` still can't have the rack (before: it was left out,
    n1 looked free, and the re-decision admitted `big` where deciding everything doesn't)."""
    model = _model(POLICY)
    base = Baseline(model, {d.key: d for d in decide_ordered(Session(model))})
    assert not base.states["team/big"].admitted
    cq = model.cluster_queues[0]
    rg = cq.resource_groups[0]
    fq = rg.flavors[0]
    bigger = cq.model_copy(update={"resource_groups": (rg.model_copy(update={"flavors": (fq.model_copy(
        update={"resources": (fq.resources[0].model_copy(update={"nominal": 65_000}),)}),)}),)})
    new = model.model_copy(update={"cluster_queues": (bigger, *model.cluster_queues[1:])})
    part = decide_again(base, new)
    whole = decide_again(base, new, incremental=False)
    assert part.states == whole.states and not part.states["team/big"].admitted
    assert part.redecided == 3  # `held` joined the placing part: `a` and `b` re-decided


def test_a_re_decision_overlays_the_base_states():
    """Only the re-decided part's states are computed; the others are the base's, not copied, and
    the side effects are read from the re-decided ones."""
    text = POLICY.replace('nodes = { "n1" = 1 }', "")
    model = _model(text)
    base = Baseline(model, {d.key: d for d in decide_ordered(Session(model))})
    held = model.workloads[1]
    finished = held.model_copy(update={"finished": True})
    new = model.model_copy(update={"workloads": (model.workloads[0], finished, model.workloads[2])})
    part = decide_again(base, new)
    assert isinstance(part.states, Overlay) and part.states.base is base.states
    assert set(part.states.own) == {"team/other"} and "team/held" not in part.states  # finished: gone
    assert part.states["team/big"] is base.states["team/big"]
    whole = decide_again(base, new, incremental=False)
    assert dict(part.states) == whole.states and len(part.states) == len(whole.states) == 2
    assert effects(base.states, part.states, "team/held") == effects(base.states, whole.states, "team/held")


def test_a_namespace_label_re_decides_the_queues_of_its_workloads():
    """A namespace's labels decide which queues' selectors take its workloads: a change of them
    re-decides the parts its workloads are queued in (before: none, and the state stood)."""
    text = ("flavor f { }\ncluster_queue q {\n  namespaces = { team = \"b\" }\n  resources cpu {\n"
            "    flavor f { cpu = 4 }\n  }\n}\nnamespace ns {\n  labels = { team = \"a\" }\n}\n"
            "local_queue ns/lq -> q\nworkload ns/w {\n  queue = lq\n  pod_group main {\n    count = 1\n"
            "    requests = { cpu = 1 }\n  }\n}\n")
    model = _model(text)
    base = Baseline(model, {d.key: d for d in decide_ordered(Session(model))})
    assert not base.states["ns/w"].admitted
    ns = model.namespaces[0]
    new = model.model_copy(update={"namespaces": (ns.model_copy(update={"labels": {"team": "b"}}),)})
    part = decide_again(base, new)
    assert part.states == decide_again(base, new, incremental=False).states
    assert part.states["ns/w"].admitted and part.redecided == 1
