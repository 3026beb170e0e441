"""`kadmit admit` / `why` on a Kueue configuration that loops: a warning and exit 3."""

import json

from engine.test_loops import LOOP_YAML, _wl


def test_cli_exits_3_with_a_warning_naming_workloads_and_rule(run):
    run.write("loop.yaml", LOOP_YAML + _wl("big0", "lq0", 4, 1) + _wl("big1", "lq1", 4, 10)
              + _wl("small", "lq1", 1, 11))
    r = run("admit", "loop.yaml")
    assert r.exit_code == 3, r.output
    assert "warning[KAD535]: preemption loop" in r.output
    assert "preemption.withinClusterQueue: LowerOrNewerEqualPriority" in r.output
    assert "loop.yaml:" in r.output  # the setting's line
    assert r.output.count("preempts `default/small`") == 1
    j = json.loads(run("admit", "loop.yaml", "--format", "json").output)
    assert j["loops"][0]["workloads"] == ["default/big0", "default/big1", "default/small"]
    w = run("why", "default/small", "loop.yaml")
    assert w.exit_code == 3 and "KAD535" in w.output
