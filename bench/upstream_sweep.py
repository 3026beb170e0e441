"""Upstream example manifests decided by kadmit and by Kueue's own code (tools/kueue-oracle): how many agree.

Each example file of the projects Kueue integrates becomes a cluster, as tests/corpus/upstream's are made
(its README): the file unchanged, with a set-up. Kueue's own site examples take Kueue's own set-up (a file of
their folder holding a ClusterQueue, the first defining a queue the example names where several do, else
`admin/single-clusterqueue-setup.yaml`; TAS set-ups get
tests/corpus/upstream's 8 nodes); every other example a generated one: its Namespaces, a ResourceFlavor
`default-flavor`, a ClusterQueue `cluster-queue` covering every resource the example requests, and in each
namespace a LocalQueue `default` plus the queues the example names. Roomy quota (1000 of each), and where the
example requests something a `-tight` variant too (4 cpu, 8Gi memory, 2 of other resources), so that some
workloads stay pending. Both tools decide every cluster (the oracle in one `--each` process) and
tests/oracle/harness.compare says whether they agree, retrying Kueue with 16 runs where they differ.

    PYTHONPATH=src:tests python bench/upstream_sweep.py [--mirror /work/.mirror] [--out DIR] [--only NAME]
                                                       [--details] [PATH ...]

The sources are the repositories `fetch` mirrors under --mirror (`OWNER+NAME/repo`, a git directory), each
at the revision SOURCES names; a repository not there is reported and left out. PATHs (files or folders of
YAML) are swept as well, with generated set-ups. Prints one line per source (clusters, agreeing) and, with
--details, every difference; exit 0 when all agree, 1 otherwise. The clusters stay in --out (a temporary
folder otherwise removed), one folder each, to rerun by hand:
`kadmit admit --format json DIR/CASE` and `tools/kueue-oracle/kueue-oracle admit --format json DIR/CASE`.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from oracle.differential import RETRY_RUNS, oracle_each  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, variants  # noqa: E402

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TAS_NODES = ROOT / "tests" / "corpus" / "upstream" / "kueue-tas-preferred" / "setup-tas-nodes.yaml"

# name, repository, revision, example globs, companion globs (files every example of the source needs:
# Trainer's runtimes, which its TrainJobs name)
SOURCES = [
    ("jobset", "kubernetes-sigs/jobset", "HEAD", ["site/static/examples/**", "config/samples/*", "examples/**"], []),
    ("lws", "kubernetes-sigs/lws", "HEAD", ["docs/examples/**", "config/samples/*"], []),
    ("kuberay", "ray-project/kuberay", "HEAD", ["ray-operator/config/samples/*"], []),
    ("trainer", "kubeflow/trainer", "HEAD", ["examples/yaml/*"], ["manifests/base/runtimes/**"]),
    ("training-operator-v1.9.3", "kubeflow/trainer", "v1.9.3", ["examples/**"], []),
    ("appwrapper", "project-codeflare/appwrapper", "HEAD", ["samples/*"], []),
    ("mpi-operator", "kubeflow/mpi-operator", "HEAD", ["examples/**"], []),
    ("kueue", "kubernetes-sigs/kueue", "v0.17.0", ["site/static/examples/**"], []),
]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _matches(path: str, globs: list[str]) -> bool:
    return path.endswith((".yaml", ".yml")) and any(fnmatch.fnmatch(path, g.replace("**", "*")) for g in globs)


def _docs(text: str) -> list[dict] | None:
    """The file's objects, or None when it is no manifest kadmit and Kueue are both meant to read (not YAML,
    a template, no object with a kind)."""
    if re.search(r"{{-?\s*[.$]", text):
        return None
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return None
    docs = [d for d in docs if d.get("kind") and d.get("apiVersion")]
    return docs or None


def _walk(x, visit) -> None:
    if isinstance(x, dict):
        visit(x)
        for v in x.values():
            _walk(v, visit)
    elif isinstance(x, list):
        for v in x:
            _walk(v, visit)


def _needs(docs: list[dict]) -> tuple[set[str], set[tuple[str, str]], set[str]]:
    """The namespaces, (namespace, queue) pairs and resources the example uses."""
    namespaces, queues, resources = set(), set(), set()
    for d in docs:
        ns = (d.get("metadata") or {}).get("namespace") or "default"
        namespaces.add(ns)
        if d.get("kind") == "Namespace":
            continue

        def visit(m: dict, ns=ns) -> None:
            labels = m.get("labels")
            if isinstance(labels, dict) and isinstance(labels.get(QUEUE_LABEL), str):
                queues.add((ns, labels[QUEUE_LABEL]))
            res = m.get("resources")
            if isinstance(res, dict):
                for key in ("requests", "limits"):
                    if isinstance(res.get(key), dict):
                        resources.update(str(r) for r in res[key])
        _walk(d, visit)
    return namespaces, queues, resources


def generated_setup(docs: list[dict], tight: bool) -> str:
    namespaces, queues, resources = _needs(docs)
    defined = {(d.get("metadata") or {}).get("name") for d in docs if d.get("kind") == "Namespace"}
    covered = sorted({"cpu", "memory"} | {r for r in resources if r not in ("pods", "ephemeral-storage")})
    quota = {"cpu": 4, "memory": "8Gi"} if tight else {"cpu": 1000, "memory": "1000Ti"}
    objs: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                        for ns in sorted(namespaces - defined)]
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}})
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
                 "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": covered, "flavors": [
                     {"name": "default-flavor", "resources": [
                         {"name": r, "nominalQuota": quota.get(r, 2 if tight else 1000)} for r in covered]}]}]}})
    for ns, q in sorted({(ns, "default") for ns in namespaces} | queues):
        objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                     "metadata": {"name": q, "namespace": ns}, "spec": {"clusterQueue": "cluster-queue"}})
    head = "# generated set-up: one flavor, quota for every resource the example asks for\n"
    return head + yaml.safe_dump_all(objs, sort_keys=False)


def _kueue_setups(files: dict[str, str]) -> dict[str, list[str]]:
    """Kueue's site: each example file -> the set-up files it takes (see the module's docstring)."""
    setups = {p for p, text in files.items() if re.search(r"^kind:\s*ClusterQueue\s*$", text, re.M)}
    default = [p for p in setups if p.endswith("admin/single-clusterqueue-setup.yaml")]
    out = {}
    for p, text in files.items():
        if p in setups:
            continue
        mine = sorted(s for s in setups if s.rsplit("/", 1)[0] == p.rsplit("/", 1)[0])
        # of several in the folder (they define the same objects), the first holding a queue the example names
        queues = re.findall(rf"{re.escape(QUEUE_LABEL)}:\s*['\"]?([\w.-]+)", text)
        named = [s for s in mine if any(re.search(rf"name:\s*['\"]?{re.escape(q)}['\"]?\s*$", files[s], re.M)
                                        for q in queues)]
        out[p] = (named or mine)[:1] or default
    return out


def write_cluster(folder: Path, example: tuple[str, str, str], setup: list[tuple[str, str, str]] | str) -> None:
    """`example` and each set-up file as (name, origin, text); a generated set-up as its text."""
    folder.mkdir(parents=True)
    for name, origin, text in [example, *([] if isinstance(setup, str) else setup)]:
        (folder / name).write_text(f"# upstream: {origin}; unchanged below this line\n{text}")
    if isinstance(setup, str):
        (folder / "setup.yaml").write_text(setup)


def clusters_of(name: str, repo: Path, rev: str, globs: list[str], companions: list[str],
                out: Path) -> tuple[list[Path], int]:
    """The clusters of one source written under `out`, and how many example files were no manifest."""
    commit = _git(repo, "rev-parse", rev).strip()
    slug = repo.parent.name.replace("+", "/")
    listed = _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()

    def text(p: str) -> str:
        return _git(repo, "show", f"{commit}:{p}")

    origin = f"{slug} %s at {commit[:8]}" + (f" ({rev})" if rev != "HEAD" else "") + ", Apache-2.0"  # every source's
    extra = [(p.rsplit("/", 1)[-1], origin % p, text(p)) for p in listed if _matches(p, companions)]
    extra = [e for e in extra if _docs(e[2])]
    files = {p: text(p) for p in listed if _matches(p, globs)}
    kueue = _kueue_setups(files) if name == "kueue" else None
    made, unread = [], 0
    for p, body in sorted(files.items()):
        docs = _docs(body)
        if docs is None or (kueue is not None and p not in kueue):
            unread += docs is None
            continue
        case = f"{name}_{p.rsplit('.', 1)[0].replace('/', '_')}"
        example = (p.rsplit("/", 1)[-1], origin % p, body)
        if kueue is not None:
            setup = [("setup-" + s.rsplit("/", 1)[-1], origin % s, files[s]) for s in kueue[p]]
            if any("kind: Topology" in s[2] for s in setup):
                setup.append(("setup-tas-nodes.yaml", "tests/corpus/upstream (made for it)", TAS_NODES.read_text()))
            write_cluster(out / case, example, setup + extra)
            made.append(out / case)
            continue
        write_cluster(out / case, example, generated_setup(docs, tight=False))
        for e in extra:
            (out / case / e[0]).write_text(f"# upstream: {e[1]}; unchanged below this line\n{e[2]}")
        made.append(out / case)
        if _needs(docs)[2]:
            write_cluster(out / f"{case}-tight", example, generated_setup(docs, tight=True))
            for e in extra:
                (out / f"{case}-tight" / e[0]).write_text(f"# upstream: {e[1]}; unchanged below this line\n{e[2]}")
            made.append(out / f"{case}-tight")
    return made, unread


def clusters_of_paths(paths: list[Path], out: Path) -> tuple[list[Path], int]:
    made, unread = [], 0
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*.y*ml")))]
    for f in files:
        docs = _docs(f.read_text())
        if docs is None:
            unread += 1
            continue
        case = "paths_" + re.sub(r"[^A-Za-z0-9.-]+", "_", str(f.resolve()).lstrip("/")).rsplit(".", 1)[0]
        for tight in (False, True) if _needs(docs)[2] else (False,):
            write_cluster(out / (case + ("-tight" if tight else "")), (f.name, str(f), f.read_text()),
                          generated_setup(docs, tight))
            made.append(out / (case + ("-tight" if tight else "")))
    return made, unread


def judge(binary: str, clusters: list[Path], aside: dict[Path, list[str]]) -> dict[Path, str | None]:
    """Each cluster -> None where kadmit and Kueue agree, else what differs; in `aside`, the workloads of
    an agreeing cluster kadmit declined to decide for an error of the input (which Kueue decided: the
    comparison sets them aside, as tests/oracle does)."""
    answers = oracle_each(binary, clusters)
    out: dict[Path, str | None] = {}
    for path in clusters:
        kueue = answers[str(path)]
        if "error" in kueue:
            out[path] = "the oracle failed: " + kueue["error"][:300]
            continue
        code, kadmit = run_kadmit([str(path)])
        if kadmit is None:
            out[path] = f"kadmit refused the input (exit {code})"
            continue
        k, q = from_kadmit(kadmit), from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
        if not result.agree:
            kueue = oracle_each(binary, [path], runs=RETRY_RUNS)[str(path)]
            q = from_oracle(kueue)
            result = compare(k, q, alternatives=variants(kueue))
        out[path] = None if result.agree else result.report(k, q)
        if result.agree and result.undecided:
            aside[path] = sorted(result.undecided)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="more example files or folders (generated set-ups)")
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where `fetch` mirrors repositories")
    ap.add_argument("--out", type=Path, help="write the clusters here and keep them (default: a temporary folder)")
    ap.add_argument("--only", action="append", default=[], help="only this source (repeatable)")
    ap.add_argument("--details", action="store_true", help="print every difference")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="kadmit-upstream-"))
    if args.out is not None and out.exists() and any(out.iterdir()):
        print(f"{out} is not empty", file=sys.stderr)
        return 2
    by_source: dict[str, list[Path]] = {}
    unread: dict[str, int] = {}
    try:
        for name, slug, rev, globs, companions in SOURCES:
            if args.only and name not in args.only:
                continue
            repo = args.mirror / slug.replace("/", "+") / "repo"
            if not (repo / "HEAD").exists():
                print(f"{name}: no mirror of {slug} at {repo} (fetch github:{slug}); left out")
                continue
            by_source[name], unread[name] = clusters_of(name, repo, rev, globs, companions, out)
        if args.paths:
            by_source["paths"], unread["paths"] = clusters_of_paths(args.paths, out)
        every = [c for cs in by_source.values() for c in cs]
        aside: dict[Path, list[str]] = {}
        verdicts = judge(oracle_binary(), every, aside) if every else {}
        agree_all = 0
        for name, cs in by_source.items():
            agree = sum(1 for c in cs if verdicts[c] is None)
            agree_all += agree
            held = sum(1 for c in cs if c in aside)
            print(f"{name}: {agree} of {len(cs)} clusters agree ({held} of them with workloads kadmit declined "
                  f"for an input error; {unread[name]} files not manifests)")
        print(f"all: {agree_all} of {len(every)} clusters agree ({len(aside)} of them with workloads kadmit "
              "declined for an input error)")
        for c in every:
            if verdicts[c] is not None:
                print(f"differs: {c.name}" + (f"\n  {verdicts[c].replace(chr(10), chr(10) + '  ')}" if args.details else ""))
        for c in every:
            if c in aside:
                print(f"declined: {c.name}: {', '.join(aside[c])}")
        return 0 if agree_all == len(every) else 1
    finally:
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
