"""Issue 19's "Done when" on a real API server: the 2,000-Job state (bench/gpu_states.py) read live.

Starts tools/kube-apiserver in a temporary folder (or uses a running one: `--dir DIR` of an earlier
`up DIR`), clears it, and creates `gpu_state(--jobs)` in it as a cluster with Kueue would hold it, with
kubectl (tests/kube/cluster_state.py `load_jobs`): Kueue's ConfigMap as its installation creates it
(`kueue_installed`: the files hold it too, so KAD037 warns only when it is missing), the namespaces, flavors, priority classes and queues;
the Jobs in the order of their creation times; each running Job's status through the status
subresource; the Workload Kueue made of each running Job, named and owned as Kueue names it from the
Job's UID *on this server*, its admission written through the status subresource. The server stamps its
own creation times, so Jobs created in one second are queued by UID (as Kueue orders them) where the
files' times may have ordered them otherwise: the files the `why`s and decisions are compared with are
the state's files with the server's UIDs, times and Workload names written in (`as_held`). Then:

1. the live read: `kadmit snapshot -o FILE` in a fresh process (wall, CPU of kadmit and of its kubectl
   children, objects, bytes);
2. decisions: `kadmit admit --format json` on the files, `--cluster`, and on the snapshot file; the three
   compared per Job (namespace/Job name: the pending Jobs' Workload names differ, as only the server
   gives them UIDs) — the count that differ is printed, with the first few;
3. for each of `--keys` (the four of bench/README's gpu_bench table by default): `kubectl kadmit why
   NS/JOB` end to end (kubectl finds the `kubectl-kadmit` entry point on PATH) against `kadmit why
   NS/JOB FILES` on the same state's files: wall, CPU of the process tree (RUSAGE_CHILDREN: kadmit and
   its kubectl children), lines of output, time to the first line on stdout, the knob the first blame
   line names and whether a fix changes it (read from the JSON answer, `--format json`, run once more),
   and whether the two texts are the same but for their places (`FILE:LINE` against `<cluster C>:LINE`),
   the quotes of values quoted from the text (kubectl writes `"96"` where PyYAML wrote `'96'`) and where
   lines wrap (`placeless`).

The server's own CPU time is not counted. Nothing is asserted. Run:
`nice -n 10 PYTHONPATH=src:bench:tests .venv/bin/python bench/live_gpu.py [--dir DIR] [--jobs 2000]`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "bench")]

import gpu_states  # noqa: E402
import yaml  # noqa: E402

from kadmit.live import discover  # noqa: E402
from kadmit.live.kubectl import Kubectl  # noqa: E402
from kube import cluster_state  # noqa: E402
from kube.server import KubeAPIServer, start, stop  # noqa: E402

KEYS = ("team-00/train-00930", "team-04/train-01071", "team-05/train-00300", "team-09/train-00289")


def children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> dict:
    """Run `cmd`: its output, exit code, wall, CPU of its process tree, and time to its first stdout line."""
    k0, w0 = children(), time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first, out = None, []
    for line in proc.stdout:
        if first is None:
            first = time.monotonic() - w0
        out.append(line)
    err = proc.stderr.read() if proc.stderr else ""
    proc.wait()
    return {"out": "".join(out), "err": err, "rc": proc.returncode, "wall": time.monotonic() - w0,
            "cpu": children() - k0, "first": first}


def server_for(directory: Path | None) -> tuple[KubeAPIServer, Path, bool]:
    if directory is None:
        folder = Path(tempfile.mkdtemp(prefix="kadmit-live-gpu-")) / "kube"
        print(f"starting tools/kube-apiserver in {folder} (about 90 s with the CRDs)...", flush=True)
        return start(folder), folder, True
    env = dict(os.environ, KUBECONFIG=str(directory / "kubeconfig"),
               PATH=f"{directory / 'bin'}:{os.environ['PATH']}", KUBECACHEDIR=str(directory / "cache"))
    return KubeAPIServer(directory, directory / "kubeconfig", directory / "bin" / "kubectl", env), directory, False


def decisions(answer: str) -> dict[str, str]:
    """namespace/Job -> its decision (outcome, queue, flavors, reasons, whom it preempts; not the number of
    its scheduling cycle), from `admit
    --format json`, with every Workload name written as its Job's (only the server gives Jobs UIDs, which
    Kueue's Workload names hash)."""
    body = json.loads(answer)
    names = {d["workload"]: f"{d['object']['namespace']}/{d['object']['name']}" for d in body["decisions"]}
    out = {}
    for d in body["decisions"]:
        text = json.dumps({k: v for k, v in d.items() if k not in ("workload", "object", "cycle")}, sort_keys=True)
        for wl, job in names.items():
            if wl != job and wl in text:
                text = text.replace(wl, job)
        out[names[d["workload"]]] = text
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="a folder where tools/kube-apiserver/up already runs a server")
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--keys", default=",".join(KEYS), help="comma-separated NS/JOB to ask `why` about")
    parser.add_argument("--no-load", action="store_true", help="the server already holds the state (an earlier run)")
    parser.add_argument("--keep", action="store_true", help="keep the files, the files as held and the snapshot")
    args = parser.parse_args()
    server, folder, owned = server_for(args.dir)
    try:
        run(server, args)
    finally:
        if owned:
            stop(folder)


def run(server: KubeAPIServer, args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="kadmit-live-gpu-files-"))
    try:
        measure(server, args, tmp)
    finally:
        if args.keep:
            print(f"\nkept {tmp}: cluster/ jobs/ workloads/ (as generated), as-held/, snapshot.yaml")
        else:
            shutil.rmtree(tmp)


def measure(server: KubeAPIServer, args: argparse.Namespace, tmp: Path) -> None:
    files = {**gpu_states.gpu_state(args.jobs), **cluster_state.kueue_installed()}  # Kueue's ConfigMap as installed
    gpu_states.write_state(files, tmp)
    if not args.no_load:
        kube = Kubectl(str(server.kubectl), kubeconfig=str(server.kubeconfig))
        targets = discover.plan(discover.parse_api_resources(
            kube.run("api-resources", "-o", "wide", "--no-headers").out) or []).targets
        cluster_state.clear(server, [(t.qualified, t.namespaced) for t in targets])
        t0 = time.monotonic()
        counts = cluster_state.load_jobs(server, files)
        print(f"created gpu_state({args.jobs}) with kubectl in {time.monotonic() - t0:.0f} s: "
              + ", ".join(f"{n} {k}" for k, n in counts.items()), flush=True)
    bin_dir = tmp / "plugin-bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl-kadmit").symlink_to(Path(sys.executable).parent / "kubectl-kadmit")
    env = {**server.env, "PATH": f"{bin_dir}:{server.env['PATH']}", "PYTHONPATH": str(ROOT / "src"),
           "NO_COLOR": "1", "COLUMNS": "100"}
    kadmit = [sys.executable, "-m", "kadmit"]
    state = [str(tmp / "cluster"), str(tmp / "jobs"), str(tmp / "workloads")]
    held = tmp / "as-held"
    gpu_states.write_state(cluster_state.as_held(server, files), held)
    as_held = [str(held / "cluster"), str(held / "jobs"), str(held / "workloads")]

    snap = tmp / "snapshot.yaml"
    s = timed([*kadmit, "snapshot", "-o", str(snap)], env)
    print(f"\n`kadmit snapshot`: {s['out'].strip()} (exit {s['rc']}); {snap.stat().st_size:,} bytes; "
          f"{s['cpu']:.2f} s CPU (kadmit + kubectl), {s['wall']:.2f} s wall{s['err'] and ': ' + s['err'][:500]}")

    print("\n`kadmit admit --format json`, a fresh process each:")
    answers = {}
    for name, cmd in (("on the files", [*kadmit, "admit", "--format", "json", *state]),
                      ("on the files as held", [*kadmit, "admit", "--format", "json", *as_held]),
                      ("--cluster", [*kadmit, "admit", "--format", "json", "--cluster"]),
                      ("on the snapshot file", [*kadmit, "admit", "--format", "json", str(snap)])):
        r = timed(cmd, env)
        answers[name] = decisions(r["out"]) if r["out"].startswith("{") else {}
        print(f"  {name:22} exit {r['rc']}  {r['cpu']:7.2f} s CPU {r['wall']:7.2f} s wall  "
              f"{len(answers[name])} workloads{r['err'] and '  stderr: ' + r['err'].splitlines()[0]}", flush=True)
    for one, two in (("on the files as held", "--cluster"), ("on the files as held", "on the snapshot file"),
                     ("--cluster", "on the snapshot file"), ("on the files", "on the files as held")):
        a, b = answers[one], answers[two]
        differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print(f"  {two} vs {one}: {len(set(a) | set(b)) - len(differ)} of {len(set(a) | set(b))} decisions equal"
              + "".join(f"\n    {k}: {one} {(a.get(k) or '-')[:300]}\n    {' ' * len(k)}  {two} {(b.get(k) or '-')[:300]}"
                        for k in differ[:2]))

    print("\n`why`, a fresh process each (CPU: kadmit and its kubectl children):")
    print(f"  {'workload':22} {'how':22} {'exit':>4} {'CPU':>8} {'wall':>8} {'1st line':>9} {'lines':>6}  blame's knob in a fix")
    for key in args.keys.split(","):
        texts = []
        for how, cmd in (("kadmit why FILES", [*kadmit, "why", key, *as_held]),
                         ("kubectl kadmit why", [str(server.kubectl), "kadmit", "why", key])):
            r = timed(cmd, env)
            j = timed([*cmd, "--format", "json"], env) if how == "kubectl kadmit why" else {"out": "(not run)"}
            print(f"  {key:22} {how:22} {r['rc']:>4} {r['cpu']:7.2f}s {r['wall']:7.2f}s "
                  f"{(r['first'] or 0):8.2f}s {len(r['out'].splitlines()):>6}  {knob(j['out'])}"
                  f"{r['err'] and '  stderr: ' + r['err'].splitlines()[0]}", flush=True)
            texts.append(placeless(r["out"]))
            if how == "kubectl kadmit why":
                same = "the same" if texts[0] == texts[1] else "NOT the same"
                print(f"    {same} text as on the files but for places (file:line), quotes and where lines wrap; its "
                      "first lines:\n    "
                      + "\n    ".join(r["out"].splitlines()[:5]))


PLACE = re.compile(r"(<cluster [^>]*>|[\w./-]+\.yaml)(:\d+(:\d+)?)?")
SAME_FILE = re.compile(r"(:\d+ of )?the same file")  # `in the same file`, `:426 of the same file` (render.why)
LATER_PLACE = re.compile(r"(?<![\w>:]):\d+(:\d+)?(?=[,\s]|$)")  # `:116:23` after a place in a list, not a time


def placeless(text: str) -> str:
    """A why text without where things are written: places (`FILE:LINE`, `<cluster C>:LINE`, a fix's `(:LINE)`, a
    fix's `the same file` (on the cluster every object is in one, so a fix says it where on files it names another),
    the later places of a list that names its file once: `at FILE:30:23, :116:23`), quotes (kubectl writes `"96"`
    and `6144Gi` where the files have `'96'` and `"6144Gi"`) and where lines wrap (a longer place wraps a line
    elsewhere)."""
    text = SAME_FILE.sub("PLACE", text)  # a fix in the file of the fix above (every object is in one on the cluster)
    text = LATER_PLACE.sub(":N", re.sub(r"\(:\d+\)", "(:N)", PLACE.sub("PLACE", text)))
    return " ".join(text.replace("'", "").replace('"', "").split())


def knob(answer: str) -> str:
    """Whether a fix changes a line the blame names, read from `why --format json`: the blame's places
    (file, line) against the places each fix's changes edit; the fields changed there."""
    if answer == "(not run)":
        return "-"
    if not answer.startswith("{"):
        return "no JSON answer"
    body = json.loads(answer)
    named = {(b.get("file"), b.get("line")): b.get("kind") for b in body.get("blame") or []}
    hit = sorted({f"{c.get('field')} ({named[c.get('file'), c.get('line')]})" for f in body.get("fixes") or []
                  for c in f.get("changes") or [] if (c.get("file"), c.get("line")) in named})
    return (f"blame {len(named)} places, {len(body.get('fixes') or [])} fixes; a fix changes "
            f"{', '.join(hit) if hit else 'none of them'}")


if __name__ == "__main__":
    main()
