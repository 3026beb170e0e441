"""A fix's side effect on a workload that only changes nodes names the nodes, before and after;
otherwise the text stays at queue, counts and flavors."""

from kadmit.engine.explain.replay import Effect, State

SETS = (("workers", 3, (("nvidia.com/gpu", "a100"),)),)


def _state(nodes: tuple[str, ...]) -> State:
    return State(True, "team-vision", SETS, (("workers", tuple((n, 1) for n in nodes)),))


def test_moved_between_nodes_names_them():
    e = Effect("team-vision/vit-train", _state(("n0", "n1", "n2")), _state(("n1", "n2", "n3")))
    assert e.kind == "on other nodes" and e.nodes_only
    d = e.as_dict()
    assert d["before"] == "admitted to team-vision (workers: 3 pods on a100, nodes n0, n1, n2)"
    assert d["after"] == "admitted to team-vision (workers: 3 pods on a100, nodes n1, n2, n3)"
    assert d["before"] != d["after"]


def test_other_effects_leave_nodes_out():
    before = _state(("n0", "n1", "n2"))
    after = State(True, "team-vision", (("workers", 2, (("nvidia.com/gpu", "a100"),)),),
                  (("workers", (("n0", 1), ("n1", 1))),))
    e = Effect("team-vision/vit-train", before, after)
    assert e.kind == "with fewer pods" and not e.nodes_only
    assert e.as_dict()["after"] == "admitted to team-vision (workers: 2 pods on a100)"
    assert not Effect("x/y", State(False), before).nodes_only
