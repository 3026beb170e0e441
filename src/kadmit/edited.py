"""The workspace's model once edits are applied to its texts: each edited file read again through its
front end, the whole merged and validated again (`with_edits`); the engine's view of it for proving
fixes (`Reloader`: an edited input counts only without new errors)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.edits import Edit, EditConflict, apply
from kadmit.model import Fragment, Model, merge
from kadmit.scope import number_repeats
from kadmit.workspace import Workspace, is_kad_text


def with_edits(ws: Workspace, edits: list[Edit], since=None) -> tuple[Model, Diagnostics] | None:
    """The model the inputs give once `edits` are applied to their texts: each edited file read
    again through its front end (edits never touch imports, so the other files' objects stand; of a
    manifest file, only the documents edited: `manifests.documents.reread`), the whole merged and
    validated again — with `since` (a `validate.Checked` of the workspace's model), only the checks
    the edited objects reach (`validate.validate_since`: every new error, not every diagnostic).
    None when an edit doesn't apply to the text."""
    from kadmit.manifests.jobs.manage import applied_again
    from kadmit.manifests.managergates import with_manager_gates
    from kadmit.manifests.resources import apply_resources, limit_ranger, limit_ranger_templates
    from kadmit.validate import validate as run_validation
    from kadmit.validate import validate_since

    edited: dict[str, list[Edit]] = {}
    for e in edits:
        edited.setdefault(e.file, []).append(e)
    diags = Diagnostics()
    parts = []
    try:
        if any(name not in ws.sources for name in edited):
            raise EditConflict("not an input file")
        for name in sorted(set(edited) - {name for name, _ in ws.parts}):
            apply(ws.sources.text(name) or "", edited[name])  # edits of a file read for no part must apply too
        for name, frag in ws.parts:
            if name in edited:
                frag = _read_edited(ws, name, edited[name], diags)
            parts.append(frag)
    except EditConflict:
        return None
    merged = with_manager_gates(merge(number_repeats(parts)), diags)
    # a workload the edits left (the very object) keeps its adjusted requests (`resources.Adjusted`)
    model = apply_resources(applied_again(limit_ranger(merged, diags), diags, ws.jobs_applied), ws.resources_applied)
    limit_ranger_templates(model, diags)
    if since is not None:
        validate_since(since, model, diags)
    else:
        run_validation(model, diags)
    return model, diags


def _read_edited(ws: Workspace, name: str, edits: list[Edit], diags: Diagnostics) -> Fragment:
    """File `name`'s objects once `edits` are applied: only its edited documents read again when it
    is a manifest file indexed by document and that can be done exactly, else the whole text."""
    index = ws.documents.get(name)
    got = None
    if index is not None:
        from kadmit.manifests.documents import reread
        got = reread(index, edits)
    if got is not None:
        diags.extend(got[1])
        return got[0]
    text = apply(ws.sources.text(name) or "", edits)
    if is_kad_text(name, text):
        from kadmit import syntax

        return syntax.parse_text(text, name, diags)
    from kadmit.manifests import read_manifest_text
    return read_manifest_text(text, name, diags)


class Reloader:
    """The engine's view of a workspace for proving fixes: its texts, and the model once edited.
    An edited input counts only when it has no error the original didn't have."""

    def __init__(self, ws: Workspace, scope=None) -> None:
        self.ws = ws
        self.sources = ws.sources
        self.scope = scope  # (model, diagnostics) -> the part of the model `why` answers on, or None
        self._known = {_error_key(d) for d in ws.diagnostics.items if d.severity.name == "ERROR"}
        self._checked = None

    def reload(self, edits: list[Edit]) -> Model | None:
        # only new errors count, so only the checks the edit reaches run again; a scope reads every
        # error of the edited input (to leave out other trees' broken objects): all checks run
        if self.scope is None and self._checked is None:
            from kadmit.validate import Checked
            self._checked = Checked(self.ws.model)
        got = with_edits(self.ws, edits, self._checked if self.scope is None else None)
        if got is None:
            return None
        model, diags = got
        if any(d.severity.name == "ERROR" and _error_key(d) not in self._known for d in diags.items):
            return None
        return self.scope(model, diags.sorted()) if self.scope is not None else model


def _error_key(d) -> tuple:
    return (d.code, d.message)
