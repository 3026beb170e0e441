"""`kadmit diff`: what a policy change does — semantic changes, changed decisions, changed envelopes.

Decisions are the engine's on each side's state (Kueue's ordered mode); a workload is listed when
its outcome differs: admitted or not, cluster queue, flavors, counts, victims, preempted by whom.
Envelopes compare the largest gang per cluster queue, flavor and resource on an empty cluster
(`engine.analysis.envelope`); each changed one carries a witness gang, checked on both sides:
admitted on the side with the larger envelope and not on the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.session import SolverUnknown
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.analysis.envelope import Gang, Prober, keys_of
from kadmit.engine.progress import Report
from kadmit.engine.decide import AdmitResult, admit
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Model, Workload
from kadmit.review.changes import Change, model_changes
from kadmit.review.testrun import why_lines


@dataclass
class DecisionChange:
    workload: str
    before: Decision | None  # None: no decision on that side (see `before_state`)
    after: Decision | None
    before_state: str  # one-line description of the outcome
    after_state: str
    why: list[str] = field(default_factory=list)  # `why` on the side where it isn't admitted (else HEAD)
    why_side: str = "after"


@dataclass
class EnvelopeChange:
    cluster_queue: str
    flavor: str
    resource: str
    before: Gang | None
    after: Gang | None
    witness: Gang | None  # admitted on `witness_side` only (checked on both sides)
    witness_side: str = "before"


@dataclass
class DiffResult:
    changes: list[Change]
    decisions: list[DecisionChange]
    envelopes: list[EnvelopeChange]
    base: AdmitResult
    head: AdmitResult
    unknown: bool = False
    # what the solver's limits left undecided: (what, in words; the object it is about: a workload's key
    # or a cluster queue's name; "before"/"after")
    undecided: list[tuple[str, str, str]] = field(default_factory=list)
    manifests: list | None = None  # review.manifests.ManifestChange, when asked (`--manifests`)

    @property
    def empty(self) -> bool:
        """Nothing changes (and nothing was left undecided that might)."""
        return not (self.changes or self.decisions or self.envelopes or self.undecided)


def _view(wl: Workload | None, d: Decision | None) -> tuple:
    """What about a decision counts as a change (placement on nodes doesn't)."""
    if d is None:
        return ("running", wl.admission.cluster_queue) if wl is not None and wl.admitted else ("absent",)
    if d.preempted_by:
        return ("preempted", d.preempted_by)
    if not d.admitted:
        return ("pending", d.unknown)
    a = d.assignment
    sets = tuple(sorted((ps, a.counts.get(ps, 0), tuple(sorted(fl.items()))) for ps, fl in a.flavors.items()))
    return ("admitted", d.cluster_queue, sets, tuple(sorted(v.key for v in d.preempted)))


def describe(wl: Workload | None, d: Decision | None) -> str:
    v = _view(wl, d)
    if v[0] == "absent":
        return "not in the state"
    if v[0] == "running":
        return f"admitted in the input to {v[1]}, left running"
    if v[0] == "preempted":
        return f"preempted by {v[1]}"
    if v[0] == "pending":
        return "unknown (solver limits)" if v[1] else "not admitted"
    sets = "; ".join(f"{ps} {n}×{','.join(sorted({f for _, f in fl})) or '-'}" for ps, n, fl in v[2])
    victims = f", preempting {', '.join(v[3])}" if v[3] else ""
    return f"admitted to {v[1]}: {sets}{victims}"


def decision_changes(base: Model, head: Model, rb: AdmitResult, rh: AdmitResult,
                     limits: Limits | None = None) -> list[DecisionChange]:
    db = {d.key: d for d in rb.decisions}
    dh = {d.key: d for d in rh.decisions}
    wb = {w.key: w for w in base.workloads}
    wh = {w.key: w for w in head.workloads}
    out = []
    for key in sorted(set(db) | set(dh) | set(wb) | set(wh)):
        vb, vh = _view(wb.get(key), db.get(key)), _view(wh.get(key), dh.get(key))
        if vb == vh or "absent" in (vb[0], vh[0]):
            continue  # a workload only one side has is a state change, listed with the changes
        side, model = ("after", head) if vh[0] not in ("admitted", "running") or vb[0] in ("admitted", "running") \
            else ("before", base)
        out.append(DecisionChange(key, db.get(key), dh.get(key), describe(wb.get(key), db.get(key)),
                                  describe(wh.get(key), dh.get(key)), why_lines(model, key, limits), side))
    return out


def envelope_changes(base: Model, head: Model, limits: Limits | None = None,
                     undecided: list[tuple[str, str, str]] | None = None,
                     progress: Report | None = None) -> list[EnvelopeChange]:
    """The envelopes that differ; those the solver's limits leave undecided go to `undecided`;
    `progress` is told of each envelope searched (on both sides)."""
    pb, ph = Prober(base, limits), Prober(head, limits)
    out = []
    keys = sorted(set(keys_of(base)) | set(keys_of(head)))
    for i, key in enumerate(keys):
        if progress is not None:
            progress("envelopes", i, len(keys))
        what = f"the largest gang of {key[2]} in flavor `{key[1]}` of cluster queue `{key[0]}`"
        try:
            gb = pb.largest(*key)
        except SolverUnknown:
            (undecided if undecided is not None else []).append((what + " before", key[0], "before"))
            continue
        try:
            gh = ph.largest(*key)
        except SolverUnknown:
            (undecided if undecided is not None else []).append((what + " after", key[0], "after"))
            continue
        tb, th = (gb.total if gb else 0), (gh.total if gh else 0)
        if tb == th:
            continue
        if tb > th:
            witness, side, other = gb, "before", ph
        else:
            witness, side, other = gh, "after", pb
        try:
            if other.has_queue(key[0]) and other.admits(other.requeue(witness)):
                witness = None  # the other side's units are coarser: no single gang tells them apart here
        except SolverUnknown:
            (undecided if undecided is not None else []).append(
                (f"whether the witness of {what} is admitted {'after' if side == 'before' else 'before'}",
                 key[0], "after" if side == "before" else "before"))
            continue
        out.append(EnvelopeChange(*key, gb, gh, witness, side))
    if progress is not None:
        progress("envelopes", len(keys), len(keys))
    return out


def diff_models(base: Model, head: Model, limits: Limits | None = None, envelopes: bool = True,
                manifests: bool = False, progress: Report | None = None) -> DiffResult:
    """Everything that differs between two states of a policy; with `manifests`, also the Kueue
    manifests `kadmit export` writes of each. `progress` is told of the envelopes searched."""
    cache = ShapeCache()
    rb = admit(base, limits=limits, cache=cache)
    rh = admit(head, limits=limits, cache=cache)
    changes = model_changes(base, head)
    decisions = decision_changes(base, head, rb, rh, limits)
    undecided = [(f"the decision of workload `{d.key}` {side}", d.key, side)
                 for side, r in (("before", rb), ("after", rh)) for d in r.decisions if d.unknown]
    env = envelope_changes(base, head, limits, undecided, progress) if envelopes else []
    exported = None
    if manifests:
        from kadmit.review.manifests import manifest_changes
        exported = manifest_changes(base, head)
    return DiffResult(changes, decisions, env, rb, rh, bool(undecided) or rb.unknown or rh.unknown, undecided,
                      exported)
