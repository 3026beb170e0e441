"""Kueue's own answer next to kadmit's: build and run the Kueue oracle (tools/kueue-oracle), run
kadmit on the same paths, normalise both JSONs to what both say, and diff them.

Used by tests/oracle/ and bench/oracle_bench.py. The oracle binary is `$KADMIT_KUEUE_ORACLE` when
set, else the build wrapper's (built on first use, cached by source hash).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "tools" / "kueue-oracle" / "kueue-oracle"


class OracleUnavailable(Exception):
    """The oracle can't be built here (no Go, or the build failed); the message says why."""


def in_ci() -> bool:
    """`.ci/run` exports KADMIT_KUEUE_ORACLE (the binary it built) and KADMIT_CI=1: there, a
    missing oracle is a failure, not a skip."""
    return bool(os.environ.get("KADMIT_CI") or os.environ.get("CI"))


def oracle_binary() -> str:
    """The oracle's path, built if needed."""
    given = os.environ.get("KADMIT_KUEUE_ORACLE")
    if given:
        if not os.access(given, os.X_OK):
            raise OracleUnavailable(f"KADMIT_KUEUE_ORACLE={given} is not an executable")
        return given
    if shutil.which("go") is None:
        raise OracleUnavailable("the Kueue oracle is built with Go, which is not installed (or not on PATH)")
    build = subprocess.run([str(WRAPPER), "--build-only"], capture_output=True, text=True)
    if build.returncode != 0:
        raise OracleUnavailable(f"building the Kueue oracle failed:\n{build.stderr[-3000:]}")
    return build.stdout.strip().splitlines()[-1]


def run_oracle(binary: str, paths: list[str], *args: str) -> dict:
    """`kueue-oracle admit --format json ARGS PATHS` as data."""
    proc = subprocess.run([binary, "admit", "--format", "json", *args, *map(str, paths)],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise AssertionError(f"kueue-oracle admit {' '.join(map(str, paths))} exited {proc.returncode}:\n"
                             f"{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def run_oracle_until(binary: str, paths: list[str], shown, *args: str, runs: int, every: int = 4) -> dict:
    """`kueue-oracle admit --format json --runs N ARGS PATHS` for the first N runs, a multiple of `every`, whose
    answer shows what `shown(answer)` waits for (Kueue's outcomes that only some runs give), else `--runs RUNS`'s
    answer. The oracle prints the answer so far after every `every` runs (`--report-every`: as `--runs` of that
    many gives it, the same seeds), and is stopped once `shown` holds, rather than deciding all RUNS: RUNS is the
    bound that makes a false failure unlikely, each test saying how unlikely."""
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([binary, "admit", "--format", "json", "--runs", str(runs), "--report-every", str(every),
                                 *args, *map(str, paths)], stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT)
        data = None
        try:
            for line in proc.stdout:
                data = json.loads(line)
                if shown(data):
                    return data
            code = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()  # shown: the runs left are not needed
            proc.stdout.close()
            proc.wait()
        if code != 0 or data is None:
            err.seek(0)
            raise AssertionError(f"kueue-oracle admit {' '.join(map(str, paths))} exited {code}:\n{err.read()[-3000:]}")
        return data


def run_each(binary: str, command: str, paths: list, *args: str) -> dict[str, dict]:
    """`kueue-oracle COMMAND --format json --each ARGS PATHS`: each path's answer, decided as a cluster of
    its own, in one process (tools/kueue-oracle/README.md). Where the process dies on a path (Kueue's own
    panic), that path's answer is `{"error": ...}` with the panic, and the paths after it are decided in a
    new process."""
    out: dict[str, dict] = {}
    rest = list(paths)
    while rest:
        proc = subprocess.run([binary, command, "--format", "json", "--each", *args, *map(str, rest)],
                              capture_output=True, text=True, cwd=ROOT)
        for line in proc.stdout.splitlines():
            data = json.loads(line)
            out[data["path"]] = data
        missing = [p for p in rest if str(p) not in out]
        if not missing:
            break
        if proc.returncode == 0:
            raise AssertionError(f"kueue-oracle {command} --each gave no answer for {missing[0]}:\n{proc.stderr[-3000:]}")
        crash = proc.stderr[proc.stderr.find("panic:"):][:3000] if "panic:" in proc.stderr else proc.stderr[-3000:]
        out[str(missing[0])] = {"path": str(missing[0]), "error": f"the oracle exited {proc.returncode}: {crash}"}
        rest = missing[1:]
    return out


def run_kadmit(paths: list[str], *, subprocess_cli: bool = False) -> tuple[int, dict | None]:
    """`kadmit admit --format json` as (exit code, data); data is None when kadmit decided nothing
    (exit 2: input it refuses; its JSON then holds only `diagnostics`). In this process through the API, as the CLI calls it (the same
    JSON), unless `subprocess_cli`."""
    absolute = [str(p) if Path(p).is_absolute() else str(ROOT / p) for p in paths]
    if subprocess_cli:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run([sys.executable, "-m", "kadmit", "admit", "--format", "json", *absolute],
                              capture_output=True, text=True, cwd=ROOT, env=env)
        data = json.loads(proc.stdout)  # on refused input, a document with the diagnostics only
        return proc.returncode, data if "decisions" in data else None
    from kadmit import api
    from kadmit.render.decisions import admit_outcome_dict

    outcome = api.admit(absolute)
    if outcome.result is None:
        return outcome.exit_code, None
    return outcome.exit_code, json.loads(json.dumps(admit_outcome_dict(outcome)))


# --- normal forms --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What both tools decide of one workload: where it lands (or not), with what, and who
    preempted whom."""

    admitted: bool  # holds quota (Kueue's QuotaReserved); `admitted_condition` says whether it is Admitted
    cluster_queue: str | None = None
    pod_sets: tuple = ()  # (name, count, ((resource, flavor), ...), ((node, pods), ...))
    preempted: tuple = ()  # the victims' names, sorted
    preempted_by: str | None = None
    checks: tuple = ()  # quota reserved: its admission checks, ((name, state), ...) by name
    # admitted, then finished by the end (Kueue's Finished condition's reason: FailedToStart), holding no quota
    finished: str | None = None
    # quota reserved: Kueue's Admitted condition (every admission check Ready), each side's `admitted`, compared
    # apart from the reservation: a workload holding quota whose checks are pending is not Admitted
    admitted_condition: bool = False

    def text(self) -> str:
        if not self.admitted:
            s = "not admitted"
        else:
            sets = "; ".join(f"{n} {c}x{dict(fl)}" + (f" on {dict(pl)}" if pl else "") for n, c, fl, pl in self.pod_sets)
            waiting = [n for n, st in self.checks if st != "Ready"]
            if self.admitted_condition:
                s = f"admitted to {self.cluster_queue}" + (f" (admission checks not Ready: {', '.join(waiting)})"
                                                           if waiting else "") + f": {sets}"
            else:
                s = f"quota reserved in {self.cluster_queue}, not Admitted" + (
                    f", waiting for admission checks {', '.join(waiting)}" if waiting else "") + f": {sets}"
        if self.preempted:
            s += f", preempting {', '.join(self.preempted)}"
        if self.preempted_by:
            s += f", preempted by {self.preempted_by}"
        if self.finished:
            s += f", then finished ({self.finished})"
        return s


def _pod_sets(entries: list[dict]) -> tuple:
    return tuple(sorted((p["name"], p["count"], tuple(sorted(p["flavors"].items())),
                         tuple(sorted(p.get("placement", {}).items()))) for p in entries))


def _outcome(d: dict, victims: list[str]) -> Outcome:
    """A victim admitted again by the end is just admitted (kadmit names `preempted_by` only for
    victims left pending; the oracle for every workload it saw evicted)."""
    if not d.get("quota_reserved", d["admitted"]):
        return Outcome(False, preempted=tuple(sorted(victims)), preempted_by=d.get("preempted_by"))
    checks = tuple(sorted((c["name"], c["state"]) for c in d.get("admission_checks", [])))
    return Outcome(True, d["cluster_queue"], _pod_sets(d["pod_sets"]), tuple(sorted(victims)), checks=checks,
                   finished=(d.get("finished") or {}).get("reason"), admitted_condition=d["admitted"])


@dataclass
class Answer:
    """One tool's answer: outcomes by workload name, the object each workload stands for, the
    objects it did not decide (with why), and its reasons for not admitting."""

    outcomes: dict[str, Outcome]
    objects: dict[str, str]
    skipped: dict[str, str]
    messages: dict[str, str] = field(default_factory=dict)
    # kadmit: the workloads of a preemption loop it stopped (undecided: KAD535, or KAD536 where the
    # run hit its bound on cycles); the oracle: every workload when a run of it came back to an earlier
    # state (`loop`) or hit the bound (`cycle limit`: a loop through a queue under admission fair
    # sharing grows the entry penalties in every period, so no state repeats)
    looping: frozenset[str] = frozenset()
    # the objects of the input it lists as of a kind it does not read (kadmit: KAD159, in `skipped`;
    # the oracle: `not_read`), by object name, with the reason
    not_read: dict[str, str] = field(default_factory=dict)
    # every object it skipped (not decided, for any reason), named as `not_read` names them
    skipped_refs: frozenset[str] = frozenset()
    # kadmit: how many more objects of a kind it does not read it left unnamed, by `apiVersion/kind` (it names
    # 100 per kind and file, the next one's entry counting the rest: `more`); the oracle names every one
    unread_more: dict[str, int] = field(default_factory=dict)


def object_name(o: dict) -> str:
    return f"{o['kind']}/{o.get('namespace') or ''}/{o['name']}"


def _unread_name(o: dict) -> str:
    """An object listed as not read, named alike by both tools: the oracle puts an object without a
    namespace in `default` (as kubectl creates it), kadmit lists it as written."""
    ns = o.get("namespace") or ""
    return f"{o.get('apiVersion', '')}/{o['kind']}/{'' if ns == 'default' else ns}/{o['name']}"


# kadmit's reasons for an object of a kind it does not read (manifests._Reader.skip)
KADMIT_NOT_READ = ("kadmit does not read this kind", "kadmit reads only ")
# Kinds kadmit reads that Kueue does not: gangs kube-scheduler places all-or-nothing, and the
# admission policies `kadmit export` writes (their rules); and Kubernetes v1.36's scheduling.k8s.io
# PodGroup (and v1alpha2 Workload), which kadmit refuses as the v1.35 API server does (KAD171). The
# oracle lists them as not read.
READ_BY_KADMIT_ONLY = frozenset({("scheduling.k8s.io", "PodGroup"), ("scheduling.k8s.io", "Workload"),
                                 ("scheduling.x-k8s.io", "PodGroup"),
                                 ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
                                 ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding")})


def _answer(data: dict, message, looping, not_read: dict[str, str] | None = None) -> Answer:
    """Victims and preemptors are named by the object they stand for where the answer decided
    them: the two tools name a Workload made of a job apart (kadmit: the Workload's own name for one
    read from the input; the oracle: the job's)."""
    objects = {d["workload"]: object_name(d["object"]) for d in data["decisions"]}
    outcomes, messages = {}, {}
    for d in data["decisions"]:
        by = d.get("preempted_by")
        d = dict(d, preempted_by=objects.get(by, by)) if by else d
        outcomes[d["workload"]] = _outcome(d, [objects.get(v["workload"], v["workload"]) for v in d["preempted"]])
        messages[d["workload"]] = message(d)
    # a workload of an object that made several (a Deployment's pods, a LeaderWorkerSet's groups)
    # is named with a hash each tool makes its own way: a preemptor or victim is named by its object
    size: dict[str, int] = {}
    for obj in objects.values():
        size[obj] = size.get(obj, 0) + 1

    def named(w: str | None) -> str | None:
        return objects[w] if w in objects and size[objects[w]] > 1 else w
    for name, o in outcomes.items():
        if o.preempted_by in objects or any(v in objects for v in o.preempted):
            outcomes[name] = replace(o, preempted=tuple(sorted(named(v) or v for v in o.preempted)),
                                     preempted_by=named(o.preempted_by))
    return Answer(outcomes, objects, {object_name(s): s["reason"] for s in data["skipped"]}, messages,
                  frozenset(d["workload"] for d in data["decisions"] if looping(d)), not_read or {},
                  frozenset(_unread_name(s) for s in data["skipped"]))


def from_kadmit(data: dict) -> Answer:
    unread = {_unread_name(s): s["reason"] for s in data["skipped"] if s["reason"].startswith(KADMIT_NOT_READ)}
    answer = _answer(data, lambda d: "; ".join(r["message"] for r in d["reasons"]),
                     lambda d: d.get("unknown") and any(r.get("code") in ("KAD535", "KAD536") for r in d["reasons"]),
                     unread)
    for s in data["skipped"]:
        if s.get("more") and s["reason"].startswith(KADMIT_NOT_READ):
            kind = f"{s.get('apiVersion', '')}/{s['kind']}"
            answer.unread_more[kind] = answer.unread_more.get(kind, 0) + s["more"]
    return answer


def _kind_of(unread_name: str) -> str:
    """`apiVersion/kind` of a name `_unread_name` made (a namespace or a name holds no `/`)."""
    return unread_name.rsplit("/", 2)[0]


def from_oracle(data: dict) -> Answer:
    """Kueue's answer: run 0's decisions; a loop where any run ended in one (`stops`: Kueue's own
    timing can loop in one run and settle in another, tie-second-pass-admission-races-a-preemption.yaml)."""
    oracle = data.get("oracle") or {}
    loop = any(s in ("loop", "cycle limit") for s in oracle.get("stops") or [oracle.get("stop")])
    unread = {_unread_name(s): s["reason"] for s in data.get("not_read", [])
              if (s["apiVersion"].rpartition("/")[0], s["kind"]) not in READ_BY_KADMIT_ONLY}
    return _answer(data, lambda d: (d["pending"] or {}).get("message", ""), lambda d: loop, unread)


# kadmit's reason for a workload it does not decide because an error in the input reaches its
# cohort tree: kadmit declines to answer (exit 1), so there is nothing to compare.
UNDECIDED = "not decided: an error in the input"


@dataclass
class Comparison:
    """Where two answers differ, per workload: (kadmit's, Kueue's), each an Outcome or the reason
    that side skipped its object; and the workloads kadmit declined to decide (input errors)."""

    differ: dict[str, tuple[object, object]]
    undecided: dict[str, Outcome]

    @property
    def agree(self) -> bool:
        return not self.differ

    def report(self, kadmit: Answer, kueue: Answer) -> str:
        def show(x, answer, name):
            if isinstance(x, Outcome):
                why = answer.messages.get(name)
                return x.text() + (f"  ({why})" if why and not x.admitted else "")
            return x
        return "\n".join(f"{name}:\n  kadmit: {show(k, kadmit, name)}\n  Kueue:  {show(q, kueue, name)}"
                         for name, (k, q) in sorted(self.differ.items()))


UNTOUCHED = None  # in `variants`: some run left the workload as the input holds it (admitted, no one preempted it)


def variants(data: dict) -> dict[str, set[Outcome | None]]:
    """The oracle's outcomes per workload where its runs differed (`--runs N`): each is an answer
    Kueue may give; `UNTOUCHED` where a run left it as the input holds it (an admitted workload no
    preemptor chose: no decision, as kadmit gives none)."""
    # a victim is named by its object as any run decided it: the first run may have left it untouched
    # (tie-victims-with-one-uid.yaml: run 0 preempting v2 gave no object for v1, preempted in other runs)
    varied = (data.get("variance") or {}).get("workloads", [])
    objects = {d["workload"]: object_name(d["object"]) for d in
               [o["decision"] for w in varied for o in w["outcomes"] if o["decision"]["workload"]] + data["decisions"]}
    out: dict[str, set[Outcome | None]] = {}
    for w in varied:
        outs: set[Outcome | None] = set()
        for o in w["outcomes"]:
            if not o["decision"]["workload"]:
                outs.add(UNTOUCHED)
                continue
            d, by = o["decision"], o["decision"].get("preempted_by")
            d = dict(d, preempted_by=objects.get(by, by)) if by else d
            outs.add(_outcome(d, [objects.get(v["workload"], v["workload"]) for v in d["preempted"]]))
        out[w["workload"]] = outs
    return out


def compare(kadmit: Answer, kueue: Answer, *, placement: bool = True,
            alternatives: dict[str, set[Outcome | None]] | None = None) -> Comparison:
    """Workloads both decided must have equal outcomes (placements too, unless `placement` is
    off), or kadmit's must be one of Kueue's `alternatives` for a workload on which Kueue's own
    runs differed (where kadmit leaves a workload as the input holds it, one of them must too:
    `UNTOUCHED`). An object that made several workloads (a LeaderWorkerSet's groups, a
    Deployment's pods) is compared as the multiset of its workloads' outcomes: their names carry
    hashes of UIDs each tool gives on its own. A workload one side decided and the other skipped
    differs, with the skip's reason, unless kadmit skipped it saying it is never admitted and
    Kueue did not admit it (nor any of an object's several); one kadmit declined because of an input error is set aside. A workload
    kadmit finds in a preemption loop (or still moving at its bound on cycles), where Kueue's run
    ended in a loop or at its bound too, agrees whatever each shows of it: where a loop is cut is
    arbitrary (docs/KUEUE-DIFFERENCES.md §1)."""
    def strip(o: Outcome) -> Outcome:
        if placement:
            return o
        return replace(o, pod_sets=tuple((n, c, fl, ()) for n, c, fl, _ in o.pod_sets))

    differ, undecided = {}, {}
    by_object: dict[str, tuple[list[str], list[str]]] = {}
    for side, answer in ((0, kadmit), (1, kueue)):
        for name, obj in answer.objects.items():
            by_object.setdefault(obj, ([], []))[side].append(name)
    for obj, (kn, qn) in sorted(by_object.items()):
        if kn and kueue.looping and all(n in kadmit.looping for n in kn):
            continue  # both runs ended in a preemption loop, this workload in it
        if len(kn) > 1 or len(qn) > 1:
            why = kadmit.skipped.get(obj) if not kn else None
            if why and why.startswith(UNDECIDED):
                undecided.update((n, kueue.outcomes[n]) for n in qn)  # as a single workload's, set aside
                continue
            if why and "never admitted" in why and not any(kueue.outcomes[n].admitted for n in qn):
                continue  # kadmit says Kueue never admits them (a Deployment's pods), and Kueue did not
            ks = sorted(repr(strip(kadmit.outcomes[n])) for n in kn)
            qs = sorted(repr(strip(kueue.outcomes[n])) for n in qn)
            if ks != qs:
                differ[obj] = ("; ".join(f"{n}: {kadmit.outcomes[n].text()}" for n in sorted(kn)) or "no decision",
                               "; ".join(f"{n}: {kueue.outcomes[n].text()}" for n in sorted(qn)) or "no decision")
            continue
        if kn and qn and kn[0] != qn[0]:  # one workload each, named apart (a hash in the name)
            kadmit.outcomes.setdefault(qn[0], kadmit.outcomes[kn[0]])
            kn = qn
        name = (kn or qn)[0]
        k, q = kadmit.outcomes.get(name) if kn else None, kueue.outcomes.get(name) if qn else None
        others = (alternatives or {}).get(name, set())
        if k is not None and q is not None:
            allowed = {strip(o) for o in others if o is not UNTOUCHED} | {strip(q)}
            if strip(k) not in allowed:
                differ[name] = (k, q)
        elif k is None:
            why = kadmit.skipped.get(obj)
            if why and why.startswith(UNDECIDED):
                undecided[name] = q
            elif why and "never admitted" in why and not q.admitted:
                continue  # kadmit says Kueue never admits it, and Kueue did not
            elif not why and UNTOUCHED in others:
                continue  # kadmit leaves it as the input holds it, as some of Kueue's runs do
            else:
                differ[name] = (f"skipped: {why}" if why else "no decision", q)
        else:
            why = kueue.skipped.get(obj)
            if not why and strip(k) in {strip(o) for o in others if o is not UNTOUCHED}:
                continue  # the run shown left it as the input holds it; another decided it as kadmit does
            differ[name] = (k, f"skipped: {why}" if why else "no decision")
    # every object of a kind neither reads is listed as not read by both (the rest are decided or skipped);
    # one side's not read is the other's skipped where that side could not take it (the oracle decodes
    # with the API's types: a Secret whose `data` is not base64, which the API server refuses as well)
    # kadmit names 100 of a kind per file and counts the rest: as many of the oracle's as it counted are those
    unnamed: dict[str, list[str]] = {}
    for obj in sorted(kadmit.not_read.keys() ^ kueue.not_read.keys()):
        other = kueue if obj in kadmit.not_read else kadmit
        if obj in other.skipped_refs:
            continue
        if obj in kueue.not_read and kadmit.unread_more.get(_kind_of(obj)):
            unnamed.setdefault(_kind_of(obj), []).append(obj)
            continue
        differ["not read: " + obj] = (kadmit.not_read.get(obj, "read"), kueue.not_read.get(obj, "read"))
    for kind, more in sorted(kadmit.unread_more.items()):
        found = len(unnamed.get(kind, ()))
        if found != more:
            differ[f"not read: {kind}: {more} more counted"] = (
                f"{more} more not read, unnamed", f"{found} more not read, named (or not read) as kadmit's are not")
    return Comparison(differ, undecided)


def both(binary: str, paths: list[str]) -> tuple[int, dict | None, dict]:
    """kadmit's exit code and JSON, and Kueue's JSON, on the same paths."""
    code, k = run_kadmit(paths)
    return code, k, run_oracle(binary, paths)
