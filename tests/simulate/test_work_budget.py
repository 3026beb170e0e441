"""A replay's work budget (`simulate --budget`, KAD717, docs/LIMITS.md): each event decides its part's
pending workloads again, so a backlog costs the product of its size and the events; past the budget
the replay stops, says where (exit 3), and what it shows is the same replay cut short."""

import json

from click.testing import CliRunner
from sim_helpers import write_trace

from kadmit import api
from kadmit.cli import cli


def _backlog(tmp_path) -> str:
    # one workload runs at a time (4 cpu of 4) for 1,000 s; 300 arrive a second apart and wait, and each
    # finish decides the ones still waiting again: ~45,000 decided in all
    return write_trace(tmp_path, [f"{i},a,w{i:03d},lq,low,1,1000,4" for i in range(300)])


def _admitted(result: dict, until: float) -> list:
    return sorted((w["workload"], w["admitted_at"]) for w in result["workloads"]
                  if w["admitted_at"] is not None and w["admitted_at"] <= until)


def test_a_backlog_past_the_budget_stops_the_replay_there(policy, tmp_path):
    trace = _backlog(tmp_path)
    whole = api.simulate([policy], trace=trace)
    assert whole.exit_code == 0 and "stopped" not in whole.result["summary"]
    short = api.simulate([policy], trace=trace, work_budget=5_000)
    longer = api.simulate([policy], trace=trace, work_budget=20_000)
    assert (short.exit_code, longer.exit_code) == (3, 3)
    a, b = short.result["summary"]["stopped"], longer.result["summary"]["stopped"]
    assert 5_000 < a["work"] < 20_000 < b["work"] and a["at"] < b["at"] < whole.result["summary"]["end"]
    assert [d.code for d in short.diagnostics if d.code == "KAD717"] == ["KAD717"]
    assert f"stopped at {a['at']:g} s" in next(d.message for d in short.diagnostics if d.code == "KAD717")
    # the same replay cut short: what happened before the first stop happened in both
    assert _admitted(short.result, a["at"]) == _admitted(longer.result, a["at"]) == _admitted(whole.result, a["at"])
    assert short.result["summary"]["end"] == a["at"] and _admitted(short.result, a["at"])[-1][1] == a["at"]


def test_the_command_line_and_a_sweep_take_the_budget(policy, tmp_path):
    trace = _backlog(tmp_path)
    got = CliRunner().invoke(cli, ["simulate", policy, "--trace", trace, "--budget", "5000", "--format", "json"])
    assert got.exit_code == 3 and "error[KAD717]" in got.output
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("grid:\n  - set: {cluster_queue: q, flavor: default, resource: cpu, field: nominal}\n"
                     "    values: [4, 4000]\n")
    out = api.sweep([policy], str(sweep), trace=trace, workers=1, work_budget=5_000)
    rows = {r["variant"]: r for r in out.result["variants"]}
    assert out.exit_code == 3 and [d.code for d in out.diagnostics] == ["KAD717"]
    assert "stopped" in rows["base q.default.cpu.nominal=4"] and "stopped" not in rows["base q.default.cpu.nominal=4000"]
    json.dumps(out.result)
