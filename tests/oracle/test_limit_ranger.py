"""Pods the API server's LimitRanger refuses are never created, so Kueue never sees them: kadmit leaves
them out (KAD157, refused alone) before Kueue's job framework composes pod groups, and decides the rest.
The oracle runs no admission plugin, so it is asked about the file without the refused pods; kadmit
about the file as written (tests/kube/test_limit_ranger.py checks the refusals against the real server)."""

from __future__ import annotations

from pathlib import Path

from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle, variants

CASE = "tests/oracle/refused/pod-group-member-refused-by-the-limit-ranger.yaml"
REFUSED = ("group-a-1", "group-b-1", "solo")


def _agrees_without(kueue_oracle, tmp_path: Path, case: str, names: list[str], want_code: int):
    """kadmit on `case` as written agrees with the oracle on it without the objects whose metadata is `names`."""
    code, kadmit = run_kadmit([case])
    assert code == want_code and kadmit is not None
    docs = (ROOT / case).read_text(encoding="utf-8").split("---\n")
    kept = [d for d in docs if not any(n in d for n in names)]
    assert len(kept) == len(docs) - len(names)
    without = tmp_path / "without-the-refused.yaml"
    without.write_text("---\n".join(kept), encoding="utf-8")
    kueue = run_oracle(kueue_oracle, [str(without)], "--runs", "3")
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert result.agree, result.report(k, q)
    return kadmit, k


def test_a_pod_the_limit_ranger_refuses_is_no_member_of_its_group(kueue_oracle, tmp_path: Path) -> None:
    # decided (exit 1: KAD157 errors), the refused pods left aside
    kadmit, k = _agrees_without(kueue_oracle, tmp_path, CASE, [f"name: {n}\n" for n in REFUSED], 1)
    assert {w for w, o in k.outcomes.items() if o is not None and o.admitted} == {"team/group-b", "team/job"}
    refused = {s["name"] for s in kadmit["skipped"] if "an error in the input" in s["reason"]}
    assert refused == set(REFUSED)
    # the group left short names the member the API server refused, and why (its KAD157 words)
    (short,) = [s["reason"] for s in kadmit["skipped"] if s["name"] == "group-a-0"]
    assert short.startswith("group `group-a` has 1 of its 2 pods in the input; the API server refuses Pod `group-a-1` "
                            '(KAD157: `pods "group-a-1" is forbidden: maximum memory usage per Container is 1G, but '
                            "limit is 2Gi`): Kueue waits for all of them"), short


def test_a_jobs_template_pods_the_limit_ranger_refuses_get_no_workloads(kueue_oracle, tmp_path: Path) -> None:
    """A Job and a StatefulSet naming no queue while their templates do: the pods their controllers create are
    Kueue's plain pods, but the LimitRanger refuses them (a limit/request ratio, which Kueue's own check does not
    read): kadmit leaves the two undecided and agrees with the oracle on the file without them."""
    case = "tests/oracle/refused/job-template-pods-refused-by-the-limit-ranger.yaml"
    kadmit, k = _agrees_without(kueue_oracle, tmp_path, case, ["{name: big,", "{name: web,"], 0)
    admitted = sorted(w for w, o in k.outcomes.items() if o is not None and o.admitted)
    # kadmit's own keys for the Job's two pods, which the input gives no UID (298c81c2)
    assert admitted == ["ns/small:pod-0", "ns/small:pod-1"], admitted
    refused = {s["name"]: s["reason"] for s in kadmit["skipped"]}
    assert set(refused) == {"big", "web"}
    assert all("cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000" in r
               for r in refused.values()), refused
