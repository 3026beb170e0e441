"""Running policy tests: each test's model from the checked-in one, its decisions, its verdicts.

Tests of one folder share the folder's parsed and validated model; a test's changes are applied to
it as objects (no re-parse), and tests with the same changes share one decision run and one
empty-cluster session. A failure says what was expected, what kadmit decided, and `why`'s reasons
and blame for the workload.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostic, Diagnostics, Severity
from kadmit.engine.analysis.alone import UNDECIDED, admissible_alone, empty_cluster
from kadmit.engine.decide import AdmitResult, admit, why
from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.solver.codes import KAD411
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Fragment, Model
from kadmit.review.codes import KAD804
from kadmit.review.testfile import Expectation, TestCase

_FIELDS = tuple(name for name in Fragment.model_fields if name != "unread_kinds")  # said of the added files only


@dataclass
class Failure:
    """One expectation that doesn't hold: what was expected, what kadmit found, and why."""

    workload: str | None
    expected: str
    got: str
    why: list[str] = field(default_factory=list)
    line: int = 0


@dataclass
class TestResult:
    case: TestCase
    status: str  # "pass", "fail", "error" (the test could not run), or "unknown" (a decision it reads stayed unknown)
    failures: list[Failure] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0


def _key(obj) -> str:
    if hasattr(obj, "object"):  # a submitted job or a skipped object: its Kind/namespace/name
        return obj.object.qualified
    ns = getattr(obj, "namespace", None)
    return f"{ns}/{obj.name}" if ns is not None else obj.name


@dataclass
class _Run:
    """One setup's model, what validation said about it, and its decisions (None: model has errors)."""

    model: Model
    diagnostics: list[Diagnostic]
    result: AdmitResult | None
    alone: dict[str, object] = field(default_factory=dict)
    whys: dict[str, list[str]] = field(default_factory=dict)
    unknown_whys: set[str] = field(default_factory=set)  # `whys` keys the solver's limits cut short
    error: str | None = None
    setup_failed: bool = False


class Runner:
    """Runs test cases against one base model (a folder's policy and state)."""

    def __init__(self, base: Model, limits: Limits | None = None) -> None:
        self.base = base
        self.limits = limits
        self._runs: dict[tuple, _Run] = {}
        self.cache = ShapeCache()  # every test's runs share compiled shapes and answers

    # --- building a test's model -------------------------------------------------------------------

    def model_for(self, case: TestCase, diags: Diagnostics) -> Model | None:
        from kadmit import manifests, syntax

        frags: list[Fragment] = []
        for a in case.added:
            if a.kind == "kad":
                frags.append(syntax.parse_text(a.text, a.file, diags))
            else:
                frags.append(manifests.read_manifest_text(a.text, a.file, diags))
        if diags.has_errors:
            return None
        fields = {name: list(getattr(self.base, name)) for name in _FIELDS}
        for name, key, span in case.removed:
            kept = [o for o in fields[name] if _key(o) != key]
            if len(kept) == len(fields[name]):
                diags.emit(KAD804, f"nothing named `{key}` to remove", span,
                           help=f"the policy and state have no {name[:-1].replace('_', ' ')} `{key}`")
                return None
            fields[name] = kept
        for frag in frags:
            for name in _FIELDS:
                added = getattr(frag, name)
                if not added:
                    continue
                if name not in ("scheduler_configs", "creation_times"):  # times are no objects: they only add up
                    replaced = {_key(o) for o in added}
                    fields[name] = [o for o in fields[name] if _key(o) not in replaced]
                fields[name] = fields[name] + list(added)
        from kadmit.manifests.jobs.external import say_unread
        from kadmit.manifests.jobs.manage import apply_jobs
        from kadmit.manifests.resources import apply_resources

        model = Model(**{name: tuple(items) for name, items in fields.items()})
        say_unread([u for frag in frags for u in frag.unread_kinds], model.config, diags)  # KAD159 of the added files
        # added jobs become work; added LimitRanges and RuntimeClasses adjust requests
        return apply_resources(apply_jobs(model))

    def run_for(self, case: TestCase) -> _Run:
        got = self._runs.get(case.setup)
        if got is not None:
            return got
        from kadmit.validate import validate

        diags = Diagnostics()
        model = self.model_for(case, diags)
        if model is None:
            run = _Run(self.base, diags.sorted(), None, error="the test's setup is invalid", setup_failed=True)
        else:
            validate(model, diags)
            found = diags.sorted()
            errors = [d for d in found if d.severity is Severity.ERROR]
            result = None if errors else admit(model, limits=self.limits, cache=self.cache)
            run = _Run(model, found, result, error=(f"the model has {len(errors)} error(s), first: "
                                                     f"{errors[0].code} {errors[0].message}") if errors else None)
        self._runs[case.setup] = run
        return run

    # --- verdicts ------------------------------------------------------------------------------------

    def run(self, case: TestCase) -> TestResult:
        t0 = time.perf_counter()
        r = self.run_for(case)
        failures: list[Failure] = []
        if r.setup_failed:
            return TestResult(case, "error", [], r.diagnostics, time.perf_counter() - t0)
        codes = {d.code for d in r.diagnostics}
        for code, span in case.diagnostics:
            if code not in codes:
                failures.append(Failure(None, f"diagnostic {code}",
                                        "reported: " + (", ".join(sorted(codes)) or "nothing"), line=span.line))
        undecided: list[str] = []
        for e in case.expect:
            if self._undecided(r, e):
                undecided.append(e.workload)
            else:
                failures += self._verdict(r, e)
        if undecided:
            names = ", ".join(f"`{w}`" for w in undecided)
            d = Diagnostics().emit(KAD411, f"test `{case.name}`: the solver could not decide within its limits "
                                   f"what it expects of {names}", case.span, help="raise --rlimit or --timeout")
            return TestResult(case, "unknown", failures, [d], time.perf_counter() - t0)
        status = "fail" if failures else "pass"
        return TestResult(case, status, failures, [], time.perf_counter() - t0)

    def _undecided(self, r: _Run, e: Expectation) -> bool:
        """Whether the expectation reads something the solver left unknown: a decision of a run with
        an unknown one (in Kueue's order each decision depends on the earlier ones), an answer on an
        empty cluster, or `why`'s blame."""
        if not any(w.key == e.workload for w in r.model.workloads):
            return False
        if e.outcome in ("never_admissible", "admissible"):
            if r.result is None and r.error is not None:
                return False
            self._alone_for(r, e.workload)
            if r.alone.get(e.workload) is UNDECIDED:
                return True
            if e.detail("blames") is not None:
                self._why(r, e.workload, alone=True)
                return "alone|" + e.workload in r.unknown_whys
            return False
        if r.result is None:
            return False
        if r.result.unknown:
            return True
        if e.outcome == "not_admitted" and e.detail("blames") is not None:
            self._why(r, e.workload)
            return e.workload in r.unknown_whys
        return False

    def _verdict(self, r: _Run, e: Expectation) -> list[Failure]:
        line = e.span.line
        wl = next((w for w in r.model.workloads if w.key == e.workload), None)
        if wl is None:
            return [Failure(e.workload, e.text(), "no such workload in the test's model", line=line)]
        if e.outcome in ("never_admissible", "admissible"):
            return self._alone(r, e)
        if r.result is None:
            return [Failure(e.workload, e.text(), r.error or "no decisions", line=line)]
        d = next((x for x in r.result.decisions if x.key == e.workload), None)
        problems = _check(e, wl, d, r.result)
        if not problems and e.outcome == "not_admitted" and e.detail("blames") is not None:
            blame = self._why(r, e.workload)
            problems = _blames(e.detail("blames"), blame)
        if not problems:
            return []
        return [Failure(e.workload, e.text(), "; ".join(problems) + " — decided: " + describe(wl, d, r.result),
                        self._why(r, e.workload), line)]

    def _alone(self, r: _Run, e: Expectation) -> list[Failure]:
        if r.error is not None and r.result is None:
            return [Failure(e.workload, e.text(), r.error, line=e.span.line)]
        self._alone_for(r, e.workload)
        a = r.alone.get(e.workload)
        ok = (a is None) == (e.outcome == "never_admissible")
        problems = [] if ok else [
            "admissible on an empty cluster" if a is not None else "not admissible even on an empty cluster"]
        blames = e.detail("blames")
        if ok and blames is not None:
            problems = _blames(blames, self._why(r, e.workload, alone=True))
        if not problems:
            return []
        return [Failure(e.workload, e.text(), "; ".join(problems), self._why(r, e.workload, alone=True),
                        e.span.line)]

    def _alone_for(self, r: _Run, key: str) -> None:
        if key not in r.alone:
            keys = [w.key for w in r.model.workloads]
            r.alone.update(admissible_alone(r.model, keys, self.limits, cache=self.cache))

    def _why(self, r: _Run, key: str, alone: bool = False) -> list[str]:
        """`why`'s reasons and blame as lines (on an empty cluster with `alone`)."""
        memo = ("alone|" if alone else "") + key
        got = r.whys.get(memo)
        if got is None:
            got, unknown = explained(empty_cluster(r.model, [key]) if alone else r.model, key, self.limits)
            r.whys[memo] = got
            if unknown:
                r.unknown_whys.add(memo)
        return got


def explained(model: Model, key: str, limits: Limits | None = None) -> tuple[list[str], bool]:
    """`why`'s reasons and blame for workload `key`, one line each (blame as `file:line: message`),
    and whether the solver's limits cut it short."""
    w = why(model, key, limits)
    out = [f"{x.code} {x.message}" for x in w.reasons]
    out += [f"blame: {o.span.file}:{o.span.line}: {o.message}" if o.span else f"blame: {o.message}"
            for o in w.blame]
    return out, w.unknown


def why_lines(model: Model, key: str, limits: Limits | None = None) -> list[str]:
    """`why`'s reasons and blame for workload `key`, one line each (blame as `file:line: message`)."""
    return explained(model, key, limits)[0]


def _blames(expected, lines: list[str]) -> list[str]:
    wanted = expected if isinstance(expected, list) else [expected]
    blame = [x for x in lines if x.startswith("blame: ")]
    missing = [str(b) for b in wanted if not any(str(b) in x for x in blame)]
    return [f"not blamed: {', '.join(missing)}"] if missing else []


def _flavors(d_flavors: dict[str, dict[str, str]]) -> set[str]:
    return {f for fl in d_flavors.values() for f in fl.values()}


def _check(e: Expectation, wl, d: Decision | None, result: AdmitResult) -> list[str]:
    """What is wrong with the decision against the expectation (empty: it holds)."""
    held = d is None and wl.admitted  # admitted in the input and left alone by the run
    evictors = sorted({x.key for x in result.decisions for v in x.preempted if v.key == wl.key}
                      | ({d.preempted_by} if d is not None and d.preempted_by else set()))
    if e.outcome == "not_preempted":
        return [f"preempted by {', '.join(evictors)}"] if evictors else (
            [] if wl.admitted else ["it isn't admitted in the input"])
    if e.outcome == "preempted":
        if not evictors:
            return ["not preempted"]
        by = e.detail("by")
        return [f"preempted by {', '.join(evictors)}, not {by}"] if by and by not in evictors else []
    # quota reserved in a queue with admission checks not all Ready: Kueue has not admitted it
    waiting = d.waiting_checks if d is not None and d.admitted else ()
    admitted = held or (d is not None and d.admitted and not waiting)
    if e.outcome == "not_admitted":
        if admitted:
            return ["admitted"]
        if waiting:
            return []
        reason = e.detail("reason")
        if reason is not None and d is not None:
            reasons = result.reasons.get(d.key, [])
            if not any(str(reason) == x.code or str(reason) in x.message for x in reasons):
                return [f"no reason `{reason}` among: " + "; ".join(f"{x.code} {x.message}" for x in reasons)]
        return []
    if not admitted:
        return ["not admitted" + (f": quota reserved, waiting for admission checks {', '.join(waiting)}"
                                  if waiting else "")]
    if held:
        adm = wl.admission
        cq = adm.cluster_queue
        flavors = {p.name: dict(p.flavors) for p in adm.pod_sets}
        counts = {p.name: p.count for p in adm.pod_sets}
        nodes = {n for p in adm.pod_sets for n in p.placement}
        domains: set[str] = set()
        borrowing = None
    else:
        a = d.assignment
        cq, flavors, counts = d.cluster_queue, a.flavors, a.counts
        placed = a.placement.pod_sets if a.placement else []
        nodes = {n for p in placed for n in p.nodes}
        domains = {x for p in placed for x in p.domains}
        borrowing = a.borrowing
    out = []
    want = e.detail("cluster_queue")
    if want is not None and want != cq:
        out.append(f"cluster queue {cq}, not {want}")
    want = e.detail("flavors")
    if isinstance(want, str) and _flavors(flavors) != {want}:
        out.append(f"flavors {', '.join(sorted(_flavors(flavors)))}, not {want}")
    elif isinstance(want, dict):
        for ps, f in want.items():
            got = flavors.get(ps, {})
            ok = set(got.values()) == {f} if isinstance(f, str) else all(got.get(k) == v for k, v in f.items())
            if not ok:
                out.append(f"pod set {ps} on {', '.join(sorted(set(got.values()))) or 'nothing'}, not {f}")
    want = e.detail("counts")
    if isinstance(want, int) and sum(counts.values()) != want:
        out.append(f"{sum(counts.values())} pods, not {want}")
    elif isinstance(want, dict):
        out += [f"pod set {ps}: {counts.get(ps, 0)} pods, not {n}" for ps, n in want.items() if counts.get(ps, 0) != n]
    want = e.detail("nodes")
    if want is not None:
        listed = set(want if isinstance(want, list) else [want])
        if nodes != listed:
            out.append(f"on nodes {', '.join(sorted(nodes)) or 'none recorded'}")
    want = e.detail("domain")
    if want is not None and not any(x == want or x.endswith("/" + str(want)) for x in domains):
        out.append(f"in domains {', '.join(sorted(domains)) or 'none'}, not {want}")
    want = e.detail("borrowing")
    if want is not None and borrowing is not None and bool(want) != borrowing:
        out.append("borrowing" if borrowing else "not borrowing")
    return out


def describe(wl, d: Decision | None, result: AdmitResult) -> str:
    """The decision in one line, e.g. `admitted to team-nlp: workers 2×h100 (borrowing)`."""
    if d is None:
        if wl.admitted:
            return f"admitted in the input to {wl.admission.cluster_queue}, left alone"
        return "not decided (finished)"
    if d.preempted_by:
        return f"preempted by {d.preempted_by}"
    if not d.admitted:
        reasons = result.reasons.get(d.key, [])
        return "not admitted" + (f": {reasons[0].code} {reasons[0].message}" if reasons else "")
    a = d.assignment
    sets = "; ".join(f"{ps} {a.counts.get(ps, 0)}×" + ",".join(sorted(set(fl.values())) or ["-"])
                     for ps, fl in sorted(a.flavors.items()))
    return f"admitted to {d.cluster_queue}: {sets}" + (" (borrowing)" if a.borrowing else "")
