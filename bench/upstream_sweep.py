"""Upstream example manifests decided by kadmit and by Kueue's own code (tools/kueue-oracle): how many agree.

Each example file of the projects Kueue integrates becomes a cluster, as tests/corpus/upstream's are made
(its README): the file unchanged, with a set-up. Kueue's own site examples take Kueue's own set-up (a file of
their folder holding a ClusterQueue, the first defining a queue the example names where several do, else
`admin/single-clusterqueue-setup.yaml`; TAS set-ups get
tests/corpus/upstream's 8 nodes); every other example a generated one: its Namespaces, a ResourceFlavor
`default-flavor`, a ClusterQueue `cluster-queue` covering every resource the example requests, and in each
namespace a LocalQueue `default` plus the queues the example names. Roomy quota (1000 of each), and where the
example requests something a `-tight` variant too (4 cpu, 8Gi memory, 2 of other resources), so that some
workloads stay pending. A generated set-up leaves out what the example defines itself, and an example
holding a ClusterQueue (a document's block) is its own set-up: only its namespaces are added. Documents
(Markdown: Kueue's site and KEPs, the others' docs and proposals) give each fenced YAML block that is whole
objects as an example, a block copied into another document once. Both tools decide every cluster (the
oracle in one `--each` process) and tests/oracle/harness.compare says whether they agree, retrying Kueue with
16 runs where they differ. An input kadmit refuses as a whole (exit 2) agrees where Kueue's oracle refuses it
too (a Configuration Kueue's manager would not start with) or, with --kube, where the API server refuses one
of its objects (`kubectl create --dry-run=server`: a missing name, a duplicate field, an unknown one); both
reasons are printed (`refused:` lines). --cli also runs `kadmit check`, `admit` and `why` (its pending
workloads, two a cluster) on each: an internal error, an undocumented exit code or a diagnostic without its
file:line:col is printed (`cli:` lines).

    PYTHONPATH=src:tests python bench/upstream_sweep.py [--mirror /work/.mirror] [--out DIR] [--only NAME]
                                                       [--details] [--kube KUBE] [--cli] [PATH ...]

The sources are the repositories `fetch` mirrors under --mirror (`OWNER+NAME/repo`, a git directory), each
at the revision SOURCES names; a repository not there is reported and left out. PATHs (files or folders of
YAML) are swept as well, with generated set-ups. Prints one line per source (clusters, agreeing) and, with
--details, every difference; exit 0 when all agree, 1 otherwise. The clusters stay in --out (a temporary
folder otherwise removed), one folder each, to rerun by hand:
`kadmit admit --format json DIR/CASE` and `tools/kueue-oracle/kueue-oracle admit --format json DIR/CASE`.
"""

from __future__ import annotations

import argparse
import ctypes
import fnmatch
import gc
import re
import resource
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
from upstream_sources import LICENSES, REPEATS, SOURCES  # noqa: E402

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TAS_NODES = ROOT / "tests" / "corpus" / "upstream" / "kueue-tas-preferred" / "setup-tas-nodes.yaml"



def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _matches(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, g.replace("**", "*")) and path.endswith((".md",) if g.endswith(".md")
                                                                           else (".yaml", ".yml")) for g in globs)


FENCE = re.compile(r"^([ \t]*)(```+|~~~+)[ \t]*(\w*)[^\n]*\n(.*?)^\1\2[ \t]*$", re.M | re.S)


def _md_blocks(text: str) -> list[tuple[int, str]]:
    """A Markdown document's fenced YAML blocks (language yaml/yml, or none with an `apiVersion:` line), each
    as (line of its first YAML line, text without the fence's indentation)."""
    out = []
    for m in FENCE.finditer(text):
        indent, lang, body = m.group(1), m.group(3).lower(), m.group(4)
        if lang not in ("yaml", "yml", "") or (not lang and not re.search(r"^\s*apiVersion:", body, re.M)):
            continue
        lines = [ln[len(indent):] if ln.startswith(indent) else ln.lstrip() for ln in body.splitlines()]
        out.append((text.count("\n", 0, m.start(4)) + 1, "\n".join(lines) + "\n"))
    return out


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


def _key(d: dict) -> tuple:
    meta = d.get("metadata") or {}
    return d.get("kind"), meta.get("namespace"), meta.get("name")


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
    def named(kind: str) -> set:
        return {((d.get("metadata") or {}).get("namespace") or "default", (d.get("metadata") or {}).get("name"))
                for d in docs if d.get("kind") == kind}
    defined = {n for _, n in named("Namespace")}
    covered = sorted({"cpu", "memory"} | {r for r in resources if r not in ("pods", "ephemeral-storage")})
    quota = {"cpu": 4, "memory": "8Gi"} if tight else {"cpu": 1000, "memory": "1000Ti"}
    objs: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                        for ns in sorted(namespaces - defined)]
    head = "# generated set-up: one flavor, quota for every resource the example asks for\n"
    if named("ClusterQueue"):  # the example is its own set-up (a document's block): only its namespaces
        return head + yaml.safe_dump_all(objs, sort_keys=False) if objs else head
    if "default-flavor" not in {n for _, n in named("ResourceFlavor")}:
        objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                     "metadata": {"name": "default-flavor"}})
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
                 "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": covered, "flavors": [
                     {"name": "default-flavor", "resources": [
                         {"name": r, "nominalQuota": quota.get(r, 2 if tight else 1000)} for r in covered]}]}]}})
    for ns, q in sorted(({(ns, "default") for ns in namespaces} | queues) - named("LocalQueue")):
        objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                     "metadata": {"name": q, "namespace": ns}, "spec": {"clusterQueue": "cluster-queue"}})
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


def clusters_of(name: str, repo: Path, rev: str, globs: list[str], companions: list[str], setup_kind: str,
                out: Path) -> tuple[list[Path], int]:
    """The clusters of one source written under `out`, and how many example files (or documents' YAML blocks)
    were no manifest."""
    commit = _git(repo, "rev-parse", rev + "^{commit}").strip()  # a tag names its commit
    slug = repo.parent.name.replace("+", "/")
    listed = _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()

    def text(p: str) -> str:
        return _git(repo, "show", f"{commit}:{p}")

    origin = (f"{slug} %s at {commit[:8]}" + (f" ({rev})" if rev not in ("HEAD", commit) else "")
              + f", {LICENSES.get(slug, 'Apache-2.0')}")
    extra = [(p.rsplit("/", 1)[-1], origin % p, text(p)) for p in listed if _matches(p, companions)]
    extra = [e for e in extra if _docs(e[2])]
    files: dict[str, str] = {}
    seen: set[str] = set()
    for p in listed:
        if not _matches(p, globs):
            continue
        if not p.endswith(".md"):
            files[p] = text(p)
            continue
        for line, block in _md_blocks(text(p)):
            if block not in seen:  # a block copied into another document (a translation, an older version's)
                seen.add(block)
                files[f"{p.rsplit('.', 1)[0]}-L{line}.yaml"] = block
    kueue = _kueue_setups(files) if setup_kind == "kueue" else None
    made, unread = [], 0
    if setup_kind in ("folder", "whole"):
        return folder_clusters(name, files, origin, out, whole=setup_kind == "whole")
    for p, body in sorted(files.items()):
        docs = _docs(body)
        if docs is None or (kueue is not None and p not in kueue):
            unread += docs is None
            continue
        case = f"{name}_{p.rsplit('.', 1)[0].replace('/', '_')}"
        where = p
        if m := re.fullmatch(r"(.*)-L(\d+)\.yaml", p):
            if m.group(1) + ".md" in listed:
                where = f"{m.group(1)}.md (the YAML block at line {m.group(2)})"
        example = (p.rsplit("/", 1)[-1], origin % where, body)
        if kueue is not None:
            setup = [("setup-" + s.rsplit("/", 1)[-1], origin % s, files[s]) for s in kueue[p]]
            if any("kind: Topology" in s[2] for s in setup):
                setup.append(("setup-tas-nodes.yaml", "tests/corpus/upstream (made for it)", TAS_NODES.read_text()))
            write_cluster(out / case, example, setup + extra)
            made.append(out / case)
            continue
        if setup_kind == "companions":
            write_cluster(out / case, example, extra)
            made.append(out / case)
            continue
        own = any(d.get("kind") == "ClusterQueue" for d in docs)  # its own set-up: no tight variant
        defines = {_key(d) for d in docs}
        for tight in (False, True) if _needs(docs)[2] and not own else (False,):
            folder = out / (case + ("-tight" if tight else ""))
            write_cluster(folder, example, generated_setup(docs, tight=tight))
            # a companion the example defines again (a document's own runtime of a runtime's name) left out
            for e in [e for e in extra if not defines & {_key(d) for d in _docs(e[2]) or []}]:
                (folder / e[0]).write_text(f"# upstream: {e[1]}; unchanged below this line\n{e[2]}")
            made.append(folder)
    return made, unread


def folder_clusters(name: str, files: dict[str, str], origin: str, out: Path,
                    whole: bool = False) -> tuple[list[Path], int]:
    """Set-up kind "folder" (a tutorial's folder: its ResourceFlavors, ClusterQueues, LocalQueues and jobs in
    files side by side, applied together): each folder of which a file holds a ClusterQueue is one cluster
    of all its manifests, each file unchanged, and a set-up of the Namespaces they use that none defines.
    Where a file holds an object of a `generateName`, a `-repeated` cluster too, with each such file REPEATS
    times (the tutorial creating its jobs in a loop). Other files are left out; how many of the folders'
    files were no manifest is returned with the clusters. `whole` (set-up kind "whole": a demo repository whose
    set-up and jobs lie in folders side by side, applied together): every file one folder, `name_all`, each
    file named by its path."""
    folders: dict[str, list[str]] = {}
    for p in sorted(files):
        folders.setdefault("all" if whole else p.rsplit("/", 1)[0] if "/" in p else ".", []).append(p)

    def base(p: str) -> str:
        return p.replace("/", "_") if whole else p.rsplit("/", 1)[-1]
    made, unread = [], 0
    for folder, paths in sorted(folders.items()):
        parsed = {p: _docs(files[p]) for p in paths}
        if not any(d.get("kind") == "ClusterQueue" for docs in parsed.values() for d in docs or []):
            continue
        unread += sum(1 for docs in parsed.values() if docs is None)
        every = [d for docs in parsed.values() for d in docs or []]
        case = out / f"{name}_{folder.replace('/', '_')}"
        names = [base(p) for p in paths if parsed[p] is not None]
        if len(set(names)) != len(names) or "setup.yaml" in names:
            raise SystemExit(f"{name}: {folder}: two files of one name")
        case.mkdir(parents=True)
        for p in paths:
            if parsed[p] is not None:
                (case / base(p)).write_text(f"# upstream: {origin % p}; unchanged below this line\n"
                                                         f"{files[p]}")
        (case / "setup.yaml").write_text(generated_setup(every, tight=False))
        made.append(case)
        # the tutorial's jobs created again and again (`kubectl create -f` in a loop, as GKE's kueue-intro and
        # kueue-cohort create_jobs.sh do): each file of a `generateName` object REPEATS times, so that quotas fill
        again = [p for p in paths if any((d.get("metadata") or {}).get("generateName")
                                         and not (d.get("metadata") or {}).get("name") for d in parsed[p] or [])]
        if again:
            shutil.copytree(case, case.with_name(case.name + "-repeated"))
            for p in again:
                stem, dot, ext = base(p).rpartition(".")
                for i in range(2, REPEATS + 1):
                    shutil.copy(case / f"{stem}{dot}{ext}", case.with_name(case.name + "-repeated") / f"{stem}-{i}.{ext}")
            made.append(case.with_name(case.name + "-repeated"))
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


def _first_error(path: Path) -> str:
    from kadmit import api

    errors = [d for d in api.check([str(path)]).diagnostics if d.severity.name == "ERROR"]
    if not errors:
        return "no error"
    d = errors[0]
    return f"{d.code} {d.message}" + (f" ({d.span.file.rsplit('/', 1)[-1]}:{d.span.line})" if d.span else "")


def server_refusal(kube: Path, path: Path) -> str | None:
    """kubectl's word where the API server up in `kube` (tools/kube-apiserver/up KUBE) refuses an object of
    the cluster (`kubectl create --dry-run=server -f FILE`, each file as written: strict field validation,
    kubectl's own YAML decoding; its namespaces created first), None when it takes them all. A kind it has no
    CRD for is no refusal here (kadmit lists those as not read), nor an object of a name it already holds."""
    kubectl = [str(kube / "bin" / "kubectl"), "--kubeconfig", str(kube / "kubeconfig")]
    docs = [d for f in sorted(path.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text())
            if isinstance(d, dict) and d.get("kind")]
    names = sorted({(d.get("metadata") or {}).get("namespace") or "default" for d in docs}
                   | {(d.get("metadata") or {}).get("name") for d in docs if d.get("kind") == "Namespace"} - {None})
    subprocess.run([*kubectl, "apply", "-f", "-"], capture_output=True, text=True, input=yaml.safe_dump_all(
        [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in names if isinstance(n, str)]))
    for f in sorted(path.glob("*.yaml")):
        proc = subprocess.run([*kubectl, "create", "--dry-run=server", "-f", str(f)], capture_output=True, text=True)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not any(
            k in ln for k in ("no matches for kind", "ensure CRDs are installed", "AlreadyExists"))]
        if proc.returncode != 0 and lines:
            return " ".join(" ".join(lines).split())[:300]
    return None


def judge(binary: str, clusters: list[Path], aside: dict[Path, list[str]], refused: dict[Path, str],
          kube: Path | None = None) -> dict[Path, str | None]:
    """Each cluster -> None where kadmit and Kueue agree, else what differs; in `aside`, the workloads of
    an agreeing cluster kadmit declined to decide for an error of the input (which Kueue decided: the
    comparison sets them aside, as tests/oracle does); in `refused`, the clusters kadmit refuses as a
    whole (exit 2) that Kueue's oracle refuses too (its Configuration, say), or, with `kube` (an API
    server up), that the API server refuses: why each refuses."""
    answers = oracle_each(binary, clusters)
    out: dict[Path, str | None] = {}
    for path in clusters:
        kueue = answers[str(path)]
        code, kadmit = run_kadmit([str(path)])
        if "error" in kueue:
            out[path] = "the oracle failed: " + kueue["error"][:300]
            if kadmit is None:
                refused[path] = f"Kueue: {kueue['error'][:200]}; kadmit: {_first_error(path)}"
                out[path] = None
            continue
        if kadmit is None:
            out[path] = f"kadmit refused the input (exit {code}): {_first_error(path)}"
            server = server_refusal(kube, path) if kube is not None else None
            if server is not None:
                refused[path] = f"the API server: {server}; kadmit: {_first_error(path)}"
                out[path] = None
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
        collected()
    return out


def collected() -> None:
    """What a cluster's kadmit run left is collected before the next (`gc.collect` after each): kadmit's
    reads pause the cyclic collector and put what they make in its oldest generation (collector.paused_gc,
    long_lived), whose full collections Python sets off by the objects promoted into it, which those are
    not; so the garbage cycles of each run (its model, the solver's objects) stayed: the sweep with --cli
    grew about 35 MB a cluster (k8s-examples: 665 MB after 36 clusters, 79 MB so), 16 GB over the sweep."""
    gc.collect()


def cli_faults(path: Path) -> list[str]:
    """`kadmit check`, `admit --format json` and `why` (on at most two pending workloads) on one cluster, in
    this process as the CLI runs: what is wrong of each (an internal error or a traceback, an exit code the
    command does not document, an error or warning without file:line:col)."""
    import json

    from click.testing import CliRunner

    from kadmit.cli import cli

    stdout = {}

    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli, list(args))
        text = result.output + ("".join(__import__("traceback").format_exception(result.exception))
                                if result.exception and not isinstance(result.exception, SystemExit) else "")
        stdout["last"] = result.stdout  # the JSON alone: `output` has the diagnostics too, whose excerpts
        return result.exit_code, text   # of a flow-style input hold lines of "{"

    faults = []
    code, out = run("check", str(path))
    if code not in (0, 1, 2) or "internal error" in out or "Traceback" in out:
        faults.append(f"check exited {code}: {out[-300:]}")
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"(error|warning)\[KAD\d+\](?!: [\d,]+ more \(.*\) not shown)", line) and not (
                i + 1 < len(lines) and re.match(r"\s*--> .+:\d+:\d+$", lines[i + 1])):
            faults.append(f"check: no file:line:col: {line[:200]}")
    code, out = run("admit", "--format", "json", str(path))
    if code not in (0, 1, 2, 3) or "internal error" in out or "Traceback" in out:
        faults.append(f"admit exited {code}: {out[-300:]}")
        return faults
    if code == 2:
        return faults
    data = json.loads(stdout["last"])
    for workload in [d["workload"] for d in data["decisions"] if not d["admitted"]][:2]:
        code, out = run("why", workload, str(path))
        if code not in (1, 3) or "internal error" in out or "Traceback" in out or not (
                "can't be admitted" in out or "not admitted" in out):
            faults.append(f"why {workload} exited {code}: {out[-300:]}")
    return faults


def bounded_heap() -> bool:
    """On glibc, a fixed heap trim threshold (mallopt M_TRIM_THRESHOLD, 1 MiB), as MALLOC_TRIM_THRESHOLD_
    sets it: glibc's default raises its mmap and trim thresholds each time a large block is freed, so the
    large blocks z3 takes and frees in every `admit` (and `why`) come from the heap after the first and are
    not given back: this process grew about 15 MB a cluster (k8s-examples: 59 -> 213 MB over 10 clusters,
    back to 60 MB after malloc_trim; with the threshold fixed, 59 -> 66 MB), 16 GB over the sweep with --cli.
    Whether it was set."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(-1, 1 << 20))  # M_TRIM_THRESHOLD


def peak_mb() -> tuple[int, int]:
    """This process's peak resident memory and its largest child's (the oracle, kubectl), in MB."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)


def main() -> int:
    bounded_heap()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="more example files or folders (generated set-ups)")
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where `fetch` mirrors repositories")
    ap.add_argument("--out", type=Path, help="write the clusters here and keep them (default: a temporary folder)")
    ap.add_argument("--only", action="append", default=[], help="only this source (repeatable)")
    ap.add_argument("--details", action="store_true", help="print every difference")
    ap.add_argument("--cli", action="store_true", help="also run kadmit check, admit and why on each cluster "
                    "(`cli_faults`) and print what goes wrong")
    ap.add_argument("--kube", type=Path, help="an API server up in this folder (tools/kube-apiserver/up KUBE): the "
                    "inputs kadmit refuses as a whole are tried on it (kubectl create --dry-run=server)")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="kadmit-upstream-"))
    if args.out is not None and out.exists() and any(out.iterdir()):
        print(f"{out} is not empty", file=sys.stderr)
        return 2
    by_source: dict[str, list[Path]] = {}
    unread: dict[str, int] = {}
    try:
        for name, slug, rev, globs, companions, setup_kind in SOURCES:
            if args.only and name not in args.only:
                continue
            repo = args.mirror / slug.replace("/", "+") / "repo"
            if not (repo / "HEAD").exists():
                print(f"{name}: no mirror of {slug} at {repo} (fetch github:{slug}); left out")
                continue
            by_source[name], unread[name] = clusters_of(name, repo, rev, globs, companions, setup_kind,
                                                         out)
        if args.paths:
            by_source["paths"], unread["paths"] = clusters_of_paths(args.paths, out)
        every = [c for cs in by_source.values() for c in cs]
        aside: dict[Path, list[str]] = {}
        refused: dict[Path, str] = {}
        verdicts = judge(oracle_binary(), every, aside, refused, args.kube) if every else {}
        agree_all = 0
        for name, cs in by_source.items():
            agree = sum(1 for c in cs if verdicts[c] is None)
            agree_all += agree
            held = sum(1 for c in cs if c in aside)
            both = sum(1 for c in cs if c in refused)
            print(f"{name}: {agree} of {len(cs)} clusters agree ({held} of them with workloads kadmit declined "
                  f"for an input error, {both} refused as a whole by kadmit and Kueue or the API server; "
                  f"{unread[name]} files not manifests)")
        print(f"all: {agree_all} of {len(every)} clusters agree ({len(aside)} of them with workloads kadmit "
              f"declined for an input error, {len(refused)} refused by both)")
        for c in every:
            if verdicts[c] is not None:
                print(f"differs: {c.name}" + (f"\n  {verdicts[c].replace(chr(10), chr(10) + '  ')}" if args.details else ""))
        for c in every:
            if c in aside:
                print(f"declined: {c.name}: {', '.join(aside[c])}")
        for c in every:
            if c in refused:
                print(f"refused: {c.name}: {refused[c]}")
        faults = 0
        for c in every if args.cli else []:
            for fault in cli_faults(c):
                faults += 1
                print(f"cli: {c.name}: {fault}")
            collected()
        if args.cli:
            print(f"cli: {faults} faults in {len(every)} clusters (check, admit, why)")
        own, child = peak_mb()
        print(f"memory: peak {own} MB in this process (kadmit in process), {child} MB its largest child "
              "(the oracle, kubectl)")
        return 0 if agree_all == len(every) else 1
    finally:
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
