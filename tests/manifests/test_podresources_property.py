"""The pod set's requests the manifest front end computes while reading (with the places that
decided them) equal Kueue's adjustment with no LimitRange or RuntimeClass (`kadmit.podresources`,
which the LimitRanges' and RuntimeClasses' adjustment recomputes from): two readings of one rule."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.podresources import adjust, pod_requests

RESOURCES = ("cpu", "memory", "example.com/gpu")
quantities = st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 5).map(str), max_size=3)
container = st.fixed_dictionaries({"requests": quantities, "limits": quantities, "sidecar": st.booleans()})


def _container(i: int, c: dict, init: bool) -> dict:
    out = {"name": f"c{i}", "image": "x", "resources": {"requests": c["requests"], "limits": c["limits"]}}
    if init and c["sidecar"]:
        out["restartPolicy"] = "Always"
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(container, min_size=1, max_size=3), st.lists(container, max_size=3), quantities, quantities)
def test_front_end_and_adjustment_agree(containers, inits, overhead, pod_level):
    spec = {"containers": [_container(i, c, False) for i, c in enumerate(containers)],
            "initContainers": [_container(i, c, True) for i, c in enumerate(inits)]}
    if overhead:
        spec["overhead"] = overhead
    if pod_level:
        spec["resources"] = {"requests": pod_level}
    doc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "n"},
           "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}]}}
    diags = Diagnostics()
    frag = read_manifest_text(json.dumps(doc), "w.json", diags)
    (wl,) = frag.workloads
    (ps,) = wl.pod_sets
    assert ps.resources is not None
    assert pod_requests(adjust(ps.resources, [], {})) == ps.requests
