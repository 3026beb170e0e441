"""Kueue's manager Deployment's `--feature-gates` flag (cmd/kueue/main.go of Kueue v0.17.0).

Kueue's main refuses to start when the flag and the Configuration's `featureGates` are both given
(config.ValidateFeatureGates: a flag not empty and a map not nil); with the flag it sets the flag's
gates (component-base's `Set`: `k=v,...`, each value strconv.ParseBool's, then SetFromMap), else the
Configuration's. The reader keeps the flag of a Deployment whose container runs Kueue's image
(`manager_flag`); managergates.with_manager_gates puts its gates into the model's SchedulerConfig once
the input is merged (the Configuration may be in another file)."""

from __future__ import annotations

import json
import re

from kadmit.featuregates import ManagerFlag
from kadmit.manifests import gates as known_gates
from kadmit.manifests.codes import KAD157, KAD161
from kadmit.manifests.config import MAY_DIFFER
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.yamltree import STR, Val

_GATES_FLAG = re.compile(r"^--?feature-gates(?:=(.*))?$")
_KUEUE_IMAGE = re.compile(r"(^|/)kueue(:[^/]*|@.*)?$")
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def parse(text: str) -> tuple[dict[str, bool], str | None]:
    """component-base featureGate.Set's reading of `text`, and the error Kueue's manager exits with (None:
    none): its own parse, then SetFromMap's checks (a gate Kueue does not know, a locked gate set off)."""
    written: dict[str, bool] = {}
    for part in text.split(","):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            return {}, f"missing bool value for {key}"
        if value not in _BOOLS:
            return {}, f"invalid value of {key}={value}, err: strconv.ParseBool: parsing {json.dumps(value)}: invalid syntax"
        written[key] = _BOOLS[value]
    for key, value in written.items():
        if (bad := known_gates.refusal(key, value)) is not None:
            return {}, bad[0]
    return written, None


def manager_flag(f: Fields, o: Meta) -> ManagerFlag | None:
    """The `--feature-gates` of Kueue's manager in a Deployment's pod template: of its first container of
    Kueue's image that gives one (either form; Go's flag package keeps the last given), None where none
    does or it is empty (Kueue's main: `featureGates != ""`). A flag Kueue's manager exits on is reported
    (KAD157); each gate it sets that kadmit does not model is KAD161, as in the Configuration."""
    template = f.map(f.map(o.node, "spec"), "template")
    for c in f.maps(f.map(template, "spec"), "containers"):
        if not _KUEUE_IMAGE.search(f.str(c, "image") or ""):
            continue
        words = [*f.seq(c, "command"), *f.seq(c, "args")]
        given: tuple[str, Val] | None = None
        for i, w in enumerate(words):
            m = _GATES_FLAG.match(str(w.v)) if w.kind == STR else None
            if m is not None:
                value = words[i + 1] if m.group(1) is None and i + 1 < len(words) else w
                given = (m.group(1) if m.group(1) is not None else str(value.v), value)
        if given is None:
            continue
        text, node = given
        if not text:
            return None
        written, error = parse(text)
        if error is not None:
            f.diags.emit(KAD157, f"Kueue's manager does not start with this flag: `Unable to set flag gates for known "
                         f"features: {error}`", f.span(node),
                         help="give each gate as `Name=true` or `Name=false`, Kueue v0.17.0's gates only (pkg/features)")
            return None
        for name in written:
            if (why := known_gates.unmodelled_warning(name, written)) is not None:
                f.diags.emit(KAD161, f"`--feature-gates` of Kueue's manager sets `{name}`, which kadmit does not "
                             f"model: {why}; {MAY_DIFFER}", f.span(node))
        return ManagerFlag(gates=written, namespace=o.namespace or "default", name=o.name, span=f.span(node))
    return None
