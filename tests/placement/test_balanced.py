"""Kueue's balanced placement (gate TASBalancedPlacement), `placement.balanced` through `tas.kueue_assign` and
`tas_group.kueue_assign_group`: each branch of tas_balanced_placement.go on small trees; the oracle cases
tests/oracle/features/feature-gate-tas-balanced-placement-on*.yaml check the same against Kueue itself."""

from __future__ import annotations

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.tas import kueue_assign
from kadmit.placement.tas_group import kueue_assign_group

from .builders import DC, HOST, RACK, node, template

BLOCK_LEVEL = DC.levels[0]


def tree(*hosts: tuple[str, str, str, int]):
    return build_domains(DC, build_inventory([node(h, block=b, rack=r, gpu=g) for h, b, r, g in hosts], []).nodes)


TWO_RACKS = (("h1", "b1", "r1", 4), ("h2", "b1", "r1", 4), ("h3", "b1", "r2", 2), ("h4", "b1", "r2", 2))


def test_pods_spread_evenly_by_the_threshold():
    t, req = tree(*TWO_RACKS), TopologyRequest(mode="preferred", level=RACK)
    assert kueue_assign(t, template(gpu=1), 6, req, balanced=True).placement == {"h1": 3, "h2": 3}
    assert kueue_assign(t, template(gpu=1), 6, req).placement == {"h1": 4, "h2": 2}  # BestFit
    for mode in ("required", "unconstrained"):  # only a preferred pod set is balanced
        other = TopologyRequest(mode=mode, level=None if mode == "unconstrained" else RACK)
        assert kueue_assign(t, template(gpu=1), 6, other, balanced=True) == kueue_assign(t, template(gpu=1), 6, other)


def test_no_threshold_falls_back_to_best_fit():
    t = tree(("h1", "b0", "r1", 4), ("h2", "b0", "r1", 4), ("h3", "b1", "r2", 4))  # no block holds 10
    req = TopologyRequest(mode="preferred", level=RACK)
    got = kueue_assign(t, template(gpu=1), 10, req, balanced=True)
    assert got == kueue_assign(t, template(gpu=1), 10, req) and got.placement == {"h1": 4, "h2": 4, "h3": 2}


def test_a_leader_takes_the_first_domain_and_the_threshold():
    t, req = tree(("h1", "b1", "r1", 6), ("h2", "b1", "r1", 6), ("h3", "b1", "r2", 2)), \
        TopologyRequest(mode="preferred", level=RACK)
    got = kueue_assign_group(t, template(gpu=1), 8, req, template(gpu=1), balanced=True)
    assert (got.leader.placement, got.workers.placement) == ({"h1": 1}, {"h1": 4, "h2": 4})
    off = kueue_assign_group(t, template(gpu=1), 8, req, template(gpu=1))
    assert off.workers.placement == {"h1": 5, "h2": 3}


def test_slices_spread_over_the_fewest_racks():
    t = tree(("h1", "b1", "r1", 4), ("h2", "b1", "r1", 2), ("h3", "b1", "r2", 4), ("h4", "b1", "r2", 2),
             ("h5", "b1", "r3", 2))
    req = TopologyRequest(mode="preferred", level=BLOCK_LEVEL, slice_level=HOST, slice_size=2)
    got = kueue_assign(t, template(gpu=1), 8, req, balanced=True)
    assert got.placement == {"h1": 4, "h3": 4} and got.level == RACK and got.domains == ("b1/r1", "b1/r2")
    assert kueue_assign(t, template(gpu=1), 8, req).placement == {"h1": 4, "h2": 2, "h5": 2}


def test_slices_at_the_preferred_level_prune_every_child():
    # below the slice level Kueue's sliceStateWithLeader is 0: pruneDomainsBelowThreshold clears every host
    t = tree(("h1", "b1", "r1", 4), ("h2", "b1", "r1", 4), ("h3", "b1", "r2", 4))
    req = TopologyRequest(mode="preferred", level=RACK, slice_level=RACK, slice_size=2)
    got = kueue_assign(t, template(gpu=1), 4, req, balanced=True)
    assert got.reason == "TAS Balanced Placement: Cannot find optimal domain set to fit the request"
    assert kueue_assign(t, template(gpu=1), 4, req).placement == {"h3": 4}


def test_tied_parents_take_the_first_in_level_value_order():  # Kueue: Go's map order (§1)
    t = tree(("h1", "b1", "r1", 3), ("h2", "b1", "r1", 3), ("h3", "b1", "r2", 3), ("h4", "b1", "r2", 3))
    got = kueue_assign(t, template(gpu=1), 4, TopologyRequest(mode="preferred", level=HOST), balanced=True)
    assert got.placement == {"h1": 2, "h2": 2}


def test_inner_slice_layers_count_at_first_and_not_in_the_pruning():
    # feature-gate-tas-balanced-placement-on-multi-layer.yaml: Kueue admits 28 pods with 12 placed (r00's hosts hold
    # 7 groups of 2 of the 8 the unrounded pruning gave it, so the descent gives r00 none)
    t = tree(("h000", "b0", "r00", 3), ("h001", "b0", "r00", 5), ("h002", "b0", "r00", 8), ("h100", "b1", "r10", 6),
             ("h200", "b2", "r20", 8), ("h201", "b2", "r20", 2), ("h202", "b2", "r20", 5))
    req = TopologyRequest(mode="preferred", level=BLOCK_LEVEL, slice_level=RACK, slice_size=4,
                          layers=((RACK, 4), (HOST, 2)))
    assert kueue_assign(t, template(gpu=1), 28, req, balanced=True).placement == {"h200": 6, "h201": 2, "h202": 4}
    assert sum(kueue_assign(t, template(gpu=1), 28, req).placement.values()) == 28


def _select_optimal_as_go_writes_it(domains, slice_count, leader_count, size):
    """selectOptimalDomainSetToFit's table as tas_balanced_placement.go fills it (every row, every key, a copied
    list per entry tried): the reference `balanced._optimal`'s faster table must agree with."""
    from kadmit.placement.balanced import _greedy
    fits, optimal, _, _ = _greedy(domains, slice_count, leader_count)
    if not fits:
        return None
    table = [{} for _ in range(optimal + 1)]
    table[0][leader_count] = {slice_count * size: []}
    for d in domains:
        for i in range(optimal, 0, -1):
            for before_leader in sorted(table[i - 1]):
                for before_state in sorted(table[i - 1][before_leader]):
                    if before_leader <= 0 and before_state <= 0:
                        continue
                    placement = [*table[i - 1][before_leader][before_state], d]
                    if before_leader > 0 and d.leader > 0:
                        table[i].setdefault(before_leader - d.leader, {}).setdefault(
                            before_state - d.with_leader, placement)
                    if d.slice_state > 0:
                        table[i].setdefault(before_leader, {}).setdefault(before_state - d.state, placement)
    over = [left for left in table[optimal].get(0, {}) if left <= 0]
    return table[optimal][0][max(over)] if over else None


def test_the_optimal_domain_set_is_the_one_gos_table_finds():
    """`_optimal` links the entries it keeps and leaves out rows no entry can reach the last from (fewer domains
    left than picks): 1,000 pods on 400 hosts went from 1.5 s to 0.15 s (bench/balanced_bench.py); the same set."""
    import random

    from kadmit.placement.balanced import _B, _optimal
    rng = random.Random(7)
    found = 0
    for _ in range(800):
        size = rng.choice((1, 1, 2, 3))
        domains = []
        for k in range(rng.randint(1, 12)):
            slices = rng.randint(0, 6)
            state = slices * size + rng.randint(0, size - 1)
            domains.append(_B((f"d{k:02d}",), None, [], state, slices, max(0, state - rng.randint(0, 2)),
                              max(0, slices - rng.randint(0, 1)), rng.choice((0, 0, 1, 2))))
        slice_count, leaders = rng.randint(0, 24), rng.choice((0, 0, 1, 2))
        want = _select_optimal_as_go_writes_it(domains, slice_count, leaders, size)
        got = _optimal(domains, slice_count, leaders, size, False)
        assert got == want, (domains, slice_count, leaders)
        found += got is not None
    assert found > 450
