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
    assert out.exit_code == 2 and [d.code for d in out.diagnostics] == ["KAD705"]
