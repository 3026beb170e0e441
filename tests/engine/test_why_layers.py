"""`why`'s topology view of a pod set placed in slices counts what Kueue places — whole slices, made of whole
groups of each inner layer's size (TASMultiLayerTopology) — not pods, and says which layer refuses, with the
numbers of Kueue's multiLayerNotFitMessage (explain/placement_layers.py). The oracle's words for both cases are
their reasons (tests/oracle/test_admit.py decides them)."""

from __future__ import annotations

from kadmit import api
from kadmit.render.why import why_dict, why_human

FEATURES = "tests/oracle/features/"


def _why(key: str, case: str):
    out = api.why(key, [FEATURES + case], fixes=0)
    assert out.result is not None and out.result.placement is not None
    return out.result, why_human(out.result, out.loaded.sources, None, None)


def test_an_inner_layer_that_does_not_fit_is_named_with_its_numbers():
    r, text = _why("ns/w", "feature-gate-tas-multi-layer-topology-on-inner-layer-does-not-fit.yaml")
    # each rack's hosts fit 3 and 1 pods: counted in pods both racks hold 4; in groups of 2 per host, 2
    assert ("topology: required rack, in 1 slice(s) of 4 pods per rack, groups of 2 per host: no rack has room for "
            "1 slice(s); best rack r0: 0/1 slice(s) of 4 fit on level rack; 1/2 slice(s) of 2 fit on level host; "
            "the host layer refuses: r0's hosts hold 1 of the 2 slice(s) of 2 needed (they fit 3 and 1 pods)") in text
    assert "racks, most room first: r0 fits 0 slice(s) of 4, r1 fits 0 slice(s) of 4" in text
    assert "but Kueue places whole slices (above)" in text
    p = why_dict(r)["placement"]
    assert p["unit"] == "slice(s) of 4" and [d["fits"] for d in p["domains"]] == [0, 0]


def test_one_layer_of_slices_is_counted_in_slices():
    _, text = _why("ns/pos", "tas-slices-that-dont-fit-as-kueue-counts-them.yaml")
    assert "required rack, in 3 slice(s) of 2 pods per host: no rack has room for 3 slice(s)" in text
    assert "racks, most room first: r0 fits 1 slice(s) of 2" in text


def test_pods_without_slices_are_counted_in_pods():
    r, text = _why("team/host-too-big", "pod-set-group-tas-required-host.yaml")
    assert "hosts, most room first: n3 fits 3, n2 fits 2, n1 fits 0" in text
    assert why_dict(r)["placement"]["unit"] == "pods"
