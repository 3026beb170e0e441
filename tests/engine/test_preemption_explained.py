"""Preemption as users meet it: admit output and why for preemptors, victims and "no preemption"."""

from __future__ import annotations

from reference.builders import admitted, build, fq, group, pod_set, workload
from reference.test_preemption import cqp

from kadmit.engine.decide import admit, why
from kadmit.render.decisions import admit_dict


def gpu_job(name, gpus, priority, minute=0, queue="q"):
    return workload(name, pod_set(gpu=gpus), queue=queue, priority=priority, minute=minute)


def running_job(name, gpus, priority, queue="q"):
    return admitted(gpu_job(name, gpus, priority, queue=queue), queue, {"gpu": "f"})


def test_a_high_priority_gang_evicts_lower_priority_work_in_its_queue_and_says_so():
    m = build(cqp("q", group(fq("f", gpu=16)), within="LowerPriority"),
              running_job("low-a", 8, 0), running_job("low-b", 8, 0), gpu_job("urgent", 8, 100))
    out = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    assert out["default/urgent"]["admitted"]
    assert [v["reason"] for v in out["default/urgent"]["preempted"]] == ["InClusterQueue"]
    victim = out["default/urgent"]["preempted"][0]["workload"]
    assert out[victim]["admitted"] is False and out[victim]["preempted_by"] == "default/urgent"
    # requeued and tried again in a later cycle: Kueue's QuotaReserved=False message is that try's
    # (tests/oracle/features/preemption-fits-keeps-flavor.yaml, tie-victims-with-one-uid.yaml)
    assert out[victim]["reasons"][0] == {"code": "KAD510", "message": "couldn't assign flavors to pod set main: "
                                         "insufficient unused quota for nvidia.com/gpu in flavor f, 8 more needed"}
    w = why(m, victim)  # the same reasons, then who evicted it and under which policy
    assert [(r.code, r.message) for r in w.reasons[:2]] == [(r["code"], r["message"]) for r in out[victim]["reasons"]]
    assert [r.code for r in w.reasons[2:]] == ["KAD531", "KAD531"]
    assert w.reasons[2].message.startswith("Preempted to accommodate a workload") and w.reasons[2].message.endswith(
        "due to prioritization in the ClusterQueue; preemptor path: /q; preemptee path: /q (preempted by default/urgent)")
    assert w.reasons[3].message == ("same ClusterQueue, withinClusterQueue: LowerPriority (priority 100 over 0); "
                                    "`default/urgent` (priority 100) needed the quota")
    assert w.standing is not None and w.standing.evicted_by == "default/urgent"
    assert [o.kind for o in w.blame] == ["nominal", "usage", "usage"]  # what keeps it out now: fixes reach it
    w = why(m, "default/urgent")
    assert w.admitted and any(f"it preempted {victim}" in r.message for r in w.reasons)


def test_policy_never_means_no_preemption_and_why_says_what_the_policies_allow():
    m = build(cqp("q", group(fq("f", gpu=16))), running_job("low-a", 8, 0), running_job("low-b", 8, 0),
              gpu_job("urgent", 8, 100))
    out = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    assert not out["default/urgent"]["admitted"] and out["default/urgent"]["preempted"] == []
    codes = [r["code"] for r in out["default/urgent"]["reasons"]]
    assert "KAD533" in codes
    text = next(r["message"] for r in out["default/urgent"]["reasons"] if r["code"] == "KAD533")
    assert text == ("needs 8 more nvidia.com/gpu in flavor f, but ClusterQueue q's preemption policies "
                    "(withinClusterQueue Never, reclaimWithinCohort Never) allow evicting no admitted workload")


def test_evicting_every_candidate_is_not_enough_so_nothing_is_evicted():
    m = build(cqp("q", group(fq("f", gpu=16)), within="LowerPriority"),
              running_job("low", 4, 0), running_job("peer", 12, 100), gpu_job("big", 12, 100))
    out = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    assert not out["default/big"]["admitted"] and out["default/big"]["preempted"] == []
    assert "default/low" not in out  # never evicted in vain
    text = next(r["message"] for r in out["default/big"]["reasons"] if r["code"] == "KAD533")
    assert "frees 4" in text and "needs 12 more nvidia.com/gpu" in text


def test_why_in_optimal_mode_says_where_the_victims_differ():
    # Kueue takes the two small lower-priority workloads (most recently admitted first); the
    # optimal assignment evicts the one workload that frees enough
    m = build(cqp("q", group(fq("f", gpu=16)), within="LowerPriority"),
              running_job("big-low", 8, 0), running_job("small-a", 4, 0), running_job("small-b", 4, 0),
              gpu_job("urgent", 8, 100))
    ordered = {d["workload"]: d for d in admit_dict(admit(m))["decisions"]}
    optimal = {d["workload"]: d for d in admit_dict(admit(m, mode="optimal"))["decisions"]}
    o_victims = sorted(v["workload"] for v in ordered["default/urgent"]["preempted"])
    p_victims = sorted(v["workload"] for v in optimal["default/urgent"]["preempted"])
    assert len(p_victims) <= len(o_victims)
    w = why(m, "default/urgent", mode="optimal")
    note = next(r.message for r in w.reasons if r.code == "KAD534")
    assert note.startswith("optimal mode (proven optimal) admits it too")
    if p_victims != o_victims:
        assert f"its victims: optimal {', '.join(p_victims)}, ordered {', '.join(o_victims)}" in note
