"""Self-consistency of the deciding verbs on one cluster (tests/fuzz/test_consistency.py over clusters
drawn by tests/oracle/strategies.py; bench/fuzz_consistency.py over many more): what kadmit says in
one place it must not contradict in another.

- `admit --format json` gives the same text twice, and under another PYTHONHASHSEED (`hashseed`);
  its exit code is 0 or 1 (1 only with an error it names, e.g. a job Kueue's webhook refuses) or 3;
- `why W --format json` says what admit decided for W (admitted, queue, flavors, counts) and exits
  0 when admitted, 1 when not (3 undecided), and `why W` in text exits the same;
- `why W --apply-fix N`'s patch applies to the files, and `admit` on the patched files admits W as
  the fix's outcome says (queue, counts, flavors), and the other workloads move as its side effects
  say: each one whose admission changes is listed, with the change (admitted -> not, not -> admitted,
  another queue, flavors or counts), and each one listed does change;
- with `round_trip`: `import --workloads` writes `.kad` files that `fmt` leaves as they are (and whose
  formatting `fmt` leaves again), on which `admit` decides as on the manifests unless import names
  something the language can't say that decides (`NO_KAD_FORM`); `export --workloads --nodes` of them
  writes manifests on which `admit` decides as on the `.kad` files, and importing those gives the same
  `.kad` statements back.
"""

from __future__ import annotations

import json
import os
from collections import Counter
import shutil
import subprocess
import sys
from pathlib import Path

from .runner import WALL, _agree, _difference, _untimed, call, write

# a side effect's kind -> (holding quota before, after: admitted or reserved); None: holding both, changed
_KINDS = {
    "admitted → evicted": (True, False), "admitted → pending": (True, False),
    "evicted → admitted": (False, True), "pending → admitted": (False, True),
    "pending → admitted, then evicted": (False, False), "evicted → pending": (False, False),
    "evicted by another preemptor": (False, False),
    "with fewer pods": None, "moved to another queue or flavor": None, "with more pods": None,
    "on other nodes": None, "evicted, then admitted again": None, "no longer evicted": None, "changed": None,
}


def _json(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _placed(d: dict) -> tuple:
    """An admitted workload's queue, and each pod set's count and flavors (nodes aside)."""
    return (d.get("cluster_queue"),
            tuple(sorted((p["name"], p.get("count"), tuple(sorted((p.get("flavors") or {}).items())))
                         for p in d.get("pod_sets", []))))



def _holds(d: dict) -> bool:
    """Whether admit has the workload holding quota: admitted, or its quota reserved behind admission checks."""
    return bool(d.get("admitted") or d.get("quota_reserved"))


def _state_word_of(d: dict) -> str:
    return "admitted" if d.get("admitted") else "quota reserved" if d.get("quota_reserved") else "not admitted"


def _state_word(text: str) -> str:
    """What a side effect's state text (`replay.State.describe`) says: admitted, quota reserved, or neither."""
    return ("admitted" if text.startswith("admitted to ") else "quota reserved"
            if text.startswith("quota reserved in ") else "not admitted")

def check_cluster(work: Path, files: dict[str, str], rng, *, whys: int = 2, fixes: int = 1, timeout: float = 60.0,
                  hashseed: bool = False, round_trip: bool = False, stats: Counter | None = None) -> list[str]:
    """What contradicts itself on the cluster in `files`, run in `work` (made empty first); [] when nothing.
    `stats` counts what was compared (admit runs, whys, fixes applied, side effects seen)."""
    stats = stats if stats is not None else Counter()
    shutil.rmtree(work, ignore_errors=True)
    write(work / "case", files)
    found: list[str] = []

    def run(args: list[str], cwd: Path = work):
        c = call(args[0], args, cwd, timeout)
        if c.exit is None:
            found.append(f"hang: kadmit {' '.join(args)}")
        elif c.exception or c.exit not in (0, 1, 2, 3):
            found.append(f"exit {c.exit} {c.exception}: kadmit {' '.join(args)}: {c.output[-300:]}")
        return c

    admit = run(["admit", "case", "--format", "json"])
    if admit.exit is None:
        return found
    if admit.exit not in (0, 1, 3):
        return found + [f"admit refuses a generated cluster (exit {admit.exit}): {admit.output[:300]}"]
    again = run(["admit", "case", "--format", "json"])
    if again.exit is not None and (again.exit, _untimed(again.stdout)) != (admit.exit, _untimed(admit.stdout)):
        found.append(f"admit differs between two runs: exit {admit.exit} vs {again.exit}: "
                     f"{_difference(_untimed(admit.stdout), _untimed(again.stdout))}")
    stats[f"admit exit {admit.exit}"] += 1
    if hashseed:
        stats["admit under another hash seed"] += 1
        env = {**os.environ, "PYTHONHASHSEED": "4242", "COLUMNS": "100"}
        env.pop("KADMIT_TRACEBACK", None)
        p = subprocess.run([sys.executable, "-m", "kadmit", "admit", "case", "--format", "json"], cwd=work, env=env,
                           capture_output=True, text=True, timeout=timeout * WALL)
        if (p.returncode, _untimed(p.stdout)) != (admit.exit, _untimed(admit.stdout)):
            found.append(f"admit differs under another hash seed: exit {admit.exit} vs {p.returncode}: "
                         f"{_difference(_untimed(admit.stdout), _untimed(p.stdout))}")
    got = _json(admit.stdout)
    if not isinstance(got, dict):
        return found + [f"admit exit {admit.exit} without JSON"]
    decisions = {d["workload"]: d for d in got.get("decisions", [])}
    if admit.exit == 1 and "error[" not in admit.output:
        found.append("admit exits 1 without naming an error")
    pending = sorted(w for w, d in decisions.items() if not d.get("admitted") and not d.get("unknown"))
    admitted = sorted(w for w, d in decisions.items() if d.get("admitted"))
    asked = rng.sample(pending, min(whys, len(pending)))
    asked += rng.sample(admitted, min(max(0, whys - len(asked)), len(admitted)))
    tried = 0
    if round_trip and admit.exit == 0:
        found += _round_trips(work, got, run, stats)
    for name in asked:
        w = run(["why", name, "case", "--format", "json"])
        answer = _json(w.stdout) if w.exit in (0, 1, 3) else None
        if w.exit is None:
            continue
        if not isinstance(answer, dict):
            found.append(f"why {name}: exit {w.exit} without JSON: {w.output[:300]}")
            continue
        stats["why, admitted" if answer.get("admitted") else "why, not admitted"] += 1
        outcome = []
        _agree(_Out(outcome), name, decisions[name], answer)
        found += outcome
        want = 3 if answer.get("unknown") else 0 if answer.get("admitted") else 1
        if w.exit != want:
            found.append(f"why {name} exits {w.exit}; its answer (admitted={answer.get('admitted')}, "
                         f"unknown={answer.get('unknown')}) says {want}")
        if rng.random() < 0.3:
            h = run(["why", name, "case"])
            if h.exit is not None and h.exit != w.exit:
                found.append(f"why {name}: exit {h.exit} in text, {w.exit} in JSON")
        if answer.get("admitted") or answer.get("unknown"):
            continue
        for n, fix in enumerate(answer.get("fixes") or [], 1):
            if tried >= fixes or not fix.get("changes") or fix.get("waits_for"):
                continue  # (a fix that also waits for a running workload: no edit of the files says it finished)
            tried += 1
            found += _fix_holds(work, name, n, fix, decisions, run, stats)
    return found


class _Out:
    """What `runner._agree` reports into: a list of findings' texts."""

    def __init__(self, into: list[str]) -> None:
        self.into = into

    def find(self, verb: str, what: str) -> None:
        self.into.append(what)


def _fix_holds(work: Path, name: str, n: int, fix: dict, decisions: dict, run, stats: Counter) -> list[str]:
    """Fix `n` of `name`'s why, applied: admit admits it as the fix says, and moves the others as its
    side effects say."""
    found: list[str] = []
    p = run(["why", name, "case", "--apply-fix", str(n)])
    if p.exit != 0:
        return [f"why {name} --apply-fix {n}: exit {p.exit} for a fix with changes: {p.output[:300]}"]

    fixed = work / f"fix{n}"
    shutil.rmtree(fixed, ignore_errors=True)
    shutil.copytree(work / "case", fixed / "case")
    applied = subprocess.run(["patch", "-p1", "-s", "-d", str(fixed)], input=p.stdout, text=True, capture_output=True)
    if applied.returncode != 0:
        return [f"why {name} --apply-fix {n}: the patch does not apply: {applied.stdout[:200]} {applied.stderr[:200]}"]
    after = run(["admit", "case", "--format", "json"], fixed)
    got = _json(after.stdout) if after.exit in (0, 1, 3) else None
    if not isinstance(got, dict):
        return [f"why {name} --apply-fix {n}: admit on the patched files exits {after.exit}: {after.output[:300]}"]
    now = {d["workload"]: d for d in got.get("decisions", [])}
    mine = now.get(name)
    what = f"why {name} fix {n} ({fix.get('message', '')[:160]})"
    stats["fixes applied"] += 1
    said = fix.get("outcome") or {}
    if mine is None and decisions.get(name, {}).get("preempted_by") and not said.get("waiting_for"):
        # admitted in the input and evicted before the fix; after it, never evicted: admit's JSON lists no
        # decision of a workload it leaves admitted as the input has it (eviction-requeues: cq2's quota 4 -> 8);
        # where it stays is the input's admission, which admit's JSON does not repeat: taken as the fix says
        stats["fixes keeping it admitted"] += 1
        mine = {"admitted": True, "cluster_queue": said.get("cluster_queue"), "pod_sets": said.get("pod_sets", [])}
    # a fix in a queue with admission checks says it waits for them (quota reserved, as admit's JSON has it)
    if mine is None or not mine.get("quota_reserved" if said.get("waiting_for") else "admitted"):
        return [f"{what}: admit on the patched files does not {'reserve its quota' if said.get('waiting_for') else 'admit it'}"]
    if said.get("waiting_for") and sorted(said["waiting_for"]) != sorted(
            c["name"] for c in mine.get("admission_checks", []) if c.get("state") != "Ready"):
        found.append(f"{what}: waits for {mine.get('admission_checks')}, the fix said {said['waiting_for']}")
    if said and _placed(mine) != _placed({"cluster_queue": said.get("cluster_queue"), "pod_sets": said.get("pod_sets", [])}):
        found.append(f"{what}: admitted as {_placed(mine)}, the fix said {_placed(said)}")
    effects = {e["workload"]: e["kind"] for e in fix.get("effects", [])}
    texts = {e["workload"]: (e.get("before", ""), e.get("after", "")) for e in fix.get("effects", [])}
    for w in sorted(set(decisions) | set(now)):
        if w == name:
            continue
        before, later = decisions.get(w), now.get(w)
        if before is None or later is None or before.get("unknown") or later.get("unknown"):
            continue
        kind = effects.get(w)
        if kind == "undecided":
            continue
        if kind is not None:
            stats["side effects compared"] += 1
            for when, text, d in (("before", texts[w][0], before), ("after", texts[w][1], later)):
                if _state_word(text) != _state_word_of(d):
                    found.append(f"{what}: side effect {w} says {when} {text!r}; admit has it "
                                 f"admitted={d.get('admitted')}, quota_reserved={d.get('quota_reserved')}")
        # holding quota: admitted, or reserved behind admission checks (why's side effects count both)
        moved = _holds(before) != _holds(later)
        changed = moved or (_holds(before) and _placed(before) != _placed(later))
        if kind is None:
            if changed:
                found.append(f"{what}: {w} goes from {_state_word_of(before)} {_placed(before)} to "
                             f"{_state_word_of(later)} {_placed(later)}, not among its side effects")
            continue
        flags = _KINDS.get(kind, "?")
        if flags == "?":
            found.append(f"{what}: side effect of unknown kind {kind!r} on {w}")
        elif flags is not None and flags != (_holds(before), _holds(later)):
            found.append(f"{what}: side effect {w} {kind!r}, and admit has it {_state_word_of(before)} "
                         f"then {_state_word_of(later)}")
        elif flags is None and not (_holds(before) and _holds(later)):
            found.append(f"{what}: side effect {w} {kind!r} (holding quota both times), and admit has it "
                         f"{_state_word_of(before)} then {_state_word_of(later)}")
    return found


# What import reports (KAD920) that the `.kad` language can't say and that changes decisions: with one of
# these, admit on the import may decide otherwise (tests/export/test_import.py's DECIDING, and the stop
# policy of a LocalQueue, a ClusterQueue being deleted, a toleration or PriorityClass or Configuration field
# without a `.kad` form, a workload's recorded admission or topology assignment, a Workload with no pod sets)
NO_KAD_FORM = ("bound to node", "gang kube-scheduler places", "pod-set slices", "DRA claims", "recorded usage",
               "resources (excluded", "LimitRange", "RuntimeClass", "inadmissible", "admissionFairSharing",
               "the UIDs of", "Requeued condition", "eviction time", "the stop policy", "the deletion of cluster",
               "a toleration of", "PriorityClass", "manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
               "DynamicResourceAllocation", "the topology assignment", "the admission of pod group",
               "no pod sets")


def _decided(admit_json: dict) -> list[dict]:
    """admit's decisions without the object each stands for and Kueue's name of its Workload (a `.kad` workload
    stands for itself) and times."""
    return [{k: [_unnamed(x) for x in v] if k == "preempted" else v for k, v in _unnamed(d).items()
             if k != "object" and not k.endswith("seconds")} for d in admit_json.get("decisions", [])]


def _unnamed(d: dict) -> dict:
    """A decision or a victim without Kueue's name of its Workload (null where the cluster gives it)."""
    return {k: v for k, v in d.items() if k not in ("kueue_workload", "kueue_workload_unknown")}


def _statements(folder: Path) -> dict[str, list[str]]:
    """Each `.kad` file's lines but comments (import keeps what has no `.kad` form as comments)."""
    return {f.name: [ln for ln in f.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
            for f in sorted(folder.glob("*.kad"))}


def _round_trips(work: Path, admit_json: dict, run, stats: Counter) -> list[str]:
    """import, fmt, export and import again on the cluster in `work/case` (module docstring)."""
    found: list[str] = []
    for d in ("imported", "exported", "again"):
        shutil.rmtree(work / d, ignore_errors=True)
    i = run(["import", "case", "-o", "imported", "--workloads"])
    if i.exit != 0:
        return [] if i.exit is None else [f"import of a cluster admit decides exits {i.exit}: {i.output[:300]}"]
    stats["imports"] += 1
    kads = sorted((work / "imported").glob("*.kad"))
    for f in kads:
        c = run(["fmt", f"imported/{f.name}"])
        if c.exit == 0 and c.stdout != f.read_text():
            found.append(f"import wrote {f.name} that fmt changes: "
                         f"{_difference(f.read_text(), c.stdout)}")
    stats["imported files formatted"] += len(kads)
    if not kads:
        return found
    a = run(["admit", "imported", "--format", "json"])
    imported = _json(a.stdout) if a.exit in (0, 1, 3) else None
    if not isinstance(imported, dict):
        return found + ([] if a.exit is None else [f"admit on the import exits {a.exit}: {a.output[:300]}"])
    lost = {w for w in NO_KAD_FORM if w in i.output}
    if not any(d.get("preempted") for d in admit_json.get("decisions", [])):
        lost.discard("the UIDs of")  # (a tie-break between preemption candidates only)
    if not lost:
        stats["imports decided again"] += 1
        if _decided(imported) != _decided(admit_json):
            found.append("admit on the import decides otherwise: " + _difference(
                json.dumps(_decided(admit_json), indent=0), json.dumps(_decided(imported), indent=0)))
    e = run(["export", "imported", "-o", "exported", "--workloads", "--nodes"])
    if e.exit != 0:
        return found + ([] if e.exit is None else [f"export of the import exits {e.exit}: {e.output[:300]}"])
    b = run(["admit", "exported", "--format", "json"])
    exported = _json(b.stdout) if b.exit in (0, 1, 3) else None
    if not isinstance(exported, dict):
        return found + ([] if b.exit is None else [f"admit on the export of the import exits {b.exit}: "
                                                   f"{b.output[:300]}"])
    stats["exports decided again"] += 1
    if _decided(exported) != _decided(imported):
        found.append("admit on the export of the import decides otherwise than on the import: " + _difference(
            json.dumps(_decided(imported), indent=0), json.dumps(_decided(exported), indent=0)))
    j = run(["import", "exported", "-o", "again", "--workloads"])
    if j.exit != 0:
        return found + ([] if j.exit is None else [f"import of the export exits {j.exit}: {j.output[:300]}"])
    first, second = _statements(work / "imported"), _statements(work / "again")
    if first != second:
        name = next((n for n in sorted(set(first) | set(second)) if first.get(n) != second.get(n)), "")
        found.append(f"import of the export of the import differs in {name}: "
                     f"{_difference(chr(10).join(first.get(name, [])), chr(10).join(second.get(name, [])))}")
    return found
