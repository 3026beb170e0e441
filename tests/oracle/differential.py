"""Generated clusters (tests/oracle/strategies.py) decided by kadmit and by Kueue, many per oracle
process: each cluster is written as its own manifest file, kadmit decides each in this process
(through the API), the oracle decides them all in one `admit --each --runs 2` call (one JSON per
path; Kueue's own variance between its runs accepted as the harness does), and each is compared;
a cluster that differs is decided by the oracle again with more runs (RETRY_RUNS) before it counts.

A cluster on which they differ is kept as a manifest file under $KADMIT_ORACLE_FAILURES (default
tests/oracle/.failures/, git-ignored), named by its content's hash, that `kadmit admit FILE` and
`tools/kueue-oracle/kueue-oracle admit FILE` reproduce.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_each, run_kadmit, variants
from oracle.strategies import Cluster


def failures_dir() -> Path:
    return Path(os.environ.get("KADMIT_ORACLE_FAILURES") or ROOT / "tests" / "oracle" / ".failures")


@dataclass
class Verdict:
    """One cluster's comparison: its features, whether both agree, and where not, both answers
    and the kept manifest file."""

    features: set[str]
    agree: bool
    report: str = ""
    path: Path | None = None


def keep(text: str) -> Path:
    """The cluster written where failures are kept (named by its hash: the same cluster, the
    same file)."""
    folder = failures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"cluster-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    path.write_text(text)
    return path


def oracle_each(binary: str, paths: list[Path], runs: int = 2) -> dict[str, dict]:
    """Kueue's answer for each path, decided as a cluster of its own, in one process (run_each)."""
    return run_each(binary, "admit", paths, "--runs", str(runs))


def each_selected(binary: str, request, asks) -> dict:
    """Kueue's answers to what the tests of the requesting module that this run selected ask of it, in one
    oracle process per number of runs (`--each`: each path a cluster of its own, decided as a process of its
    own decides it, tests/oracle/test_each.py) rather than a process per case. `asks(item)` gives
    (key, path, runs), or None for a test that asks nothing; the answers by key."""
    wanted: dict[int, dict[str, list]] = {}
    for item in request.session.items:
        got = asks(item) if item.module is request.module else None
        if got is not None:
            key, path, runs = got
            wanted.setdefault(runs, {}).setdefault(str(path), []).append(key)
    out = {}
    for runs, keys in sorted(wanted.items()):
        # a path decided with as many runs by an earlier module's each_selected in this process is not decided again
        asked = [path for path in keys if (path, runs) not in _BY_PATH]
        if asked:
            _BY_PATH.update({(path, runs): answer for path, answer in oracle_each(binary, asked, runs=runs).items()})
        for path in keys:
            for key in keys[path]:
                out[key] = _ANSWERED[request.module.__name__, key] = _BY_PATH[path, runs]
    return out


# What each_selected answered in this process, by (the asking module's name, key): a test of another module reads
# them (`answered`) rather than having the same inputs decided again
_ANSWERED: dict[tuple[str, object], dict] = {}
_BY_PATH: dict[tuple[str, int], dict] = {}  # ... and by (path, runs)


def answered(module: str, key) -> dict | None:
    """Kueue's answer each_selected gave `module`'s tests for `key` in this process (its runs as they asked), or
    None. tests/conftest.py sends a file that reads another's answers to the same pytest-xdist worker, after it."""
    return _ANSWERED.get((module, key))


def one_cluster(folder: Path, paths: list[str]) -> Path:
    """A folder holding copies of `paths`, named so that a folder's walk reads them in their order: one
    path for `--each` that is the cluster the paths make together (the same objects in the same order)."""
    into = folder / Path(paths[-1]).stem
    into.mkdir(parents=True, exist_ok=True)
    for i, p in enumerate(paths):
        (into / f"{i}-{Path(p).name}").write_bytes((ROOT / p).read_bytes())
    return into


RETRY_RUNS = 16  # 16 runs miss one side of an even two-way choice once in 32,768


def decide(binary: str, clusters: list[Cluster], folder: Path) -> list[Verdict]:
    """Both tools on each cluster; a differing one is kept (`keep`) and its path reported."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = [c.text() for c in clusters]
    paths = []
    for i, text in enumerate(texts):
        p = folder / f"c{i:04d}.yaml"
        p.write_text(text)
        paths.append(p)
    kueue_all = oracle_each(binary, paths)
    verdicts = []
    for cluster, text, path in zip(clusters, texts, paths):
        kueue = kueue_all[str(path)]
        code, kadmit = run_kadmit([str(path)])
        if "error" in kueue:
            why = f"the oracle could not decide it: {kueue['error']}"
            verdicts.append(Verdict(cluster.features, False, why, keep(text)))
            continue
        if kadmit is None:
            why = f"kadmit refused it (exit {code}); Kueue decided {len(kueue['decisions'])} workloads"
            verdicts.append(Verdict(cluster.features, False, why, keep(text)))
            continue
        k, q = from_kadmit(kadmit), from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
        if not result.agree:
            # Kueue's own outcome may vary beyond what two runs show (Go map order, e.g. the
            # fair-sharing iterator's order of cohort trees: docs/KUEUE-DIFFERENCES.md §1):
            # a difference stands only if kadmit's answer is none of RETRY_RUNS runs' outcomes
            again = oracle_each(binary, [path], runs=RETRY_RUNS)[str(path)]
            if "error" not in again:
                q = from_oracle(again)
                result = compare(k, q, alternatives=variants(again))
        if result.agree:
            verdicts.append(Verdict(cluster.features, True))
        else:
            verdicts.append(Verdict(cluster.features, False, result.report(k, q), keep(text)))
    return verdicts
