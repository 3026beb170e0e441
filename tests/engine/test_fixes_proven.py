"""Every fix `why` offers, applied to the input files and decided again through the public API,
admits the workload as announced and changes exactly the other workloads it lists; re-deciding
only the touched cohort trees gives the same decisions as re-deciding everything."""

from __future__ import annotations

import sys
from pathlib import Path
from unittest.mock import patch

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit import api, edited, workspace
from kadmit.edits import Edit, apply
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.explain import replay
from kadmit.engine.explain.replay import Baseline, decide_again, states
from kadmit.validate import Checked

sys.path.insert(0, str(Path(__file__).parent))
from fix_clusters import kad_clusters  # noqa: E402

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _states(outcome) -> dict:
    model = outcome.loaded.workspace.model
    return states(model, {d.key: d for d in outcome.result.decisions})


def check_fixes(tmp_path: Path, text: str, key: str) -> int:
    """Apply each fix of `why key` to a copy of the input, `admit` it, compare; the number checked."""
    src = tmp_path / "in"
    src.mkdir(exist_ok=True)
    (src / "c.kad").write_text(text)
    before = api.admit([str(src)])
    assert before.exit_code == 0
    out = api.why(key, [str(src)])
    assert out.exit_code in (1, 3), out.diagnostics
    old = _states(before)
    for i, fix in enumerate(out.result.fixes):
        edits = [c.edit for c in fix.changes]
        assert all(e.file == workspace.display_name(src / "c.kad") for e in edits)
        d = tmp_path / f"fix{i}"
        d.mkdir(exist_ok=True)
        (d / "c.kad").write_text(apply(text, edits))
        after = api.admit([str(d)])
        assert after.exit_code == 0, [x.message for x in after.diagnostics]
        new = _states(after)
        assert new[key].admitted, fix.message
        assert new[key] == fix.outcome, fix.message
        changed = {k for k in new if k != key and old.get(k) != new[k]}
        assert changed == {e.workload for e in fix.effects}, fix.message
        for e in fix.effects:
            assert new[e.workload] == e.after and old[e.workload] == e.before
        assert fix.as_dict()["changes"] and all(c["old"] != c["new"] for c in fix.as_dict()["changes"])
    return len(out.result.fixes)


@SETTINGS
@given(text=kad_clusters(), data=st.data())
def test_every_fix_admits_with_exactly_the_side_effects_it_lists(tmp_path_factory, text, data):
    tmp = tmp_path_factory.mktemp("fix")
    (tmp / "c.kad").write_text(text)
    base = api.admit([str(tmp)])
    assume(base.exit_code == 0)
    pending = sorted(d.key for d in base.result.decisions if not d.admitted)
    assume(pending)
    check_fixes(tmp, text, data.draw(st.sampled_from(pending)))


def _changed(model, data):
    """One change of the kinds fixes make: a quota number, a workload's count or priority, a
    workload finished, a local queue pointed elsewhere, a queue moved to another cohort, a namespace's
    labels; also after every workload is read again unchanged (new objects), or with a workload left
    out."""
    kind = data.draw(st.sampled_from(("quota", "count", "priority", "finish", "retarget", "cohort", "reread", "drop",
                                      "labels")))
    if kind == "labels":  # a namespace's labels: the queues selecting it by them see it or not
        ns = data.draw(st.sampled_from(model.namespaces))
        new = ns.model_copy(update={"labels": {"team": data.draw(st.sampled_from(("a", "b", "c")))}})
        return model.model_copy(update={"namespaces": tuple(new if n is ns else n for n in model.namespaces)})
    if kind == "reread":  # a file read again: every workload a new object, equal to the old one, and one change
        model = model.model_copy(update={"workloads": tuple(w.model_copy() for w in model.workloads)})
        return _changed(model, data)
    if kind == "drop":  # a workload gone: the collection's places shift
        wl = data.draw(st.sampled_from(model.workloads))
        return model.model_copy(update={"workloads": tuple(w for w in model.workloads if w is not wl)})
    if kind == "quota":
        cq = data.draw(st.sampled_from(model.cluster_queues))
        rg = cq.resource_groups[0]
        fq = rg.flavors[0]
        rq = fq.resources[0].model_copy(update={"nominal": fq.resources[0].nominal
                                                + data.draw(st.integers(1, 6)) * 1000})
        new_cq = cq.model_copy(update={"resource_groups": (rg.model_copy(update={"flavors": (
            fq.model_copy(update={"resources": (rq,)}),) + rg.flavors[1:]}),)})
        return model.model_copy(update={"cluster_queues": tuple(new_cq if c is cq else c for c in model.cluster_queues)})
    if kind in ("count", "priority", "finish"):
        wl = data.draw(st.sampled_from(model.workloads))
        if kind == "count":
            ps = wl.pod_sets[0]
            new = wl.model_copy(update={"pod_sets": (ps.model_copy(update={
                "count": data.draw(st.integers(1, 4)), "min_count": None}),) + wl.pod_sets[1:]})
        elif kind == "priority":
            new = wl.model_copy(update={"priority_class": data.draw(st.sampled_from(("low", "mid", "high")))})
        else:
            new = wl.model_copy(update={"finished": True})
        return model.model_copy(update={"workloads": tuple(new if w is wl else w for w in model.workloads)})
    if kind == "retarget":
        lq = data.draw(st.sampled_from(model.local_queues))
        to = data.draw(st.sampled_from([c.name for c in model.cluster_queues]))
        new = lq.model_copy(update={"cluster_queue": to})
        return model.model_copy(update={"local_queues": tuple(new if q is lq else q for q in model.local_queues)})
    cq = data.draw(st.sampled_from(model.cluster_queues))
    cohort = data.draw(st.sampled_from([None] + [c.name for c in model.cohorts]))
    new_cq = cq.model_copy(update={"cohort": cohort})
    return model.model_copy(update={"cluster_queues": tuple(new_cq if c is cq else c for c in model.cluster_queues)})


@SETTINGS
@given(text=kad_clusters(max_queues=4), data=st.data())
def test_re_deciding_touched_trees_equals_deciding_everything(tmp_path_factory, text, data):
    """For every kind of change, with the baseline's parts reused (`same_joins`) or joined again."""
    tmp = tmp_path_factory.mktemp("part")
    (tmp / "c.kad").write_text(text)
    ws = workspace.load([str(tmp)])
    assume(not ws.diagnostics.has_errors)
    model = ws.model
    new = _changed(model, data)
    base = Baseline(model, {d.key: d for d in decide_ordered(Session(model))})
    part = decide_again(base, new)
    whole = decide_again(base, new, incremental=False)
    assert part.states == whole.states
    assert {k: _outcome(d) for k, d in part.decisions.items()} == {k: _outcome(d) for k, d in whole.decisions.items()}
    assert part.redecided <= whole.redecided
    with patch.object(replay, "same_joins", lambda *_: False):  # the parts joined again
        joined = decide_again(base, new)
    assert joined.states == part.states and joined.redecided == part.redecided


@SETTINGS
@given(text=kad_clusters(max_queues=4), data=st.data())
def test_a_job_edited_re_decides_the_tree_of_its_workload_only(tmp_path_factory, text, data):
    """A job's priority-class label edited: the job and its workload change; the engine reads the
    workload, never the job, so only the workload's tree is decided again, as deciding everything."""
    from kadmit.model import Job, ObjectRef

    tmp = tmp_path_factory.mktemp("job")
    (tmp / "c.kad").write_text(text)
    ws = workspace.load([str(tmp)])
    assume(not ws.diagnostics.has_errors and ws.model.workloads)
    wl = data.draw(st.sampled_from(ws.model.workloads))
    new_wl = wl.model_copy(update={"priority_class": data.draw(st.sampled_from(("low", "mid", "high")))})

    def job(w):
        return Job(object=ObjectRef(api_version="batch/v1", kind="Job", namespace=w.namespace, name=w.name),
                   framework="batch/job", priority_class_label=True, workloads=(w,))
    model = ws.model.model_copy(update={"jobs": (job(wl),)})
    new = model.model_copy(update={"jobs": (job(new_wl),),
                                   "workloads": tuple(new_wl if w is wl else w for w in model.workloads)})
    assert replay.touched_keys(model, new) is not None
    base = Baseline(model, {d.key: d for d in decide_ordered(Session(model))})
    part = decide_again(base, new)
    whole = decide_again(base, new, incremental=False)
    assert not part.whole and part.states == whole.states
    assert {k: _outcome(d) for k, d in part.decisions.items()} == {k: _outcome(d) for k, d in whole.decisions.items()}


def _outcome(d) -> tuple:
    a = d.assignment
    return (d.admitted, d.cluster_queue, d.waiting_behind, d.preempted_by, d.unknown,
            (a.counts, a.flavors) if a is not None else None)


def test_an_edited_input_is_refused_for_a_new_error_in_an_edited_workload(tmp_path):
    """Reloading re-runs the checks of edited workloads (the unedited ones were checked at load):
    an edit that breaks a workload is refused, one that doesn't is read, validated in full or only
    where the edit reaches."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "q.kad").write_text("flavor f { }\ncluster_queue q {\n  resources cpu {\n    flavor f { cpu = 4 }\n  }\n}\n"
                               "namespace ns { }\nlocal_queue ns/lq -> q\n")
    (src / "w.kad").write_text('workload ns/a {\n  queue = lq\n  pod_group main {\n    count = 2\n'
                               '    requests = { cpu = 1 }\n  }\n}\n')
    ws = workspace.load([str(src)])
    assert not ws.diagnostics.has_errors
    w = workspace.display_name(src / "w.kad")
    q = workspace.display_name(src / "q.kad")
    broken = [Edit(w, 4, 13, "2", "-1")]  # a negative count: an error of that workload alone
    fine = [Edit(q, 4, 22, "4", "8")]
    for since in (None, Checked(ws.model)):
        assert [d.code for d in edited.with_edits(ws, broken, since)[1].items] == \
            [d.code for d in edited.with_edits(ws, broken)[1].items] != []
        assert not edited.with_edits(ws, fine, since)[1].has_errors
    reloader = edited.Reloader(ws)
    assert reloader.reload(broken) is None and reloader.reload(fine) is not None
