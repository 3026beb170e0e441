"""`why`'s fixes grouped by who acts: a change in another workload's spec (the StrictFIFO head that
holds it back) is for that workload's owner, not for the owner of the workload asked about."""

from __future__ import annotations

import json

POLICY = """\
flavor f {}
priority high = 100
priority low = 0 default
namespace t {}
cluster_queue q {
  queueing = strict_fifo
  resources cpu {
    flavor f { cpu = 16 }
  }
}
local_queue t/lq -> q
workload t/head {
  queue = lq
  created = "2026-11-20T08:00:00Z"
  pod_group main {
    count = 3
    requests = { cpu = 8 }
  }
}
workload t/small {
  queue = lq
  created = "2026-11-20T08:01:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 2 }
  }
}
"""


def test_shrinking_the_head_it_waits_behind_is_for_the_heads_owner(run):
    run.write("p.kad", POLICY)
    result = run("why", "t/small", ".", "--fixes", "6")
    assert result.exit_code == 1, result.output
    text = result.output
    assert "by the workload's owner" not in text  # nothing in t/small's own spec admits it
    others = text.index("  by the owners of other workloads (their specs):")
    shrink = text.index("`count` of pod_group `main` of workload `t/head`: 3 → 1")
    assert others < shrink and text.index("fixes by the platform team") < others
    fixes = json.loads(run("why", "t/small", ".", "--fixes", "6", "--format", "json").output)["fixes"]
    by = {f["changes"][0]["subject"]: f["by"] for f in fixes}
    assert by == {"cluster_queue `q`": "platform", "pod_group `main` of workload `t/head`": "others"}


def test_a_change_in_its_own_spec_stays_with_its_owner(run):
    run.write("p.kad", POLICY)
    fixes = json.loads(run("why", "t/head", ".", "--fixes", "6", "--format", "json").output)["fixes"]
    own = [f for f in fixes if f["changes"] and "workload `t/head`" in f["changes"][0]["subject"]]
    assert own and all(f["by"] == "owner" for f in own)
