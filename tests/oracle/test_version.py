"""kadmit names the Kueue release its answers follow, and it is the one the oracle runs."""

from __future__ import annotations

import re

from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.kueuekeys import KUEUE_VERSION as KEYS_VERSION
from kadmit.kueueversion import KUEUE_VERSION
from oracle.harness import ROOT


def test_the_oracle_pins_the_kueue_kadmit_follows():
    gomod = (ROOT / "tools" / "kueue-oracle" / "go.mod").read_text()
    pinned = re.findall(r"^\s*(?:require\s+)?sigs\.k8s\.io/kueue (v\S+)\s*$", gomod, re.M)
    assert pinned == [KUEUE_VERSION]
    assert KEYS_VERSION == KUEUE_VERSION  # the label keys kadmit checks come from the same release


def test_kadmit_version_names_it():
    out = CliRunner().invoke(cli, ["--version"]).output
    assert f"decides as Kueue {KUEUE_VERSION}" in out


def test_the_oracle_says_which_kueue_it_runs(kueue_oracle):
    import subprocess
    out = subprocess.run([kueue_oracle, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"kueue-oracle (sigs.k8s.io/kueue {KUEUE_VERSION})"


def test_the_docs_name_the_same_kueue():
    """Where README or docs/ say which Kueue kadmit's answers follow ("kadmit preempts as Kueue v…",
    "kadmit follows **Kueue v…**"), it is the release the oracle runs: README said "preempts as Kueue
    v0.20 does" after kadmit had moved to v0.17.0."""
    said = re.compile(r"(?:kadmit|answers) (?:\w+ ){0,3}(?:as|follows?) \**Kueue \**(v[0-9.]*[0-9])")
    found = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for version in said.findall(" ".join(path.read_text(encoding="utf-8").split())):
            found.setdefault(version, []).append(path.name)
    assert set(found) == {KUEUE_VERSION}, found
