"""An error in another cohort tree leaves `why` its answer only if leaving the broken objects out
frees nothing the answer reads: an admitted workload whose pods hold nodes (topology-aware
placement) stays a holder of them, so `why` never places pods on nodes that are really occupied."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.scope import untouched_model
from kadmit.syntax import parse_text
from kadmit.model import merge
from kadmit.validate import validate

POLICY = """\
topology dc {
  levels = ["cloud.example.com/rack", "kubernetes.io/hostname"]
}
flavor h100 { node_labels = { "node-pool" = "tas" }  topology = dc }
cluster_queue a {
  cohort = ta
  resources nvidia.com/gpu { flavor h100 { nvidia.com/gpu = 64 } }
}
cluster_queue b {
  cohort = tb
  resources nvidia.com/gpu { flavor h100 { nvidia.com/gpu = 64 } }
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
"""

# admitted to `b` (another cohort tree), its 8 GPUs on n1; PRIORITY names a class that may not exist
HELD = """\
workload team/held {
  queue    = b
  priority = PRIORITY
  pod_group main {
    count    = 1
    requests = { nvidia.com/gpu = 8 }
  }
  admitted { cluster_queue = b  pod_group main { count = 1  flavor = h100  nodes = { "n1" = 1 } } }
}
"""


def _write(tmp_path: Path, priority: str) -> list[str]:
    classes = "priority low = 10\n"
    (tmp_path / "c.kad").write_text(POLICY + classes + HELD.replace("PRIORITY", priority))
    return [str(tmp_path)]


def test_an_occupied_node_stays_occupied_without_errors(tmp_path: Path) -> None:
    got = api.why("team/big", _write(tmp_path, "low"))
    assert got.result is not None and not got.result.admitted  # n1 is taken: the rack can't hold 16 GPUs


def test_an_admitted_workload_with_an_error_in_another_tree_still_holds_its_nodes(tmp_path: Path) -> None:
    """Before: `held`'s unknown priority class (KAD203) dropped it from the model `why` answered on,
    its node with it, and `why` placed `big` on n1 and n2."""
    got = api.why("team/big", _write(tmp_path, "nosuch"))
    assert "KAD203" in {d.code for d in got.diagnostics}
    assert got.exit_code == 1 and got.result is not None and not got.result.admitted


def test_the_scope_keeps_a_node_holder_it_would_drop() -> None:
    diags = Diagnostics()
    text = POLICY + HELD.replace("PRIORITY", "nosuch")
    model = merge([parse_text(text, "c.kad", diags)])
    validate(model, diags)
    scoped, touching = untouched_model(model, diags.sorted(), "team/big")
    assert scoped is not None and not touching
    assert "team/held" in {w.key for w in scoped.workloads}  # kept, holding n1
    without = text.replace('nodes = { "n1" = 1 }', "")  # holding no node, it is left out
    diags = Diagnostics()
    model = merge([parse_text(without, "c.kad", diags)])
    validate(model, diags)
    scoped, _ = untouched_model(model, diags.sorted(), "team/big")
    assert scoped is not None and "team/held" not in {w.key for w in scoped.workloads}
