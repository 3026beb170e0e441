"""`why` on a workload that held quota and was preempted: who evicted it, and where it waits once
requeued, as Kueue's visibility API counts its ClusterQueue's pending workloads."""

from __future__ import annotations

import json

POLICY = """\
flavor f {}
priority high = 100
priority low = 0 default
namespace t {}
cluster_queue q {
  preemption {
    within_cluster_queue = lower_priority
  }
  resources cpu {
    flavor f { cpu = 16 }
  }
}
local_queue t/lq -> q
workload t/low-a {
  queue = lq
  priority = low
  created = "2026-11-20T08:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 8 }
  }
  admitted {
    cluster_queue = q
    admitted_at = "2026-11-20T08:00:01Z"
    pod_group main {
      count = 1
      flavor = f
    }
  }
}
workload t/low-b {
  queue = lq
  priority = low
  created = "2026-11-20T08:01:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 8 }
  }
  admitted {
    cluster_queue = q
    admitted_at = "2026-11-20T08:01:01Z"
    pod_group main {
      count = 1
      flavor = f
    }
  }
}
workload t/early {
  queue = lq
  priority = low
  created = "2026-11-20T07:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4 }
  }
}
workload t/urgent {
  queue = lq
  priority = high
  created = "2026-11-20T09:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 8 }
  }
}
"""


def test_why_an_evicted_workload_says_by_whom_and_where_it_waits_again(run):
    run.write("p.kad", POLICY)
    result = run("why", "t/low-b", ".")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == "error[KAD501]: workload `t/low-b` can't be admitted"
    assert lines[3] == ("   = evicted by `t/urgent` (InClusterQueue) and requeued: it waits again in its "
                        "ClusterQueue's order (priority, then creation time)")
    # t/early (created before it, same priority) is still pending ahead of it; t/urgent holds quota
    assert lines[4] == ("   = 2nd of 2 pending in ClusterQueue q (2nd in LocalQueue lq); the 1 ahead of it "
                        "(priority 0 or higher) request 4 cpu")
    # requeued, Kueue tried it again: its pending reason is that try's (as `admit` gives it), then the eviction
    reasons = [x for x in lines if x.startswith("   = reason: ")]
    assert reasons[:2] == [
        "   = reason: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, "
        "8 more needed",
        "   = reason: Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) "
        "due to prioritization in the ClusterQueue; preemptor path: /q; preemptee path: /q (preempted by t/urgent)"]
    assert "insufficient unused quota for cpu in flavor f, 8 more needed" in \
        next(x for x in run("admit", ".").output.splitlines() if x.startswith("t/low-b"))
    data = json.loads(run("why", "t/low-b", ".", "--format", "json", "--fixes", "0").output)
    st = data["standing"]
    assert (st["evicted_by"], st["evicted_reason"]) == ("t/urgent", "InClusterQueue")
    assert (st["position_in_cluster_queue"], st["pending_in_cluster_queue"]) == (1, 2)


def test_a_workload_never_evicted_has_no_eviction_line(run):
    run.write("p.kad", POLICY)
    result = run("why", "t/early", ".", "--fixes", "0")
    assert "evicted by" not in result.output
    assert "1st of 2 pending in ClusterQueue q" in result.output
