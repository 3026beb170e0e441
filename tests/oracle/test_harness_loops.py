"""The comparison where each tool has its own names or phases. A run that ends in a preemption
loop: where kadmit stops a loop (its workloads undecided, KAD535) and Kueue's run ended in a loop
too, each shows the loop at a different point, and that is no difference
(docs/KUEUE-DIFFERENCES.md §1); a loop on one side only is. A preemptor or victim among an object's
several workloads is named by the object."""

from __future__ import annotations

from oracle.harness import compare, from_kadmit, from_oracle

LOOP = {"code": "KAD535", "message": "preemption loop: ..."}


def _decision(name: str, admitted: bool, **extra) -> dict:
    d = {"workload": name, "object": {"kind": "Workload", "namespace": "team", "name": name.split("/")[1]},
         "admitted": admitted, "cluster_queue": "shared" if admitted else None, "pod_sets": [],
         "preempted": [], "preempted_by": None, "reasons": [], "pending": None}
    d.update(extra)
    return d


UNSETTLED = {"code": "KAD536", "message": "the run did not settle within 70 scheduling cycles; ..."}


def _kadmit(looping: bool, reason: dict = LOOP) -> dict:
    extra = {"unknown": True, "reasons": [reason]} if looping else {}
    return {"decisions": [_decision("team/high", False, **extra), _decision("team/low", False, **extra)],
            "skipped": []}


def _kueue(stop: str) -> dict:
    return {"decisions": [_decision("team/high", False), _decision("team/low", True)], "skipped": [],
            "oracle": {"stop": stop}}


def test_both_in_a_loop_agree_whatever_the_phase():
    assert compare(from_kadmit(_kadmit(True)), from_oracle(_kueue("loop"))).agree


def test_a_run_at_its_bound_on_both_sides_agrees():
    """A loop through a queue under admission fair sharing adds an entry penalty in every period,
    so no state repeats: both runs go on to their bound on cycles (kadmit's KAD536, the oracle's
    `cycle limit`)."""
    assert compare(from_kadmit(_kadmit(True, UNSETTLED)), from_oracle(_kueue("cycle limit"))).agree
    assert compare(from_kadmit(_kadmit(True)), from_oracle(_kueue("cycle limit"))).agree
    assert not compare(from_kadmit(_kadmit(False)), from_oracle(_kueue("cycle limit"))).agree
    assert not compare(from_kadmit(_kadmit(True, UNSETTLED)), from_oracle(_kueue("settled"))).agree


def test_a_loop_in_any_of_kueues_runs_is_a_loop():
    """`--runs N`: Kueue's own timing can end one run in a loop and settle another
    (tie-second-pass-admission-races-a-preemption.yaml); run 0's `stop` alone is not the answer,
    every run's is (`stops`)."""
    def kueue(stops: list[str]) -> dict:
        return {**_kueue(stops[0]), "oracle": {"stop": stops[0], "stops": stops}}
    assert compare(from_kadmit(_kadmit(True, UNSETTLED)), from_oracle(kueue(["stalled", "cycle limit"]))).agree
    assert compare(from_kadmit(_kadmit(True)), from_oracle(kueue(["settled", "settled", "loop"]))).agree
    assert not compare(from_kadmit(_kadmit(True)), from_oracle(kueue(["settled", "stalled"]))).agree


def test_a_loop_on_one_side_only_differs():
    assert not compare(from_kadmit(_kadmit(True)), from_oracle(_kueue("settled"))).agree
    assert not compare(from_kadmit(_kadmit(False)), from_oracle(_kueue("loop"))).agree


def test_a_preemptor_among_an_objects_workloads_is_named_by_its_object():
    """A Deployment's pods are workloads each tool names with its own hash: a victim's preemptor
    from them compares by the Deployment."""
    def pods(names: list[str], admitted: list[bool]) -> list[dict]:
        return [_decision(n, a, object={"kind": "Deployment", "namespace": "team", "name": "web"})
                for n, a in zip(names, admitted)]

    kadmit = {"decisions": pods(["team/pod-web-0-aaaaa", "team/pod-web-1-bbbbb"], [True, False])
              + [_decision("team/low", False, preempted_by="team/pod-web-0-aaaaa")], "skipped": []}
    kueue = {"decisions": pods(["team/web (pod-web-1)", "team/web (pod-web-2)"], [True, False])
             + [_decision("team/low", False, preempted_by="team/web (pod-web-1)")], "skipped": [],
             "oracle": {"stop": "settled"}}
    assert compare(from_kadmit(kadmit), from_oracle(kueue)).agree
    kueue["decisions"][-1]["preempted_by"] = None
    assert not compare(from_kadmit(kadmit), from_oracle(kueue)).agree


def test_an_object_of_several_workloads_kadmit_declines_for_an_input_error_is_set_aside():
    """A Deployment kadmit does not decide for an error in it (GKE's migrate-x86-app-to-multi-arch
    kustomize patch, a Deployment with only `replicas: 6`: no template, which the API server refuses)
    while Kueue's oracle, decoding leniently, makes its 6 pods' workloads: set aside, as a single
    workload's is, not a difference."""
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "hello"}
    kadmit = {"decisions": [], "skipped": [dict(deployment, reason="not decided: an error in the input, in this "
                                                "object (`kadmit check` lists it)")]}
    kueue = {"decisions": [dict(_decision(f"default/hello (pod-hello-{i})", True), object=deployment)
                           for i in range(6)], "skipped": []}
    result = compare(from_kadmit(kadmit), from_oracle(kueue))
    assert result.agree and sorted(result.undecided) == [f"default/hello (pod-hello-{i})" for i in range(6)]
    kadmit["skipped"][0]["reason"] = "it has no `kueue.x-k8s.io/queue-name` label: Kueue does not manage it"
    assert not compare(from_kadmit(kadmit), from_oracle(kueue)).agree
