"""A topology-aware flavor whose Topology is not defined keeps its ClusterQueue inactive, as Kueue's
cache does (TopologyNotFound): nothing is admitted there, and why says so
(tests/oracle/features/tas-missing-topology.yaml is decided by Kueue's own code too)."""

from __future__ import annotations

from pathlib import Path

from kadmit import workspace
from kadmit.engine.decide import admit, why

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "tas-missing-topology.yaml"


def test_a_flavor_without_its_topology_keeps_the_queue_inactive():
    model = workspace.load([str(CASE)]).model
    [d] = admit(model).decisions
    assert not d.admitted
    r = why(model, d.key)
    assert any('there is no Topology "dc" for TAS flavor "f0"' in x.message for x in r.reasons)
    with_topology = model.model_copy(update={"flavors": tuple(f.model_copy(update={"topology": None})
                                                             for f in model.flavors)})
    assert [d.admitted for d in admit(with_topology).decisions] == [True]
