"""A JobSet's replicated job whose Jobs the API server refuses for the Job's own spec (validateJobSpec: completions
required in Indexed mode, the JobSet webhook's default; negative limits; per-index limits outside Indexed mode; …):
the JobSet is stored and admitted as Kueue admits it, and kadmit warns (KAD199) in the Job's words, before those of
its template. A TrainJob's runtime is not checked so (the Trainer sets its Jobs' parallelism and completions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.workspace import load
from .helpers import SETUP, write
from .jobset_job_specs import REFUSED, TAKEN, jobset


def _warned(tmp_path: Path, manifest: str) -> list[str]:
    ws = load(write(tmp_path, setup__yaml=SETUP, job__yaml=manifest))
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    return [d.message for d in ws.diagnostics if d.code == "KAD199"]


@pytest.mark.parametrize("fields", sorted(REFUSED))
def test_a_jobsets_job_the_server_refuses_for_its_spec_is_warned(fields: str, tmp_path: Path) -> None:
    (warning,) = _warned(tmp_path, jobset(fields))
    assert warning.startswith(f"the API server refuses every Job made of pod set `w` of JobSet `default/js`: "
                              f"`{REFUSED[fields]}`"), warning


@pytest.mark.parametrize("fields", TAKEN)
def test_a_jobsets_job_the_server_takes_is_not_warned(fields: str, tmp_path: Path) -> None:
    assert _warned(tmp_path, jobset(fields)) == []


def test_the_jobs_spec_comes_before_its_template(tmp_path: Path) -> None:
    """validateJobSpec checks the spec's fields, then the pod template (ValidatePodTemplateSpec)."""
    manifest = jobset("backoffLimit: -1, ").replace("restartPolicy: Never, ", "restartPolicy: Never, tolerations: [{}], ")
    (warning,) = _warned(tmp_path, manifest)
    assert warning.index("spec.backoffLimit") < warning.index("spec.template.spec.tolerations[0]"), warning
