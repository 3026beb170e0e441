"""`why` names a holder being deleted that keeps its quota because its job's integration is off (the
Configuration's `integrations.frameworks` leaves it out: no reconciler of Kueue's drops its finalizer, and
Kueue's scheduler reads no deletion; oracle: integrations-default-one-field-jobset-workload-being-deleted.yaml
pending, owned-jobset-workload-being-deleted.yaml, the same without the Configuration, admitted), and offers
enabling the integration: an edit of the Configuration decided again where it is a document of its own (knob
`enable`), else proven by deciding again without the Workload (`integration`; `explain.kept`)."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.render.why import why_dict, why_human

FEATURES = Path("tests/oracle/features")
KEPT = FEATURES / "integrations-default-one-field-jobset-workload-being-deleted.yaml"
HOLDER = "ns/jobset-held-7f3a2"


def test_the_holder_kept_by_its_integration_is_named_with_the_fix():
    out = api.why("ns/idle", [str(KEPT)])
    r = out.result
    assert r is not None and not r.admitted
    held = why_dict(r)["standing"]["held"]
    assert [(k["workload"], k["job"], k["framework"], k["frameworks"], k["amount"]) for k in held["kept_being_deleted"]] \
        == [(HOLDER, "JobSet ns/held", "jobset.x-k8s.io/jobset", ["batch/job"], "4")]
    fix = next(f for f in r.fixes if any(c.knob.kind == "enable" for c in f.changes))
    # the Configuration is a document of its own: the edit adds the integration, the default's kept, and the input
    # so edited is decided again (oracle: integrations-enabled-jobset-workload-being-deleted-goes.yaml admits it)
    assert fix.actor == "platform" and fix.outcome.admitted
    assert [c.edit.new.splitlines()[1] for c in fix.changes] == \
        ["integrations: {frameworks: [batch/job, jobset.x-k8s.io/jobset]}"]
    text = why_human(r, out.loaded.sources, None, None)
    assert (f"`{HOLDER}` (JobSet ns/held), holding 4 cpu in default, is being deleted and keeps its quota: its "
            "integration `jobset.x-k8s.io/jobset` is not enabled") in text
    assert "enable Kueue's integration `jobset.x-k8s.io/jobset`" in text
    assert f"wait for workload `{HOLDER}` to finish" not in text  # nothing ends it while the integration is off


def test_without_the_configuration_the_workload_goes_and_nothing_is_said(tmp_path):
    text = KEPT.read_text()
    (tmp_path / "in.yaml").write_text(text[:text.index("---\napiVersion: config.kueue.x-k8s.io")])
    out = api.why("ns/idle", [str(tmp_path / "in.yaml")])
    assert out.result is not None and out.result.admitted  # its reconciler let the Workload go (oracle: admitted)
    assert not any(c.knob.kind in ("enable", "integration") for f in out.result.fixes for c in f.changes)


def test_where_the_configuration_writes_its_integrations_the_fix_makes_no_edit(tmp_path):
    """A Configuration that lists its frameworks (here batch/job alone, as the defaults): kadmit does not edit the
    list in place; the fix is proven by deciding again without the Workload, and says so."""
    (tmp_path / "in.yaml").write_text(KEPT.read_text().replace("manageJobsWithoutQueueName: false",
                                                               "integrations: {frameworks: [batch/job]}"))
    out = api.why("ns/idle", [str(tmp_path / "in.yaml")])
    r = out.result
    assert r is not None and not r.admitted
    fix = next(f for f in r.fixes if any(c.knob.kind == "integration" for c in f.changes))
    assert fix.actor == "platform" and fix.outcome.admitted and all(c.edit is None for c in fix.changes)
    assert "no edit of the input is made: proven by deciding again without it" in \
        why_human(r, out.loaded.sources, None, None)
