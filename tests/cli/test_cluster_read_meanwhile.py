"""The live read runs while `admit` and `why` import what they decide with (`cli_cluster.read_for`'s
`meanwhile`): its kubectls mostly wait on the server, so the imports cost the answer no wall time there.
The modules imported meanwhile are ones each command imports anyway, and none it has imported already."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import click

from kadmit import api
from kadmit.cli_cluster import read_for

ROOT = Path(__file__).resolve().parents[2]


def test_meanwhile_runs_while_the_cluster_is_read_and_the_read_is_returned(monkeypatch):
    imported = threading.Event()
    seen: list[bool] = []

    def read_cluster(context, kubeconfig, *, max_file_bytes=None):
        seen.append(imported.wait(10))  # the read is still running when `meanwhile` runs
        return ("read", context, kubeconfig, max_file_bytes)

    monkeypatch.setattr(api, "read_cluster", read_cluster)
    with click.Context(click.Command("why"), info_name="kadmit"):
        got = read_for((), True, "ctx", "kc", 123, meanwhile=imported.set)
    assert got == ("read", "ctx", "kc", 123) and seen == [True]


def test_nothing_runs_meanwhile_on_files_alone(monkeypatch):
    ran: list[bool] = []
    monkeypatch.setattr(api, "read_cluster", lambda *a, **k: ran.append(False))
    with click.Context(click.Command("why"), info_name="kadmit"):
        assert read_for(("x.yaml",), False, None, None, meanwhile=lambda: ran.append(True)) is None
    assert ran == []


SCRIPT = """
import sys
from click.testing import CliRunner
from kadmit.cli import cli
from kadmit.cli_decide import ADMIT_MODULES, WHY_MODULES
listed = {"admit": ADMIT_MODULES, "why": WHY_MODULES}[sys.argv[1]]
before = [m for m in listed if m in sys.modules]
result = CliRunner().invoke(cli, sys.argv[1:], catch_exceptions=False)
print(result.exit_code, before, [m for m in listed if m not in sys.modules])
"""


def _listed(*args: str) -> str:
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip()


def test_the_modules_imported_meanwhile_are_the_commands_own_and_not_imported_before():
    assert _listed("why", "team-vision/llm-pretrain", "examples/ml-platform-kueue/", "--fixes", "1") == "1 [] []"
    assert _listed("admit", "examples/ml-platform-kueue/") == "0 [] []"
