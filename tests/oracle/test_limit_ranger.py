"""Pods the API server's LimitRanger refuses are never created, so Kueue never sees them: kadmit leaves
them out (KAD157, refused alone) before Kueue's job framework composes pod groups, and decides the rest.
The oracle runs no admission plugin, so it is asked about the file without the refused pods; kadmit
about the file as written (tests/kube/test_limit_ranger.py checks the refusals against the real server)."""

from __future__ import annotations

from pathlib import Path

from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle, variants

CASE = "tests/oracle/refused/pod-group-member-refused-by-the-limit-ranger.yaml"
REFUSED = ("group-a-1", "group-b-1", "solo")


def test_a_pod_the_limit_ranger_refuses_is_no_member_of_its_group(kueue_oracle, tmp_path: Path) -> None:
    code, kadmit = run_kadmit([CASE])
    assert code == 1 and kadmit is not None  # decided, the refused pods left aside
    docs = (ROOT / CASE).read_text(encoding="utf-8").split("---\n")
    kept = [d for d in docs if not any(f"name: {n}\n" in d for n in REFUSED)]
    assert len(kept) == len(docs) - len(REFUSED)
    without = tmp_path / "without-the-refused-pods.yaml"
    without.write_text("---\n".join(kept), encoding="utf-8")
    kueue = run_oracle(kueue_oracle, [str(without)], "--runs", "3")
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert result.agree, result.report(k, q)
    assert {w for w, o in k.outcomes.items() if o is not None and o.admitted} == {"team/group-b", "team/job"}
    refused = {s["name"] for s in kadmit["skipped"] if "an error in the input" in s["reason"]}
    assert refused == set(REFUSED)
