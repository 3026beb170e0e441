"""Every CLI verb on one (mutated) case, each call in a forked child with a time and memory limit, and
what is wrong with the answers: a traceback or internal error, an exit code outside 0-3, a hang, a
failure without a located KAD code, text differing between two runs, `admit` and `why` disagreeing on
a workload, `check` passing what `admit` refuses as unusable, `fmt` not idempotent or changing what
`check` and `admit` say. Used by tests/fuzz/test_fuzz_cli.py and bench/fuzz_cli.py.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner
from robustness.hostile_files import EXCEPTION, problems

from kadmit.cli import cli  # imported once, before the children fork

VERBS = ["check", "check-json", "admit", "admit-json", "why", "why-human", "fmt", "test", "diff", "simulate",
         "export", "import", "codes"]
_CTX = multiprocessing.get_context("fork")
MEMORY = 3 << 30  # bytes a call may hold
WALL = 30  # a call's wall-time limit, in multiples of its CPU-time limit (the machine may be shared)


@dataclass
class Call:
    verb: str
    args: list[str]
    exit: int | None  # None: timed out
    stdout: str = ""
    output: str = ""  # stdout and stderr
    seconds: float = 0.0
    exception: str = ""  # an exception that left click's runner


@dataclass
class Outcome:
    calls: list[Call] = field(default_factory=list)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (verb, what)

    def find(self, verb: str, what: str) -> None:
        self.findings.append((verb, what))


def _child(args: list[str], cwd: str, conn, env: dict[str, str], cpu: float) -> None:
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cpu), math.ceil(cpu) + 5))  # SIGXCPU past it
    except (ValueError, OSError):
        pass
    os.chdir(cwd)
    os.environ.pop("KADMIT_TRACEBACK", None)
    os.environ.update(env)
    start = time.process_time()
    result = CliRunner().invoke(cli, args, catch_exceptions=True)
    seconds = time.process_time() - start
    exc = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = f"{type(result.exception).__name__}: {str(result.exception)[:300]}"
    conn.send((result.exit_code, result.stdout, result.output, seconds, exc))
    conn.close()


def call(verb: str, args: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> Call:
    """`kadmit ARGS` in a forked child; exit None when it used more than `timeout` seconds of CPU (a
    shared machine's load stretches wall time, not CPU time) or WALL times that in wall time."""
    parent, child = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(args, str(cwd), child, {"COLUMNS": "100", **(env or {})}, timeout))
    start = time.monotonic()
    proc.start()
    child.close()
    got = None
    if parent.poll(timeout * WALL):
        try:
            got = parent.recv()
        except EOFError:  # the child died: its CPU limit (a hang), the memory limit's fallout, a signal
            proc.join(30)
            if proc.exitcode == -signal.SIGXCPU:
                got = None
            else:
                got = (proc.exitcode if proc.exitcode is not None else -1, "", f"child died: exit {proc.exitcode}",
                       0.0, "")
    proc.join(0 if got is None else 30)
    if proc.is_alive():
        proc.kill()
        proc.join()
    parent.close()
    if got is None:
        return Call(verb, args, None, seconds=time.monotonic() - start)
    code, stdout, output, seconds, exc = got
    return Call(verb, args, code, stdout, output, seconds, exc)


def _json(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def _basic(out: Outcome, c: Call, *, located: bool = True, timeout: float) -> None:
    """Findings any call can have."""
    out.calls.append(c)
    if c.exit is None:
        out.find(c.verb, f"hang: no answer within {timeout:g} s of CPU: kadmit {' '.join(c.args)}")
        return
    if c.exception:
        out.find(c.verb, f"exception {c.exception}: kadmit {' '.join(c.args)}")
    if c.exit not in (0, 1, 2, 3):
        out.find(c.verb, f"exit {c.exit}: kadmit {' '.join(c.args)}: {_first_line(c.output)}")
        return
    if "Traceback" in c.output or "internal error" in c.output:
        out.find(c.verb, f"traceback: kadmit {' '.join(c.args)}: {_first_line(c.output)}")
        return
    if located:
        located_blocks = re.search(r"^\s*-->\s*\S+:\d+:\d+", c.output, re.M)
        for p in problems(c.exit, c.output):
            if p.startswith("an error without a location") and located_blocks:
                continue  # a summary (e.g. KAD921 "the input has errors") above located errors
            if "error[KAD004]" in c.output and not located_blocks:
                continue  # nothing to decide: no line holds it
            out.find(c.verb, f"{p}: kadmit {' '.join(c.args)}: {_first_line(c.output)}")
    elif c.exit == 2:  # structured output: at least a KAD code
        if not re.search(r"KAD\d{3}", c.output):
            out.find(c.verb, f"exit 2 without a KAD code: kadmit {' '.join(c.args)}: {_first_line(c.output)}")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if EXCEPTION.search(line) or "error" in line:
            return line[:200]
    return text.strip().splitlines()[0][:200] if text.strip() else "(no output)"


def _again(out: Outcome, first: Call, cwd: Path, timeout: float) -> None:
    """The same call once more: the same text."""
    if first.exit is None:
        return
    second = call(first.verb, first.args, cwd, timeout)
    if second.exit is None:
        out.find(first.verb, f"hang on a second run: kadmit {' '.join(first.args)}")
    elif (second.exit, _untimed(second.output)) != (first.exit, _untimed(first.output)):
        out.find(first.verb, f"differs between two runs: kadmit {' '.join(first.args)}: "
                             f"{_difference(first.output, second.output)}")


def _untimed(text: str) -> str:
    """JSON output without its measured times (`"seconds": 0.03`, `"solve_seconds": ...`)."""
    return re.sub(r'("\w*seconds\w*": )[0-9.e-]+', r"\1T", text)


def _difference(a: str, b: str) -> str:
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return f"{x[:120]!r} vs {y[:120]!r}"
    return f"{len(a.splitlines())} lines vs {len(b.splitlines())}"


def _hashseed(out: Outcome, first: Call, cwd: Path, timeout: float) -> None:
    """The same call in a fresh interpreter with other string hashes: the same text."""
    if first.exit is None:
        return
    env = {**os.environ, "PYTHONHASHSEED": "12345", "COLUMNS": "100"}
    env.pop("KADMIT_TRACEBACK", None)
    try:
        p = subprocess.run([sys.executable, "-m", "kadmit", *first.args], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=timeout * WALL)
    except subprocess.TimeoutExpired:
        out.find(first.verb, f"hang under another hash seed: kadmit {' '.join(first.args)}")
        return
    if (p.returncode, _untimed(p.stdout)) != (first.exit, _untimed(first.stdout)):
        out.find(first.verb, f"differs under another hash seed: kadmit {' '.join(first.args)}: "
                             f"exit {first.exit} vs {p.returncode}: {_difference(first.stdout, p.stdout)}")


def _decisions(admit_json) -> dict[str, dict]:
    if not isinstance(admit_json, dict):
        return {}
    return {d["workload"]: d for d in admit_json.get("decisions", []) if isinstance(d, dict) and "workload" in d}


def _agree(out: Outcome, name: str, decision: dict, why: dict) -> None:
    """admit's decision on a workload and why's answer for it say the same."""
    if decision.get("unknown") or why.get("unknown"):
        return
    if bool(decision.get("admitted")) != bool(why.get("admitted")):
        out.find("why", f"contradicts admit on {name}: admit admitted={decision.get('admitted')}, "
                        f"why admitted={why.get('admitted')}")
        return
    if decision.get("admitted") and decision.get("cluster_queue") != why.get("cluster_queue"):
        out.find("why", f"contradicts admit on {name}: cluster queue {decision.get('cluster_queue')} vs "
                        f"{why.get('cluster_queue')}")
    if decision.get("admitted"):
        flavors = {p["name"]: p.get("flavors") for p in decision.get("pod_sets", [])}
        counts = {p["name"]: p.get("count") for p in decision.get("pod_sets", [])}
        if why.get("flavors") is not None and flavors != why.get("flavors"):
            out.find("why", f"contradicts admit on {name}: flavors {flavors} vs {why.get('flavors')}")
        if why.get("counts") is not None and counts != why.get("counts"):
            out.find("why", f"contradicts admit on {name}: counts {counts} vs {why.get('counts')}")


def _meaning(admit_json) -> object:
    """What admit decided, without where in the files (fmt moves lines)."""
    if not isinstance(admit_json, dict):
        return admit_json
    keep = ("workload", "admitted", "quota_reserved", "cluster_queue", "pod_sets", "borrowing", "preempted",
            "preempted_by", "unknown")
    return [{k: d.get(k) for k in keep} for d in admit_json.get("decisions", []) if isinstance(d, dict)]


def _codes(output: str, severity: str = "error|warning") -> list[str]:
    return sorted(set(re.findall(rf"^(?:{severity})\[(KAD\d{{3}})\]", output, re.M)))


def write(folder: Path, files: dict[str, str | bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8", "surrogatepass"))


def run_case(work: Path, original: dict[str, str], mutated: dict[str, str | bytes], *, timeout: float = 60.0,
             whys: int = 2, verbs: set[str] | None = None, again: bool = True, hashseed: bool = False,
             rng=None) -> Outcome:
    """Every verb (or those in `verbs`) on `mutated`, in folder `work` (made empty first)."""
    import random
    rng = rng or random.Random(0)
    verbs = verbs or set(VERBS)
    shutil.rmtree(work, ignore_errors=True)
    case, base = work / "case", work / "base"
    write(case, mutated)
    write(base, original)
    out = Outcome()
    kads = sorted(n for n in mutated if n.endswith(".kad"))

    def go(verb: str, args: list[str], **kw) -> Call:
        c = call(verb, args, work, timeout)
        _basic(out, c, timeout=timeout, **kw)
        return c

    check = go("check", ["check", "case"]) if "check" in verbs or "admit" in verbs else None
    if check and again:
        _again(out, check, work, timeout)
    if "check-json" in verbs:
        go("check-json", ["check", "case", "--format", "json"], located=False)
    admit = go("admit", ["admit", "case"]) if "admit" in verbs else None
    if admit and hashseed:
        _hashseed(out, admit, work, timeout)
    admit_json = None
    if "admit-json" in verbs or "why" in verbs:
        aj = go("admit-json", ["admit", "case", "--format", "json"], located=False)
        if again:
            _again(out, aj, work, timeout)
        admit_json = _json(aj.stdout) if aj.exit in (0, 1) else None
        if aj.exit in (0, 1) and admit_json is None:
            out.find("admit-json", "exit 0/1 with no JSON on stdout")
    if check and admit and check.exit is not None and admit.exit == 2:
        missed = set(_codes(admit.output, "error")) - set(_codes(check.output, "error")) - {"KAD004"}
        if missed:  # (KAD004: nothing to decide, no error in what check validates)
            out.find("check", f"check (exit {check.exit}) does not report the errors admit refuses the input for: "
                              f"{sorted(missed)}: {_first_line(admit.output)}")
    if check and admit and check.exit == 0 and admit.exit is not None and re.search(r"`kadmit check` lists (them|it)",
                                                                                   admit.output):
        out.find("admit", f"admit points at `kadmit check` for errors, and check passes (exit 0): "
                          f"{_first_line(admit.output)}")
    decisions = _decisions(admit_json)
    if "why" in verbs and decisions:
        names = sorted(decisions)
        for name in rng.sample(names, min(whys, len(names))):
            w = go("why", ["why", name, "case", "--format", "json"], located=False)
            got = _json(w.stdout) if w.exit in (0, 1) else None
            if w.exit == 2 and admit_json is not None:
                out.find("why", f"admit decides {name} but why refuses the input (exit 2): {_first_line(w.output)}")
            if isinstance(got, dict):
                _agree(out, name, decisions[name], got)
            elif w.exit in (0, 1):
                out.find("why", f"why {name} exit {w.exit} with no JSON on stdout")
            if "why-human" in verbs and w.exit in (0, 1):
                h = go("why-human", ["why", name, "case"], located=False)
                if h.exit is not None and h.exit != w.exit:
                    out.find("why-human", f"why {name}: exit {h.exit} in text, {w.exit} in JSON")
                if h.exit is not None and again and rng.random() < 0.3:
                    _again(out, h, work, timeout)
    if "fmt" in verbs and kads:
        _fmt(out, work, case, mutated, kads, rng, timeout, check, admit_json)
    if "test" in verbs and any(n.endswith(".kadtest.yaml") for n in mutated):
        go("test", ["test", "case"])
    if "diff" in verbs and rng.random() < 0.5:
        go("diff", ["diff", "base", "case", "--no-envelopes"], located=False)
    if "simulate" in verbs:
        go("simulate", ["simulate", "case", "--until", "6h"])
    if "export" in verbs and kads:
        e = go("export", ["export", "case", "-o", "exported", "--workloads", "--nodes"])
        if e.exit == 0 and admit_json is not None:
            _round_trip(out, work, "export", "exported", admit_json, timeout, keep_object=True)
    if "import" in verbs and any(n.endswith((".yaml", ".yml", ".json")) and not n.endswith(".kadtest.yaml")
                                 for n in mutated):
        i = go("import", ["import", "case", "-o", "imported", "--workloads"])
        if i.exit == 0 and admit_json is not None and (work / "imported").is_dir() \
                and not any(w in i.output for w in _NO_KAD_FORM):
            _round_trip(out, work, "import", "imported", admit_json, timeout, keep_object=False)
    if "codes" in verbs and rng.random() < 0.05:
        go("codes", ["codes"])
    return out


# What the `.kad` language can't say changes decisions only through these, which import reports (KAD920)
# (tests/export/test_import.py's DECIDING)
_NO_KAD_FORM = ("bound to node", "gang kube-scheduler places", "pod-set slices", "DRA claims", "recorded usage",
                "resources (excluded", "LimitRange", "RuntimeClass", "inadmissible", "admissionFairSharing",
                "the UIDs of", "Requeued condition", "eviction time", "Kueue cannot parse", "admission-gated-by",
                "preemption gate", "priority-boost", "Preempted condition", "DeviceClass",
                "SchedulingEquivalenceHashing compares")


def _round_trip(out: Outcome, work: Path, verb: str, folder: str, admit_json, timeout: float, *,
                keep_object: bool) -> None:
    """What export (or import) wrote decides as its input did: `admit --format json` the same but the
    times (and, for an import, the object each decision stands for: a `.kad` workload stands for itself)."""
    a = call("admit-json", ["admit", folder, "--format", "json"], work, timeout)
    _basic(out, a, timeout=timeout, located=False)
    back = _json(a.stdout) if a.exit in (0, 1, 3) else None
    if a.exit is None:
        return
    if not isinstance(back, dict):
        out.find(verb, f"admit on what {verb} wrote exits {a.exit}: {_first_line(a.output)}")
        return

    def unnamed(x: dict) -> dict:  # Kueue's name of a Workload: the `.kad` workload's is its own
        return {k: v for k, v in x.items() if keep_object or k not in ("kueue_workload", "kueue_workload_unknown")}

    def same(d: dict) -> list:
        return [{k: [unnamed(v) for v in vs] if k == "preempted" else vs for k, vs in unnamed(x).items()
                 if keep_object or k != "object"} for x in d.get("decisions", [])]
    if same(back) != same(admit_json):
        out.find(verb, f"what {verb} wrote decides otherwise: {_difference(json.dumps(same(admit_json), indent=0), json.dumps(same(back), indent=0))}")


def _fmt(out: Outcome, work: Path, case: Path, mutated, kads: list[str], rng, timeout: float, check: Call | None,
         admit_json) -> None:
    """fmt each of up to two `.kad` files: idempotent, and the formatted folder means the same."""
    formatted = dict(mutated)
    changed = False
    for name in rng.sample(kads, min(2, len(kads))):
        c = call("fmt", ["fmt", f"case/{name}"], work, timeout)
        _basic(out, c, timeout=timeout)
        if c.exit != 0:
            continue
        if c.stdout != (mutated[name] if isinstance(mutated[name], str) else None):
            changed = True
        formatted[name] = c.stdout
        write(work / "fmt1", {name: c.stdout})
        c2 = call("fmt", ["fmt", f"fmt1/{name}"], work, timeout)
        _basic(out, c2, timeout=timeout)
        if c2.exit == 0 and c2.stdout != c.stdout:
            out.find("fmt", f"not idempotent on {name}: {_difference(c.stdout, c2.stdout)}")
        elif c2.exit != 0:
            out.find("fmt", f"fmt of its own output of {name} exits {c2.exit}: {_first_line(c2.output)}")
    if not changed or check is None or check.exit is None:
        return
    write(work / "formatted", formatted)
    c = call("check", ["check", "formatted"], work, timeout)
    _basic(out, c, timeout=timeout)
    if c.exit is not None and (c.exit, _codes(c.output)) != (check.exit, _codes(check.output)):
        out.find("fmt", f"changes what check says: exit {check.exit} {_codes(check.output)} -> "
                        f"{c.exit} {_codes(c.output)}")
    if admit_json is not None:
        a = call("admit-json", ["admit", "formatted", "--format", "json"], work, timeout)
        _basic(out, a, timeout=timeout, located=False)
        if a.exit is not None and _meaning(_json(a.stdout)) != _meaning(admit_json):
            out.find("fmt", "changes what admit decides")
