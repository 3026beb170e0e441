"""kadmit.reference, the plain-Python replay of Kueue's admission the property tests use as their
oracle, against Kueue's own scheduler on every case of test_admit: it must agree wherever its scope
reaches (docs/ARCHITECTURE.md, "The reference's modules": quota, flavors, queueing, preemption, fair
sharing). Topology-aware placement and admission fair sharing are outside it, and cases that use
them are left out here, by what their model holds; so are the cases of kadmit's known differences
(test_admit's DIVERGENCES), whose model the reference reads as the engine does."""

from __future__ import annotations

from oracle.differential import answered, one_cluster, oracle_each
from oracle.test_admit import DIVERGENCES, _cases

from kadmit.effective import effective
from kadmit.modelscheduling import parse_errors
from kadmit.scope import blocking



_FOLLOWED = frozenset({"PartialAdmission", "ReclaimablePods"})
# cases whose shape the reference does not follow, by name where their model cannot say it
_NOT_FOLLOWED = {
    # a head failing in two resource groups writes either's message in Go's map order, and Kueue's flavor search
    # goes on where a message repeats until the head gives up (engine/admission/searches.py, e0098358); the
    # reference restarts its search every cycle, so the head blocks its queue for good
    "tests/oracle/features/head-gives-up-when-a-message-repeats.yaml",
    # a preemption loop: Kueue's run (and kadmit's, KAD535) is cut where its state repeats, and test_admit agrees
    # wherever each cuts it (harness.compare); the reference has no loop check and replays to its own bound
    "tests/oracle/features/preemption-loop-pod-sets-swap-flavors.yaml",
}


def _outside_scope(model, diagnostics) -> str | None:
    if blocking(model, diagnostics):
        # kadmit declines the workloads an input error reaches (KAD180's repeats of a generateName Job): they are
        # not in the model the reference decides, and test_admit sets them aside as declined
        return "an input error kadmit declines to decide past"
    if any(f.topology for f in model.flavors):
        return "topology-aware placement"
    if model.config is not None and model.config.admission_fair_sharing is not None \
            and any(cq.admission_fair_sharing for cq in model.cluster_queues):
        return "admission fair sharing"
    # the gates the reference follows through kadmit.effective (PartialAdmission: no minCount; ReclaimablePods:
    # nothing reclaimed); the others change the scheduler's own steps, which the reference writes as the defaults
    gates = set(model.config.feature_gates) - _FOLLOWED if model.config is not None else set()
    if gates:
        return "feature gates away from their defaults: " + ", ".join(sorted(gates))
    if any(parse_errors(ps.node_affinity) for w in model.workloads for ps in w.pod_sets):
        # Kueue's flavor search stops at a required node affinity it cannot parse (modelscheduling.flavor_affinity,
        # mexpr): the reference's flavor check reads each requirement as a label match
        return "node affinity Kueue cannot parse"
    if any(w.backoff_ends or w.exec_ends or w.retry_ends or (w.max_exec and w.admission is None)
           for w in effective(model).workloads):
        # the workload controller's timers that fire as the run's clock passes them (a backoff's end, a maximum
        # execution time, a Retry check's retry time: engine/admission/controller_timers.py); the reference
        # replays no clock
        return "the workload controller's timers during the run"
    if any(not w.pod_sets for w in model.workloads):
        # a v1beta2 Workload without pod sets (ff452c3): Kueue and the engine keep it queued, never admitted,
        # holding back a StrictFIFO queue; the reference sets an inadmissible workload aside
        return "a workload without pod sets"
    return None


def test_the_reference_decides_as_kueue_within_its_scope(kueue_oracle, tmp_path):
    from kadmit import workspace
    from kadmit.reference.replay import decide

    in_scope = []
    for name, paths in _cases():
        if name in DIVERGENCES:
            continue  # kadmit's known differences, which the reference shares (it decides kadmit's model)
        ws = workspace.load(paths)
        model = ws.model
        if name not in _NOT_FOLLOWED and not _outside_scope(model, ws.diagnostics):
            in_scope.append((name, paths, model))
    # Kueue's answers: test_admit's where it ran before this test in this process (tests/conftest.py sends both files
    # to one worker), whose run 0 gives the decisions compared here, as `--runs 1` does (the same seed); else the
    # cases decided in one oracle process (--each), each as a process of its own decides it, test_admit's way
    each = {tuple(paths): got for _, paths, _ in in_scope if (got := answered("oracle.test_admit", tuple(paths)))}
    asked = {tuple(paths): paths[0] if len(paths) == 1 else str(one_cluster(tmp_path, paths))
             for _, paths, _ in in_scope if tuple(paths) not in each}
    if asked:
        decided = oracle_each(kueue_oracle, list(asked.values()), runs=1)
        each.update({key: decided[path] for key, path in asked.items()})
    compared, differ = 0, []
    for name, paths, model in in_scope:
        ref = {d.workload: d for d in decide(model, preemption=True)}
        # a job's Workload of the input (a prebuilt one it takes) the oracle names by the job, kadmit by its own name
        of_object = {(w.origin.kind, w.origin.namespace or "default", w.origin.name): w.key
                     for w in model.workloads if w.origin is not None}
        kueue = each[tuple(paths)]
        assert "error" not in kueue, f"kueue-oracle admit {paths[0]}: {kueue['error']}"
        decisions = kueue["decisions"]

        def obj(d: dict) -> tuple:
            return d["object"]["kind"], d["object"].get("namespace") or "default", d["object"]["name"]

        def kueue_of(d: dict) -> tuple:
            held = d["quota_reserved"]  # admitted, or waiting for admission checks (the reference has none)
            return (held, d["cluster_queue"] if held else None,
                    sorted((p["name"], p["count"], sorted(p["flavors"].items())) for p in d["pod_sets"])
                    if held else [])

        def mine_of(r) -> tuple:
            return (r.admitted, r.cluster_queue if r.admitted else None,
                    sorted((p.name, p.count, sorted(p.flavors.items())) for p in r.pod_sets) if r.admitted else [])

        # an object that made several Workloads (a Deployment's pods, a LeaderWorkerSet's groups): each tool
        # names them by hashes of its own, so they are compared as the multiset of their outcomes (victims
        # counted), as tests/oracle/harness.compare does
        made: dict[tuple, list[str]] = {}
        for w in model.workloads:
            if w.origin is not None:
                made.setdefault((w.origin.kind, w.origin.namespace or "default", w.origin.name), []).append(w.key)
        shown = {d["workload"]: obj(d) for d in decisions}
        by_object: dict[tuple, list[dict]] = {}
        for d in decisions:
            by_object.setdefault(obj(d), []).append(d)
        for o, ds in sorted(by_object.items()):
            if len(ds) > 1 or len(made.get(o, ())) > 1:
                # those holding quota (one the reference has no decision for, Kueue not admitting it, agrees)
                kueue = sorted((*kueue_of(d), len(d["preempted"])) for d in ds if d["quota_reserved"])
                mine = sorted((*mine_of(ref[k]), len(ref[k].preempted)) for k in made.get(o, ())
                              if k in ref and ref[k].admitted)
                if kueue != mine:
                    differ.append(f"{name}: {'/'.join(o)}: Kueue {kueue}, reference {mine}")
        for d in decisions:
            if len(by_object[obj(d)]) > 1 or len(made.get(obj(d), ())) > 1:
                continue  # compared above, as its object's
            # one of an object's several Workloads (a LeaderWorkerSet's groups) the oracle names
            # `ns/object (kueue name)`; the reference, as kadmit, by its Kueue name
            ns, _, rest = d["workload"].partition("/")
            r = ref.get(d["workload"]) or (ref.get(f"{ns}/{rest.split(' (', 1)[1][:-1]}") if " (" in rest else None) \
                or ref.get(of_object.get(obj(d), ""))
            if r is None:
                if d["quota_reserved"]:
                    differ.append(f"{name}: {d['workload']}: Kueue admits it, the reference has no decision")
                continue
            # a victim as the reference names it: a job's Workload of the input by its own name (the oracle's by the job)
            kueue = (*kueue_of(d), sorted(of_object.get(shown.get(v["workload"]), v["workload"]) for v in d["preempted"]))
            mine = (*mine_of(r), sorted(t.key for t in r.preempted))
            if kueue != mine:
                differ.append(f"{name}: {d['workload']}: Kueue {kueue}, reference {mine}")
        compared += 1
    assert compared >= 30 and not differ, "\n".join(differ)
