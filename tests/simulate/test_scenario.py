"""A replay checked event by event against a scenario computed by hand."""

from sim_helpers import write_trace

import pytest

from kadmit import api


@pytest.mark.parametrize("mode", ["ordered", "optimal"])
def test_hand_computed_preemption_and_restart(policy, tmp_path, mode):
    # q has 4 cpu. w1 (2 cpu, 10 s) and w2 (2 cpu, 5 s) start at 0; w3 (2 cpu, 3 s) arrives at 1
    # and waits until w2 finishes at 5; w4 (4 cpu, high priority, 2 s) arrives at 6 and evicts
    # both w1 and w3 (lower priority, in its queue), runs 6-8; then w1 (older) and w3 restart at 8
    # from the beginning: w1 finishes at 18, w3 at 11.
    trace = write_trace(tmp_path, ["0,a,w1,lq,low,1,10,2", "0,a,w2,lq,low,1,5,2", "1,a,w3,lq,low,1,3,2",
                                   "6,a,w4,lq,high,1,2,4"])
    out = api.simulate([policy], trace=trace, mode=mode)
    assert out.exit_code == 0, out.diagnostics
    got = {w["workload"]: (w["arrived"], w["admitted_at"], w["finished_at"], w["evictions"], w["wait"])
           for w in out.result["workloads"]}
    assert got == {
        "a/w1": (0.0, 8.0, 18.0, [{"at": 6.0, "admitted_at": 0.0}], 2.0),
        "a/w2": (0.0, 0.0, 5.0, [], 0.0),
        "a/w3": (1.0, 8.0, 11.0, [{"at": 6.0, "admitted_at": 5.0}], 6.0),
        "a/w4": (6.0, 6.0, 8.0, [], 0.0),
    }
    s = out.result["summary"]
    assert (s["makespan"], s["admitted"], s["never_admitted"], s["evictions"]) == (18.0, 4, 0, 2)
    q = out.result["queues"][0]
    assert (q["name"], q["admitted"], q["preemptions"], q["wait_max"]) == ("q", 4, 2, 6.0)
    # 4 cpu busy 0-6 and 6-8, 4 cpu 8-11, 2 cpu 11-18: (24 + 8 + 12 + 14) / 18 cpu on average
    usage = q["usage"][0]
    assert (usage["flavor"], usage["resource"], usage["max"]) == ("default", "cpu", "4")
    assert usage["mean"] == "3222m"


def test_never_admitted_says_why(policy, tmp_path):
    trace = write_trace(tmp_path, ["0,a,big,lq,low,1,10,8"])
    out = api.simulate([policy], trace=trace)
    (w,) = out.result["workloads"]
    assert w["admitted_at"] is None and w["reason"].startswith("KAD511")
    assert out.result["summary"]["never_admitted"] == 1


def test_bad_trace_is_refused_with_its_line(policy, tmp_path):
    trace = write_trace(tmp_path, ["0,a,w1,lq,low,1,10,2", "x,a,w2,lq,low,1,5,2", "0,a,w3,nope,low,1,5,2"])
    out = api.simulate([policy], trace=trace)
    assert out.exit_code == 2 and out.result is None
    found = {(d.code, d.span.line) for d in out.diagnostics if d.code.startswith("KAD7")}
    assert ("KAD701", 3) in found and ("KAD704", 4) in found


def test_pods_without_a_queue_wait_without_blocking(tmp_path):
    """kube-scheduler alone: priority, then arrival; a pod that fits nowhere waits and the ones
    behind it that fit are bound (LeastAllocated spreads them)."""
    cluster = tmp_path / "nodes.kad"
    cluster.write_text("".join(f'node n{i} {{ allocatable = {{ cpu = 4, pods = 110 }} }}\n' for i in range(2)))
    trace = tmp_path / "trace.csv"
    trace.write_text("time,namespace,name,queue,priority,pods,duration,cpu\n"
                     "0,a,big,,0,1,10,8\n0,a,p1,,0,2,10,1\n5,a,p2,,100,1,10,3\n5,a,p3,,0,1,10,3\n"
                     "5,a,p4,,50,1,10,3\n")
    out = api.simulate([str(cluster)], trace=str(trace))
    w = {x["workload"]: x for x in out.result["workloads"]}
    assert w["a/big"]["admitted_at"] is None  # 8 cpu fits no node; it blocks nothing
    assert w["a/p1"]["pod_sets"][0]["placement"] == {"n0": 1, "n1": 1}  # LeastAllocated spreads
    # at 5 each node has 3 cpu free: p2 and p4 (higher priority) take them, p3 waits until they end
    assert (w["a/p2"]["admitted_at"], w["a/p4"]["admitted_at"], w["a/p3"]["admitted_at"]) == (5.0, 5.0, 15.0)
    assert w["a/p3"]["finished_at"] == 25.0


def test_json_lines_with_rfc3339_times_read_as_csv(policy, tmp_path):
    rows = [("00", "w1", "low", 10, 2), ("00", "w2", "low", 5, 2), ("01", "w3", "low", 3, 2), ("06", "w4", 100, 2, 4)]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(
        f'{{"time": "2026-01-01T00:00:{s}Z", "namespace": "a", "name": "{n}", "queue": "lq", "priority": '
        f'{p if isinstance(p, int) else chr(34) + p + chr(34)}, "pods": 1, "duration": "{d}s", "cpu": "{c}"}}\n'
        for s, n, p, d, c in rows))
    out = api.simulate([policy], trace=str(trace))
    assert out.exit_code == 0, out.diagnostics
    assert out.result["summary"]["start"] == "2026-01-01T00:00:00.000Z"
    got = {w["workload"]: (w["admitted_at"], w["finished_at"]) for w in out.result["workloads"]}
    assert got == {"a/w1": (8.0, 18.0), "a/w2": (0.0, 5.0), "a/w3": (8.0, 11.0), "a/w4": (6.0, 8.0)}


def test_cycle_latency_holds_decisions_to_the_cycle(policy, tmp_path):
    # Decisions only at 0, 4, 8, 12 …: w3 (arrives 1) is tried at 4 and doesn't fit; w2 ends at 5;
    # at 8 w4 (high) evicts w1 and runs 8-10; at 12 w1 and w3 start again.
    trace = write_trace(tmp_path, ["0,a,w1,lq,low,1,10,2", "0,a,w2,lq,low,1,5,2", "1,a,w3,lq,low,1,3,2",
                                   "6,a,w4,lq,high,1,2,4"])
    out = api.simulate([policy], trace=trace, cycle_latency="4s")
    got = {w["workload"]: (w["admitted_at"], w["finished_at"], w["evictions"], w["wait"])
           for w in out.result["workloads"]}
    assert got == {
        "a/w1": (12.0, 22.0, [{"at": 8.0, "admitted_at": 0.0}], 4.0),
        "a/w2": (0.0, 5.0, [], 0.0),
        "a/w3": (12.0, 15.0, [], 11.0),
        "a/w4": (8.0, 10.0, [], 2.0),
    }


def test_preemption_takes_the_most_recently_admitted_across_instants(policy, tmp_path):
    # q has 4 cpu: w0 and w1 (1 cpu each) are admitted at 0, w2 (2 cpu) at 1; h (high priority,
    # 1 cpu) arrives at 2 and preempts one workload: Kueue's candidate order takes the most
    # recently admitted first, w2, although the engine admitted each in the first cycle of its call.
    trace = write_trace(tmp_path, ["0,a,w0,lq,low,1,100,1", "0,a,w1,lq,low,1,100,1", "1,a,w2,lq,low,1,100,2",
                                   "2,a,h,lq,high,1,5,1"])
    out = api.simulate([policy], trace=trace)
    evicted = {w["workload"]: [e["at"] for e in w["evictions"]] for w in out.result["workloads"]}
    assert evicted == {"a/w0": [], "a/w1": [], "a/w2": [2.0], "a/h": []}
