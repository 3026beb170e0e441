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
