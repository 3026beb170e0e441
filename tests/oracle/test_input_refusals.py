"""The oracle reads what kadmit reads and refuses what kadmit refuses (issue 18: `kueue-oracle admit`
"reads exactly what kadmit reads"): an input kadmit exits 2 on (a binary file, YAML that does not
parse, a document that is no object or starts on its `---` line, a folder holding no file it reads, inputs holding no object it
decides on) makes the oracle exit 2 too, saying why on stderr after its JSON; the same objects given
as one multi-document file, a folder, a `kind: List` in YAML or JSON are decided alike by both."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from oracle.harness import ROOT, from_kadmit, from_oracle, run_kadmit, run_oracle

CLUSTER = ROOT / "tests" / "oracle" / "features" / "preempted-victim-requeued-with-overhead.yaml"


def _oracle(binary: str, *paths) -> subprocess.CompletedProcess:
    return subprocess.run([binary, "admit", "--format", "json", *map(str, paths)], capture_output=True,
                          text=True, cwd=ROOT)


def _refused(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "bin.yaml").write_bytes(bytes(range(256)))
    (tmp_path / "blank.yaml").write_text("# nothing\n")
    (tmp_path / "bad.yaml").write_text("a: [\n")
    (tmp_path / "seq.yaml").write_text("- a\n- b\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    # kubectl's YAML reader takes only a comment after `---` (fuzz: a mutation's `--- null`)
    (tmp_path / "start.yaml").write_text(CLUSTER.read_text() + "\n--- null\n")
    return {"empty folder": ["empty"], "binary file": ["bin.yaml"], "no document": ["blank.yaml"],
            "YAML that does not parse": ["bad.yaml"], "a sequence, no object": ["seq.yaml"],
            "only kinds neither reads": ["cm.yaml"],
            "a document starting on its `---` line": ["start.yaml"], "one bad file beside a good one": ["bad.yaml", CLUSTER],
            "no such path": ["missing.yaml"]}


def test_both_refuse_unusable_input_with_exit_2(kueue_oracle, tmp_path):
    for what, names in _refused(tmp_path).items():
        paths = [tmp_path / n for n in names]
        oracle = _oracle(kueue_oracle, *paths)
        code, _ = run_kadmit(paths)
        assert (code, oracle.returncode) == (2, 2), (what, code, oracle.returncode, oracle.stderr)
        assert "kueue-oracle admit: " in oracle.stderr, (what, oracle.stderr)


def test_an_empty_folder_beside_input_is_no_refusal(kueue_oracle, tmp_path):
    (tmp_path / "empty").mkdir()
    assert _oracle(kueue_oracle, tmp_path / "empty", CLUSTER).returncode == 0
    assert run_kadmit([tmp_path / "empty", CLUSTER])[0] == 0


def test_one_cluster_read_from_every_shape_decides_alike(kueue_oracle, tmp_path):
    docs = [d for d in yaml.safe_load_all(CLUSTER.read_text()) if d]
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    for i, d in enumerate(docs):
        (folder / ("sub" if i % 2 else "") / f"{i:02d}.yaml").write_text(yaml.safe_dump(d))
    (folder / "README.md").write_text("# read by neither: {{\n")
    (tmp_path / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    (tmp_path / "list.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    want = None
    for path in (CLUSTER, folder, tmp_path / "list.yaml", tmp_path / "list.json"):
        code, kadmit = run_kadmit([path])
        k = from_kadmit(kadmit).outcomes
        q = from_oracle(run_oracle(kueue_oracle, [path])).outcomes
        got = {name: o.admitted for name, o in k.items()}
        assert got == {name: o.admitted for name, o in q.items()} == (want or got), path
        want = got
    assert want == {"ns/old": False, "ns/urgent": True}


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_help_is_no_error(kueue_oracle, flag):
    proc = subprocess.run([kueue_oracle, flag], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: kueue-oracle") and "admit" in proc.stdout
    assert subprocess.run([kueue_oracle, "admit", "-h"], capture_output=True, text=True).returncode == 0
    assert subprocess.run([kueue_oracle, "admit", "--no-such-flag", str(CLUSTER)], capture_output=True).returncode == 2
