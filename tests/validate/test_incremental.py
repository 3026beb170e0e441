"""Validating only what an edit reaches (`validate_since`) finds exactly the errors a full
validation finds that the model before the edit didn't have — for edits that break a workload,
leave a reference dangling (a local queue, cluster queue, flavor or priority class that isn't
there), take a name twice, make a cohort cycle, or change a model-wide object."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit import edited, workspace
from kadmit.diagnostics import Diagnostics
from kadmit.edits import Edit
from kadmit.validate import Checked, validate, validate_since
from kadmit.validate.incremental import changes

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from fix_clusters import kad_clusters  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

NAMES = ("q0", "q1", "lq0", "lq1", "c0", "c1", "f", "g", "low", "high", "nosuch", "w0", "adm0")


def _replace(model, name: str, old, new):
    return model.model_copy(update={name: tuple(new if x is old else x for x in getattr(model, name))})


def _edit(model, data):
    """One change of an object, as reading an edited file gives: a new object at the old one's place
    (or one left out)."""
    kind = data.draw(st.sampled_from(("wl-queue", "wl-priority", "wl-count", "wl-name", "wl-admission",
                                      "wl-drop", "lq-target", "lq-name", "cq-name", "cq-cohort", "cq-flavor",
                                      "cq-quota", "cq-drop", "cohort-parent", "flavor-topology", "reparse")))
    name = data.draw(st.sampled_from(NAMES))
    if kind.startswith("wl-"):
        wl = data.draw(st.sampled_from(model.workloads))
        if kind == "wl-drop":
            return model.model_copy(update={"workloads": tuple(w for w in model.workloads if w is not wl)})
        if kind == "wl-queue":
            new = wl.model_copy(update={"queue": name})
        elif kind == "wl-priority":
            new = wl.model_copy(update={"priority_class": name})
        elif kind == "wl-count":
            ps = wl.pod_sets[0]
            new = wl.model_copy(update={"pod_sets": (ps.model_copy(update={"count": data.draw(st.integers(-1, 2))}),)})
        elif kind == "wl-name":
            new = wl.model_copy(update={"name": data.draw(st.sampled_from([w.name for w in model.workloads]))})
        else:
            if wl.admission is None:
                return model
            new = wl.model_copy(update={"admission": wl.admission.model_copy(update={"cluster_queue": name})})
        return _replace(model, "workloads", wl, new)
    if kind.startswith("lq-"):
        lq = data.draw(st.sampled_from(model.local_queues))
        new = lq.model_copy(update={"cluster_queue": name} if kind == "lq-target" else {"name": name})
        return _replace(model, "local_queues", lq, new)
    if kind.startswith("cq-"):
        cq = data.draw(st.sampled_from(model.cluster_queues))
        if kind == "cq-drop":
            return model.model_copy(update={"cluster_queues": tuple(c for c in model.cluster_queues if c is not cq)})
        if kind == "cq-name":
            new = cq.model_copy(update={"name": name})
        elif kind == "cq-cohort":
            new = cq.model_copy(update={"cohort": name})
        else:
            rg = cq.resource_groups[0]
            fq = rg.flavors[0]
            if kind == "cq-flavor":
                fq = fq.model_copy(update={"flavor": name})
            else:
                rq = fq.resources[0]
                fq = fq.model_copy(update={"resources": (rq.model_copy(update={"nominal": -1000}),)})
            new = cq.model_copy(update={"resource_groups": (rg.model_copy(update={"flavors": (fq,) + rg.flavors[1:]}),)})
        return _replace(model, "cluster_queues", cq, new)
    if kind == "cohort-parent":
        if not model.cohorts:
            return model
        co = data.draw(st.sampled_from(model.cohorts))
        return _replace(model, "cohorts", co, co.model_copy(update={"parent": name}))
    if kind == "flavor-topology":
        fl = data.draw(st.sampled_from(model.flavors))
        return _replace(model, "flavors", fl, fl.model_copy(update={"topology": name}))
    # every object of a file read again, unchanged: new objects, equal to the old ones
    return model.model_copy(update={n: tuple(x.model_copy() for x in getattr(model, n))
                                    for n in ("namespaces", "local_queues", "workloads")})


def _errors(diags: Diagnostics) -> set[tuple[str, str]]:
    return {(d.code, d.message) for d in diags.items if d.severity.name == "ERROR"}


def _full(model) -> Diagnostics:
    diags = Diagnostics()
    validate(model, diags)
    return diags


@SETTINGS
@given(text=kad_clusters(), data=st.data())
def test_only_what_an_edit_reaches_is_validated_and_every_new_error_is_found(tmp_path_factory, text, data):
    tmp = tmp_path_factory.mktemp("inc")
    (tmp / "c.kad").write_text(text)
    ws = workspace.load([str(tmp)])
    assume(not ws.diagnostics.has_errors)
    before = Checked(ws.model)
    old = _errors(_full(ws.model))
    model = ws.model
    for _ in range(data.draw(st.integers(1, 3))):
        model = _edit(model, data)
    mine = Diagnostics()
    validate_since(before, model, mine)
    full = _full(model)
    assert _errors(mine) - old == _errors(full) - old
    assert {(d.code, d.message) for d in mine.items} <= {(d.code, d.message) for d in full.items}


def test_nothing_changed_runs_no_check(tmp_path):
    (tmp_path / "c.kad").write_text("flavor f { }\ncluster_queue q {\n  resources cpu {\n    flavor f { cpu = 4 }\n"
                                    "  }\n}\nnamespace ns { }\nlocal_queue ns/lq -> q\n"
                                    "workload ns/a {\n  queue = lq\n  pod_group main {\n    count = 1\n"
                                    "    requests = { cpu = 1 }\n  }\n}\n")
    ws = workspace.load([str(tmp_path)])
    same = ws.model.model_copy()
    assert not changes(ws.model, same).names
    diags = Diagnostics()
    validate_since(Checked(ws.model), same, diags)
    assert not diags.items


def _workspace(tmp_path: Path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "q.kad").write_text("flavor f { }\nflavor g { }\ncluster_queue q {\n  resources cpu {\n"
                               "    flavor f { cpu = 4 }\n    flavor g { cpu = 4 }\n  }\n}\n"
                               "namespace ns { }\nlocal_queue ns/lq -> q\npriority low = 1\n")
    (src / "w.kad").write_text('workload ns/a {\n  queue = lq\n  priority = low\n  pod_group main {\n'
                               '    count = 2\n    requests = { cpu = 1 }\n  }\n}\n'
                               'workload ns/b {\n  queue = lq\n  pod_group main {\n    count = 1\n'
                               '    requests = { cpu = 1 }\n  }\n'
                               '  admitted { cluster_queue = q  pod_group main { count = 1  flavor = f } }\n}\n')
    ws = workspace.load([str(src)])
    assert not ws.diagnostics.has_errors, [d.message for d in ws.diagnostics.items]
    return ws, workspace.display_name(src / "q.kad"), workspace.display_name(src / "w.kad")


def test_an_edit_leaving_a_reference_dangling_is_refused(tmp_path):
    """An edit of one file that breaks what an unedited file's objects refer to is still caught:
    the readers of the changed object are checked again."""
    ws, q, w = _workspace(tmp_path)
    reloader = edited.Reloader(ws)
    text = ws.sources.text(q).splitlines()
    assert text[2] == "cluster_queue q {" and text[4] == "    flavor f { cpu = 4 }"
    for edits, code in (([Edit(q, 3, 15, "q", "r")], "KAD206"),  # `b` admitted to a cluster queue renamed away
                        ([Edit(q, 5, 12, "f", "h")], "KAD200"),  # a flavor that isn't defined
                        ([Edit(q, 5, 12, "f", "g"), Edit(q, 6, 12, "g", "f")], None),  # the same flavors
                        ([Edit(q, 5, 12, "f", "g"), Edit(q, 6, 12, "g", "g")], "KAD207"),  # `b`'s flavor gone from q
                        ([Edit(q, 11, 10, "low", "lo")], "KAD203"),  # `a`'s priority class renamed
                        ([Edit(w, 3, 14, "low", "lo")], "KAD203")):  # `a` names a class that isn't there
        got = edited.with_edits(ws, edits, Checked(ws.model))
        full = edited.with_edits(ws, edits)
        assert got is not None and full is not None
        if code is None:
            assert not got[1].has_errors and not full[1].has_errors and reloader.reload(edits) is not None
            continue
        assert code in {d.code for d in got[1].items} and code in {d.code for d in full[1].items}, edits
        assert reloader.reload(edits) is None
    assert reloader.reload([Edit(q, 5, 22, "4", "8")]) is not None
