"""Sweeps: a grid of variants tabulated; the same rows on a process pool, in-process and on a local Ray."""

from sim_helpers import write_trace

from kadmit import api

SWEEP = """
grid:
  - set: {cluster_queue: q, flavor: default, resource: cpu, field: nominal}
    values: [2, 8]
"""


def _rows(out):
    assert out.exit_code == 0, out.diagnostics
    return [{k: v for k, v in r.items() if k != "seconds"} for r in out.result["variants"]]


def test_grid_on_processes_and_ray(policy, tmp_path):
    trace = write_trace(tmp_path, ["0,a,w1,lq,low,1,10,2", "0,a,w2,lq,low,1,5,2", "1,a,w3,lq,low,1,3,2",
                                   "6,a,w4,lq,high,1,2,4"])
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(SWEEP)
    local = _rows(api.sweep([policy], str(sweep), trace=trace, workers=1))
    assert [r["variant"] for r in local] == ["base q.default.cpu.nominal=2", "base q.default.cpu.nominal=8"]
    small, big = local
    assert (small["admitted"], small["never_admitted"]) == (3, 1)  # w4 asks 4 cpu of 2
    assert (big["admitted"], big["evictions"], big["makespan"]) == (4, 0, 10.0)
    assert _rows(api.sweep([policy], str(sweep), trace=trace, workers=2)) == local
    assert _rows(api.sweep([policy], str(sweep), trace=trace, executor="ray", workers=1)) == local


def test_bad_sweep_is_refused(policy, tmp_path):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("grid:\n  - set: {cluster_queue: q}\n    values: [1]\n")
    out = api.sweep([policy], str(sweep))
    assert out.exit_code == 2 and [d.code for d in out.diagnostics] == ["KAD712"]
    assert out.diagnostics[0].span.line == 2 and "has no `flavor`" in out.diagnostics[0].message


def test_variants_take_mode_and_cycle_latency_from_the_command_or_their_own(policy, tmp_path):
    trace = write_trace(tmp_path, ["0,a,w1,lq,low,1,10,2", "0,a,w2,lq,low,1,5,2", "1,a,w3,lq,low,1,3,2",
                                   "6,a,w4,lq,high,1,2,4"])
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("variants:\n  - name: cmd\n  - name: own\n    cycle_latency: 4s\n"
                     "grid:\n  - mode: [ordered, optimal]\n")
    rows = _rows(api.sweep([policy], str(sweep), trace=trace, workers=1, cycle_latency="3s"))
    assert [(r["variant"], r["mode"], r["cycle_latency"]) for r in rows] == [
        ("cmd ordered", "ordered", 3.0), ("cmd optimal", "optimal", 3.0),
        ("own ordered", "ordered", 4.0), ("own optimal", "optimal", 4.0)]
    for r in rows:  # each row is the replay `simulate` gives with the same options
        alone = api.simulate([policy], trace=trace, mode=r["mode"], cycle_latency=f"{r['cycle_latency']:g}s")
        s = alone.result["summary"]
        assert (r["admitted"], r["evictions"], r["makespan"]) == (s["admitted"], s["evictions"], s["makespan"])
    assert rows[0]["makespan"] != rows[2]["makespan"]  # the cycle's beat moves the decisions
    # the command's --mode reaches variants that don't set theirs
    sweep.write_text("variants:\n  - name: cmd\n  - name: own\n    mode: ordered\n")
    rows = _rows(api.sweep([policy], str(sweep), trace=trace, workers=1, mode="optimal"))
    assert [r["mode"] for r in rows] == ["optimal", "ordered"]


def test_bad_mode_or_cycle_latency_is_refused(policy, tmp_path):
    sweep = tmp_path / "sweep.yaml"
    for text in ("variants:\n  - mode: fastest\n", "variants:\n  - cycle_latency: soon\n",
                 "grid:\n  - mode: [ordered, fastest]\n", "grid:\n  - cycle_latency: [1s, later]\n"):
        sweep.write_text(text)
        out = api.sweep([policy], str(sweep))
        assert out.exit_code == 2 and [d.code for d in out.diagnostics] == ["KAD712"], text
        assert out.diagnostics[0].span.line == 2, text  # at the bad value
    sweep.write_text("variants:\n  - name: x\n")
    out = api.sweep([policy], str(sweep), cycle_latency="soon")
    assert out.exit_code == 2 and [d.code for d in out.diagnostics] == ["KAD700"]
