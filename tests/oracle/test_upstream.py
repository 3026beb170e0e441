"""Real upstream example manifests (tests/corpus/upstream: Kueue's site examples with Kueue's own
set-ups, the examples of JobSet, LeaderWorkerSet, KubeRay, Kubeflow Trainer and training-operator,
MPI Operator, AppWrapper and the Kubernetes docs, each in a set-up that admits it, some in a tight
one too), each folder a cluster decided by kadmit and by Kueue's own code (tools/kueue-oracle):
every workload's outcome compared as tests/oracle/test_admit.py compares them. Each case's
README line in tests/corpus/upstream/README.md says where its files come from.

`kadmit check`, `admit` and `why` (on the pending workloads) run on each too, through the CLI:
no internal error, the exit codes the commands document.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from oracle.differential import RETRY_RUNS, oracle_each
from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, variants

UPSTREAM = ROOT / "tests" / "corpus" / "upstream"
CASES = sorted(p.name for p in UPSTREAM.iterdir() if p.is_dir())

# Known divergences: case -> what differs (kadmit is wrong unless the note says otherwise).
DIVERGENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def kueue_answers(kueue_oracle) -> dict[str, dict]:
    """Kueue's answer for every case, decided in one oracle process (`--each`, two runs)."""
    return oracle_each(kueue_oracle, [UPSTREAM / name for name in CASES])


def _params():
    for name in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=DIVERGENCES[name])] if name in DIVERGENCES else []
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", list(_params()))
def test_kadmit_decides_upstream_examples_as_kueue(kueue_oracle, kueue_answers, name):
    path = UPSTREAM / name
    kueue = kueue_answers[str(path)]
    assert "error" not in kueue, kueue.get("error")
    code, kadmit = run_kadmit([str(path)])
    assert kadmit is not None and code in (0, 1), f"kadmit admit refused {name} (exit {code})"
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    if not result.agree:  # Kueue's own variance beyond two runs (test_admit's cases use three)
        kueue = oracle_each(kueue_oracle, [path], runs=RETRY_RUNS)[str(path)]
        q = from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
    assert result.agree, f"kadmit and Kueue differ on {path.relative_to(ROOT)}:\n" + result.report(k, q)
    assert k.outcomes or k.skipped, f"{name}: nothing decided or listed"


def test_every_case_is_known():
    assert set(DIVERGENCES) <= set(CASES)
    readme = (UPSTREAM / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in CASES), "every case has its line in README.md"


def _cli(*args: str) -> tuple[int, str]:
    from kadmit.cli import cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("name", CASES)
def test_check_admit_and_why_on_upstream_examples(name):
    """No internal error (exit 70) from check, admit or why: each exits as documented, and why
    explains each pending workload (at most two a case) with a diagnostic, not a traceback."""
    path = str(UPSTREAM / name)
    code, out = _cli("check", path)
    assert code in (0, 1) and "internal error" not in out, out[-2000:]
    code, out = _cli("admit", "--format", "json", path)
    assert code in (0, 1) and "internal error" not in out, out[-2000:]
    start = 0 if out.startswith("{") else out.index("\n{\n") + 1  # after the warnings the runner mixes in
    data = json.loads(out[start:])
    pending = [d["workload"] for d in data["decisions"] if not d["admitted"]][:2]
    for workload in pending:
        code, out = _cli("why", workload, path)
        assert code == 1 and "internal error" not in out, out[-2000:]
        assert "can't be admitted" in out or "is not admitted" in out or "not admitted" in out, out[-2000:]


def test_the_corpus_names_its_origins():
    """Every file of the corpus starts with the line naming where it comes from (an upstream
    repository, path, commit and license, or a set-up made for it)."""
    for f in sorted(UPSTREAM.rglob("*.yaml")):
        first = f.read_text().split("\n", 1)[0]
        assert first.startswith(("# upstream: ", "# set-up made for this corpus", "# generated set-up")), f
    assert len(CASES) >= 90 and Path(UPSTREAM / "README.md").exists()
