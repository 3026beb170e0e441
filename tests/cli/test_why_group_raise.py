"""`why` offers a raise of the quota its blame names even where that raise alone admits nothing:
raised, the workload's other resources of the flavor run short (what is queued ahead of it goes first
and takes them), so its queue's quotas in that flavor are raised together (issue 19: gpu_state(2000)'s
team-04/train-01071 got only a priority change though its blame names its queue's GPU quotas)."""

from __future__ import annotations

import json

POLICY = """\
flavor f {}
priority mid = 100 default
namespace t {}
cluster_queue q {
  resources cpu, nvidia.com/gpu {
    flavor f { cpu = 8  nvidia.com/gpu = 2 }
  }
}
local_queue t/lq -> q
workload t/held {
  queue = lq
  created = "2026-11-20T08:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 2  nvidia.com/gpu = 2 }
  }
  admitted {
    cluster_queue = q
    pod_group main {
      count = 1
      flavor = f
    }
  }
}
workload t/ahead {
  queue = lq
  created = "2026-11-20T08:01:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4  nvidia.com/gpu = 1 }
  }
}
workload t/mine {
  queue = lq
  created = "2026-11-20T08:02:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4  nvidia.com/gpu = 1 }
  }
}
"""


def test_the_blamed_quota_is_raised_with_the_flavors_other_resources(run):
    run.write("p.kad", POLICY)
    result = run("why", "t/mine", ".", "--fixes", "6", "--format", "json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    # the blame names the GPU quota, not the cpu one
    assert [b["id"] for b in out["cores"][0] if b["id"].startswith("quota|")] == ["quota|cq:q|f|nvidia.com/gpu|nominal"]
    quota = [f for f in out["fixes"] if f["by"] == "platform"]
    assert len(quota) == 1, out["fixes"]
    assert [(c["field"], c["old"], c["new"]) for c in quota[0]["changes"]] == [
        ("`cpu` in flavor `f`", "8", "16"), ("`nvidia.com/gpu` in flavor `f`", "2", "4")]
    assert "(together: no raise of its `nvidia.com/gpu` quota in `f` alone was found to admit it)" in quota[0]["message"]
    assert quota[0]["outcome"]["admitted"] is True


def test_the_gpu_raise_alone_admits_nothing_and_the_pair_does(run):
    """What the fix's note claims, checked by deciding the edited input: no raise of the GPU quota
    alone admits it (the one ahead takes the cpu), the raise of both does."""
    for gpu, cpu, admitted in ((4, 8, False), (100, 8, False), (4, 16, True)):
        run.write("p.kad", POLICY.replace("cpu = 8  nvidia.com/gpu = 2", f"cpu = {cpu}  nvidia.com/gpu = {gpu}"))
        decided = json.loads(run("admit", ".", "--format", "json").output)["decisions"]
        assert {d["workload"]: d["admitted"] for d in decided}["t/mine"] is admitted, (gpu, cpu)


def test_nothing_changes_where_a_raise_alone_admits_it(run):
    run.write("p.kad", POLICY.replace("cpu = 8  nvidia.com/gpu = 2", "cpu = 16  nvidia.com/gpu = 2"))
    out = json.loads(run("why", "t/mine", ".", "--fixes", "6", "--format", "json").output)
    quota = [f for f in out["fixes"] if f["by"] == "platform"]
    assert [[(c["field"], c["new"]) for c in f["changes"]] for f in quota] == [[("`nvidia.com/gpu` in flavor `f`", "4")]]
    assert "alone was found" not in json.dumps(out["fixes"])


def test_behind_a_strict_fifo_head_too(run):
    """gpu_state(2000)'s StrictFIFO keys (team-00/train-00930, team-05/train-00300) got no fix at all:
    the head and the rest ahead of it go first with the room the raise makes."""
    run.write("p.kad", POLICY.replace("cluster_queue q {", "cluster_queue q {\n  queueing = strict_fifo"))
    out = json.loads(run("why", "t/mine", ".", "--fixes", "6", "--format", "json").output)
    quota = [f for f in out["fixes"] if f["by"] == "platform"]
    assert [[(c["field"], c["new"]) for c in f["changes"]] for f in quota] == [
        [("`cpu` in flavor `f`", "16"), ("`nvidia.com/gpu` in flavor `f`", "4")]]
    assert quota[0]["outcome"]["admitted"] is True


def test_a_fix_changing_one_objects_values_names_it_and_its_file_once(run):
    """Issue 19: a fix of several quotas of one queue's flavor is said in a few short lines (the queue,
    flavor and file once, each change with its line), not one line repeating them for every change."""
    run.write("p.kad", POLICY)
    out = run("why", "t/mine", ".", "--fixes", "6").output
    lines = out.splitlines()
    at = next(i for i, x in enumerate(lines) if "change all 2" in x)
    assert lines[at] == ("  2. change all 2 of cluster_queue `q`, flavor `f`, in p.kad: `cpu`: 8 → 16 (:6), "
                         "`nvidia.com/gpu`: 2 → 4 (:6)")
    assert lines[at + 1].startswith("     then admitted")
    assert sum(x.count("p.kad") for x in lines[at:at + 2]) == 1
    # why the two go together is one flag away, and said so
    assert lines[-1].startswith("   = note: ") and "`--all`: " in lines[-1] and "each fix in full" in lines[-1]
    full = run("why", "t/mine", ".", "--fixes", "6", "--all").output.splitlines()
    assert full[next(i for i, x in enumerate(full) if "change all 2" in x)] == (
        "  2. change all 2 of cluster_queue `q`, flavor `f`, in p.kad (together: no raise of its "
        "`nvidia.com/gpu` quota in `f` alone was found to admit it):")


def test_the_same_fix_on_kueue_manifests_names_the_clusterqueue_flavor_and_file_once(run):
    """The manifest form: each change its field and line within `ClusterQueue `q`, flavor f`; the JSON
    keeps every change's whole path."""
    run.write("p.kad", POLICY)
    assert run("export", "p.kad", "-o", "y", "--workloads").exit_code == 0
    (run.root / "p.kad").unlink()
    lines = run("why", "t/mine", "y", "--fixes", "6").output.splitlines()
    at = next(i for i, x in enumerate(lines) if "change all 2" in x)
    # the field all the changes change, said once (`--all`: with each)
    assert lines[at] == ("  2. change all 2 nominalQuota of ClusterQueue `q`, flavor f, in y/07-cluster-queues.yaml: "
                         "cpu: '8' → '16' (:25), nvidia.com/gpu: '2' → '4' (:27)")
    full = run("why", "t/mine", "y", "--fixes", "6", "--all").output.splitlines()
    at = next(i for i, x in enumerate(full) if "change all 2" in x)
    assert full[at + 1] == "       cpu nominalQuota: '8' → '16' (:25), nvidia.com/gpu nominalQuota: '2' → '4' (:27)"
    out = json.loads(run("why", "t/mine", "y", "--fixes", "6", "--format", "json").output)
    quota = [f for f in out["fixes"] if f["by"] == "platform"]
    assert [c["field"] for c in quota[0]["changes"]] == [
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
        "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota"]
