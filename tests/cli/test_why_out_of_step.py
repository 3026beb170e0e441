"""`why` on a job's Workload shows the warnings (KAD175) of the job's Workloads out of step with it
(manifests/jobs/owned.py) in its human and JSON answers alike, picked by the objects each is about
(`Diagnostic.about`), not by the job's name in its words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

from kadmit import api
from kadmit.diagnostics import Diagnostic, Severity, Subject
from kadmit.model import ObjectRef

FEATURE = Path(__file__).resolve().parents[1] / "oracle/features/owned-workload-out-of-step-with-its-job.yaml"
# Job `j` (its pending Workload job-pend-1 updated to its spec) and Job `j2` (its admitted Workload job-adm-2
# deleted, a new one made): one job's name in the other's
TEXT = FEATURE.read_text().replace("name: pend", "name: j").replace("name: adm", "name: j2")


def test_why_json_has_the_warnings_the_human_answer_shows(run) -> None:
    run.write("in.yaml", TEXT)
    human = run("why", "ns/j", "in.yaml")
    shown = re.findall(r"^warning\[(KAD\d{3})\]: (.*)$", human.stderr, re.M)
    for job, workload in (("ns/j", "job-pend-1"), ("ns/j2", "job-adm-2")):
        out = json.loads(run("why", job, "in.yaml", "--format", "json").stdout)
        if job == "ns/j":
            assert [(d["code"], d["message"]) for d in out["diagnostics"]] == shown, human.stderr
        (d,) = out["diagnostics"]
        assert d["code"] == "KAD175" and d["about"] == [
            {"kind": "Workload", "namespace": "ns", "name": workload},
            {"kind": "Job", "namespace": "ns", "name": job.split("/")[1]}], d


def _warning(kind: str, name: str, workload: str) -> Diagnostic:
    return Diagnostic("KAD175", Severity.WARNING, f"Kueue's job reconciler deletes Workload `ns/{workload}` of {kind} "
                      f"`ns/{name}`: …", None,
                      about=(Subject("Workload", "ns", workload), Subject(kind, "ns", name)))


def test_out_of_step_picks_by_the_objects_a_warning_is_about_not_by_its_words() -> None:
    """`Job `ns/j`` is in the words of a PyTorchJob `ns/j`'s warning, `ns/j` in those of `ns/j2`'s; each job's
    Workload gets its own job's warnings only, and a Workload's own warning whatever its job."""
    ws = [SimpleNamespace(key=f"ns/{w}", namespace="ns", name=w, span=None,
                          origin=ObjectRef(api_version=v, kind=k, namespace="ns", name=n))
          for w, k, v, n in (("a", "Job", "batch/v1", "j"), ("b", "PyTorchJob", "kubeflow.org/v1", "j"),
                             ("c", "Job", "batch/v1", "j2"))]
    model = SimpleNamespace(workloads=ws)
    said = [_warning("Job", "j", "old-a"), _warning("PyTorchJob", "j", "old-b"), _warning("Job", "j2", "old-c"),
            _warning("Job", "other", "c")]
    picked = {w.key: [d.message.split("`")[1] for d in api.out_of_step(said, model, w.key)] for w in ws}
    assert picked == {"ns/a": ["ns/old-a"], "ns/b": ["ns/old-b"], "ns/c": ["ns/old-c", "ns/c"]}
    assert api.out_of_step(said, model, "ns/none") == []
