"""The harness's not-read lists: an object one tool lists as of a kind it does not read and the other
skipped (could not take) is read by neither, so the two lists agree on it; one the other read differs.
(MPI Operator's proposal scalable-robust-operator.md, its YAML block at line 184: a Secret with no name
whose `data` is not base64. The oracle decodes it with the API's types and skips it, "illegal base64
data", as the API server refuses it; kadmit does not read Secrets. tests/corpus/upstream holds the case.)"""

from __future__ import annotations

from oracle.harness import compare, from_kadmit, from_oracle

SECRET = {"apiVersion": "v1", "kind": "Secret", "namespace": None, "name": ""}


def _kadmit(skipped_reason: str) -> dict:
    return {"decisions": [], "skipped": [dict(SECRET, reason=skipped_reason)]}


def test_not_read_by_one_and_skipped_by_the_other_agree() -> None:
    kadmit = from_kadmit(_kadmit("kadmit does not read this kind"))
    kueue = from_oracle({"decisions": [], "not_read": [], "skipped": [
        dict(SECRET, namespace="default", reason="error decoding from json: illegal base64 data at input byte 7")]})
    assert compare(kadmit, kueue).agree


def test_not_read_by_one_and_read_by_the_other_differ() -> None:
    kadmit = from_kadmit(_kadmit("kadmit does not read this kind"))
    kueue = from_oracle({"decisions": [], "not_read": [], "skipped": []})
    result = compare(kadmit, kueue)
    assert not result.agree and "not read: v1/Secret//" in result.report(kadmit, kueue)


def _config_maps(names: range, **extra) -> list[dict]:
    return [dict({"apiVersion": "v1", "kind": "ConfigMap", "namespace": "team", "name": f"cm-{i:03d}"}, **extra)
            for i in names]


KADMIT_READS_ONLY = "kadmit reads only Kueue's configuration (`controller_manager_config.yaml`) of this kind"


def test_past_the_hundred_kadmit_names_the_oracles_are_those_it_counts() -> None:
    """kadmit names 100 objects of a kind it does not read per kind and file and counts the rest on the next
    one's entry (`more`, since 6a7432a): 150 ConfigMaps are 101 entries, the last counting 49; the oracle names
    all 150. The comparison takes as many of the oracle's unnamed ones as kadmit counted, no more, no fewer."""
    listed = _config_maps(range(101), reason=KADMIT_READS_ONLY)
    listed[-1]["more"] = 49
    kadmit = from_kadmit({"decisions": [], "skipped": listed})
    assert len(kadmit.not_read) == 101 and kadmit.unread_more == {"v1/ConfigMap": 49}
    every = {"decisions": [], "skipped": [], "not_read": _config_maps(range(150), reason="not read")}
    assert compare(kadmit, from_oracle(every)).agree
    fewer = dict(every, not_read=every["not_read"][:149])
    result = compare(kadmit, from_oracle(fewer))
    assert list(result.differ) == ["not read: v1/ConfigMap: 49 more counted"]
    assert result.differ["not read: v1/ConfigMap: 49 more counted"][1].startswith("48 more")
    more = dict(every, not_read=every["not_read"] + _config_maps(range(150, 151), reason="not read"))
    assert list(compare(kadmit, from_oracle(more)).differ) == ["not read: v1/ConfigMap: 49 more counted"]
    # one kadmit named but the oracle did not list still differs by name
    missing = dict(every, not_read=every["not_read"][1:])
    assert "not read: v1/ConfigMap/team/cm-000" in compare(kadmit, from_oracle(missing)).differ


def test_a_hundred_and_fifty_config_maps_agree_with_the_oracle(tmp_path) -> None:
    """The same end to end: kadmit's JSON and the oracle's on 150 ConfigMaps that are not Kueue's."""
    from oracle.harness import both, oracle_binary
    path = tmp_path / "maps.yaml"
    path.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n" + "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i:03d}, namespace: team}}\n"
                            "data: {a: b}\n" for i in range(150)))
    _, k, q = both(oracle_binary(), [str(path)])
    kadmit = from_kadmit(k)
    assert (len(kadmit.not_read), kadmit.unread_more) == (101, {"v1/ConfigMap": 49})
    assert len(from_oracle(q).not_read) == 150
    assert compare(kadmit, from_oracle(q)).agree
