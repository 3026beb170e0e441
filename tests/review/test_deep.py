"""`kadmit check --deep`: each analysis fires where it must and stays quiet where it mustn't."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kadmit import api
from kadmit.cli import cli

POLICY = """\
flavor gpu { node_labels = { "m" = "g" } }
cohort c {}
cluster_queue a {
  cohort = c
  namespaces = {}
  resources nvidia.com/gpu { flavor gpu { nvidia.com/gpu = 8 } }
}
cluster_queue b {
  cohort = c
  namespaces = {}
  resources nvidia.com/gpu { flavor gpu { nvidia.com/gpu = 8 } }
}
namespace ns {}
local_queue ns/qa -> a
"""
NODE = 'node n0 {{ labels = {{ "m" = "g"{extra} }}  allocatable = {{ nvidia.com/gpu = {gpus}, pods = 110 }} }}\n'


def deep_codes(tmp_path, text: str) -> set[str]:
    (tmp_path / "p.kad").write_text(text, encoding="utf-8")
    r = api.check([str(tmp_path)], deep=True)
    assert not [d for d in r.diagnostics if d.severity.value == "error"], r.diagnostics
    return {d.code for d in r.diagnostics}


def workload(gpus: int) -> str:
    return ('workload ns/w { queue = qa  pod_group main { count = 1  '
            f'requests = {{ nvidia.com/gpu = {gpus} }} }} }}\n')


CASES = [
    # code, text where it fires, text where it doesn't
    ("KAD750", POLICY + workload(100), POLICY + workload(1)),
    ("KAD751", POLICY.replace("flavor gpu { nvidia.com/gpu = 8 } }\n}\ncluster_queue b",
                              "flavor gpu { nvidia.com/gpu = 8 }  flavor spare { nvidia.com/gpu = 0 } }\n}\n"
                              "cluster_queue b") + "flavor spare {}\n",
     POLICY.replace("flavor gpu { nvidia.com/gpu = 8 } }\n}\ncluster_queue b",
                    "flavor gpu { nvidia.com/gpu = 8 }  flavor spare { nvidia.com/gpu = 1 } }\n}\n"
                    "cluster_queue b") + "flavor spare {}\n"),
    ("KAD752", POLICY + NODE.format(extra="", gpus=4), POLICY + NODE.format(extra="", gpus=16)),
    ("KAD753", POLICY.replace('"m" = "g" } }', '"m" = "x" } }') + NODE.format(extra="", gpus=16),
     POLICY + NODE.format(extra="", gpus=16)),
    ("KAD754", POLICY.replace('"m" = "g" } }', '"m" = "g" }  topology = dc }')
     + 'topology dc { levels = ["rack", "kubernetes.io/hostname"] }\n' + NODE.format(extra="", gpus=16),
     POLICY.replace('"m" = "g" } }', '"m" = "g" }  topology = dc }')
     + 'topology dc { levels = ["rack", "kubernetes.io/hostname"] }\n'
     + NODE.format(extra=', "rack" = "r1", "kubernetes.io/hostname" = "n0"', gpus=16)),
    ("KAD755", POLICY.replace("nvidia.com/gpu = 8 } }\n}\ncluster_queue b", "nvidia.com/gpu = 8 borrow 8 } }\n}\n"
                              "cluster_queue b"),
     POLICY.replace("nvidia.com/gpu = 8 } }\n}\ncluster_queue b", "nvidia.com/gpu = 8 borrow 4 } }\n}\n"
                    "cluster_queue b")),
    ("KAD756", POLICY.replace("nvidia.com/gpu = 8 } }\n}\ncluster_queue b", "nvidia.com/gpu = 8 lend 8 } }\n}\n"
                              "cluster_queue b"),
     POLICY.replace("nvidia.com/gpu = 8 } }\n}\ncluster_queue b", "nvidia.com/gpu = 8 lend 4 } }\n}\n"
                    "cluster_queue b")),
    ("KAD757", POLICY + "require hi: workload.priority > 100\nrequire lo: workload.priority < 50\n",
     POLICY + "require hi: workload.priority > 100\nrequire lo: workload.priority < 500\n"),
    ("KAD761", POLICY + "forbid no-a: workload.cluster_queue == a\n",
     POLICY + "forbid big-a: workload.cluster_queue == a and pod_group.total[nvidia.com/gpu] > 4\n"),
    ("KAD758", POLICY + "forbid huge: pod_group.requests[nvidia.com/gpu] > 1000\n",
     POLICY + "forbid huge: pod_group.requests[nvidia.com/gpu] > 4\n"),
    ("KAD759", POLICY + "require big: workload.priority > 100\nrequire bigger: workload.priority > 200\n",
     POLICY + "require big: workload.priority > 100\nrequire gpus: pod_group.count < 4\n"),
]


@pytest.mark.parametrize("code,fires,quiet", CASES, ids=[c[0] for c in CASES])
def test_analysis_fires_and_stays_quiet(tmp_path, code, fires, quiet):
    (tmp_path / "fire").mkdir()
    (tmp_path / "quiet").mkdir()
    assert code in deep_codes(tmp_path / "fire", fires)
    assert code not in deep_codes(tmp_path / "quiet", quiet)


def test_contradiction_names_a_minimal_core(tmp_path):
    text = POLICY + ("require hi: workload.priority > 100\nrequire lo: workload.priority < 50\n"
                     "require countcap: pod_group.count < 100\n")
    (tmp_path / "p.kad").write_text(text)
    found = [d for d in api.check([str(tmp_path)], deep=True).diagnostics if d.code == "KAD757"]
    assert len(found) == 1
    named = found[0].message + " ".join(label.message for label in found[0].labels)
    assert "hi" in named and "lo" in named and "countcap" not in named


def test_plain_check_runs_no_analysis_and_strict_gates_deep(tmp_path):
    (tmp_path / "p.kad").write_text(POLICY + workload(100))
    plain = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert plain.exit_code == 0 and "KAD750" not in plain.output
    deep = CliRunner().invoke(cli, ["check", "--deep", "--strict", str(tmp_path)])
    assert deep.exit_code == 1 and "KAD750" in deep.output and "kadmit why ns/w" in deep.output
