"""`why`'s text offers the workload's own queue's raise before a lender's where both are the smallest
class of change and move no other workload (`explain.rank`), and the JSON lists the fixes in the same
order."""

from __future__ import annotations

import json

POLICY = """\
flavor f {}
namespace ns {}
cohort c {}
cluster_queue team-a {
  cohort = c
  resources cpu {
    flavor f { cpu = 4 }
  }
}
cluster_queue team-b {
  cohort = c
  resources cpu {
    flavor f { cpu = 40 lend 20 }
  }
}
local_queue ns/team-a -> team-a
local_queue ns/team-b -> team-b
workload ns/big {
  queue = team-a
  created = "2026-11-20T09:00:00Z"
  pod_group main {
    count = 28
    requests = { cpu = 1 }
  }
}
"""


def test_the_own_queues_raise_is_offered_before_the_lenders(run):
    run.write("p.kad", POLICY)
    text = run("why", "ns/big", ".", "--fixes", "5").output.splitlines()
    fixes = [line for line in text if line[:5].strip().rstrip(".").isdigit() and ". change " in line]
    own = next(i for i, line in enumerate(fixes) if "cluster_queue `team-a`: 4 → 8" in line)
    lender = next(i for i, line in enumerate(fixes) if "cluster_queue `team-b`: 20 → 24" in line)
    assert own < lender, fixes
    heads = [line for line in text if line.startswith(("  by ", "fixes "))]  # the first group in the title
    assert heads == ["fixes by the workload's owner (each proven by deciding the changed input again, ordered mode):",
                     "  by the platform team (quotas, limits, policies, queues, nodes):"]
    out = json.loads(run("why", "ns/big", ".", "--fixes", "5", "--format", "json").output)
    subjects = [c["subject"] for f in out["fixes"] for c in f["changes"]]
    assert subjects.index("cluster_queue `team-a`") < subjects.index("cluster_queue `team-b`")
    assert [f["by"] for f in out["fixes"]][:2] == ["owner", "platform"]
