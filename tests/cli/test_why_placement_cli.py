"""`kadmit why` on a workload that quota admits but topology-aware placement doesn't."""

from __future__ import annotations

import json

POLICY = """\
topology dc {
  levels = ["cloud.example.com/rack", "kubernetes.io/hostname"]
}

flavor h100 {
  node_labels = { "node-pool" = "tas" }
  topology = dc
}

cluster_queue gpu {
  resources nvidia.com/gpu {
    flavor h100 { nvidia.com/gpu = 64 }
  }
}

local_queue team/gpu -> gpu

node n1 {
  labels      = { "node-pool" = "tas", "cloud.example.com/rack" = "r1", "kubernetes.io/hostname" = "n1" }
  allocatable = { nvidia.com/gpu = 8, pods = 110 }
}

node n2 {
  labels      = { "node-pool" = "tas", "cloud.example.com/rack" = "r1", "kubernetes.io/hostname" = "n2" }
  allocatable = { nvidia.com/gpu = 8, pods = 110 }
}

node n3 {
  labels      = { "node-pool" = "tas", "cloud.example.com/rack" = "r2", "kubernetes.io/hostname" = "n3" }
  allocatable = { nvidia.com/gpu = 8, pods = 110 }
  taints      = ["maintenance=true:NoSchedule"]
}

workload team/small {
  queue = gpu
  pod_group main {
    count    = 2
    requests = { nvidia.com/gpu = 2 }
  }
  admitted {
    cluster_queue = gpu
    pod_group main {
      count  = 2
      flavor = h100
      nodes  = { "n1" = 1, "n2" = 1 }
    }
  }
}

workload team/big {
  queue   = gpu
  created = "2026-11-20T09:00:00Z"
  pod_group workers {
    count    = 2
    requests = { nvidia.com/gpu = 8 }
    topology = required rack
  }
}
"""


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_why_prints_the_histogram_and_points_at_the_topology_line(run):
    run.write("w.kad", POLICY)
    result = run("why", "team/big", "w.kad")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert ("   = one pod: 0/3 nodes are available: 1 node(s) had untolerated taint {maintenance: true}, "
            "2 Insufficient nvidia.com/gpu.") in lines
    # two minimal cores: one pod fits nowhere (r1 held by `team/small`, r2 tainted); and two pods
    # fit in no rack (r2 has one node)
    assert any(line.startswith(f"  w.kad:{line_of(POLICY, 'admitted {')}:3  workload `team/small` holds "
                               "4 `nvidia.com/gpu` on 2 nodes (n1, n2)") for line in lines)
    assert any(line.startswith(f"  w.kad:{line_of(POLICY, 'maintenance=true')}:") and "taint `maintenance"
               in line for line in lines)
    assert any("pod set `workers` of `team/big` needs 2 pods placed at once" in line for line in lines)
    assert sum(1 for line in lines if line.startswith(("blame (", "another reason"))) == 2
    small = line_of(POLICY, "workload team/small")
    fix = lines.index(f"  1. change w.kad:{small}: wait for workload `team/small` to finish: add `finished = true` to it")
    assert lines[fix + 1] == ("     then admitted with 2 pods of `workers` on h100 (n1, n2); side effects: none (no "
                              "other workload's decision changes)")


def test_why_json_has_the_placement_section(run):
    run.write("w.kad", POLICY)
    result = run("why", "team/big", "w.kad", "--format", "json")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert [r["code"] for r in out["reasons"]] == ["KAD530"]
    p = out["placement"]
    assert p["topology_view"] == "required rack: no rack has room for 2 pods; no rack fits any"
    assert p["domains"] == [{"domain": "r1", "fits": 0}, {"domain": "r2", "fits": 0}]
    cores = [{o["kind"] for o in g} for g in out["cores"]]
    assert cores == [{"domain", "node_taint", "holder"}, {"domain", "holder", "count"}]
    count = next(o for o in out["cores"][1] if o["kind"] == "count")
    assert count["param"]["value"] == 2 and count["file"] == "w.kad"
