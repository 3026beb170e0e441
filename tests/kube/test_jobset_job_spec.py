"""A JobSet's replicated job whose Jobs the API server refuses for the Job's own spec: the real server stores the
JobSet (its CRD validates none of the Job template) and refuses the Job its controller makes (constructJob: the
spec as the JobSet webhook left it, an unset completionMode Indexed) in validateJobSpec's words, which kadmit's
KAD199 quotes (tests/jobs/jobset_job_specs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs.jobset_job_specs import REFUSED, TAKEN, job, jobset
from kube.server import KubeAPIServer
from kube.warned import kad199

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("fields", sorted(REFUSED))
def test_a_jobsets_job_refused_for_its_spec(fields: str, kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    words = kube_apiserver.refusal(jobset(fields), job(fields))
    assert words == REFUSED[fields], words
    warning = kad199(tmp_path, jobset(fields))
    assert warning.startswith(f"the API server refuses every Job made of pod set `w` of JobSet `default/js`: `{words}`"), \
        (warning, words)


@pytest.mark.parametrize("fields", TAKEN)
def test_a_jobsets_job_taken(fields: str, kube_apiserver: KubeAPIServer) -> None:
    for manifest in (jobset(fields), job(fields)):
        taken = kube_apiserver.run("create", "--dry-run=server", "-f", "-", input=manifest, check=False)
        assert taken.returncode == 0, taken
