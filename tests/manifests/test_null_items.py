"""A null item of a built-in kind's list of objects, read as the API server reads it: Go's decoding makes it
the item type's empty object, which the server's validation then judges. data/null_items.json holds what
the server (tools/kube-apiserver, v1.35.3) says of a null item added to every list of objects of the
built-in kinds kadmit reads (`tools/gen_schemas.py nulls`; tests/kube/test_null_items.py checks it is what
the server says). For each of those objects kadmit refuses the item with the server's own messages where
the server refuses it (KAD157, the object dropped), and reads it as an empty object where the server takes it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text, schema
from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import MAP, parse_documents

_GEN = Path(__file__).resolve().parents[2] / "tools" / "gen_schemas.py"


def _gen_schemas():
    spec = importlib.util.spec_from_file_location("gen_schemas", _GEN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _gen_schemas()
TYPES = schema._core()["types"]
KINDS, _ = schema._null_items()


def _places():
    out = []
    for key, base in GEN.NULL_BASES.items():
        kind = key.rsplit("/", 1)[1]
        for path, item, _ in GEN.object_lists(TYPES, f"core:V1{kind}", base):
            where = schema.go_path(tuple("[]" if isinstance(p, int) else p for p in path)).replace(".[]", "[]")
            out.append(pytest.param(key, path, item, KINDS[key][where], id=f"{kind}:{where}"))
    return out


PLACES = _places()


def test_every_place_tried_has_an_answer() -> None:
    assert len({(p.values[0], p.id) for p in PLACES}) == sum(len(paths) for paths in KINDS.values()) > 200
    answered = [p for p in PLACES if p.values[3]["messages"] is not None]
    taken = [p for p in answered if not p.values[3]["messages"]]
    # docs/KUEUE-DIFFERENCES.md §6 says so: 217 places, 34 taken (nodeSelectorTerms, imagePullSecrets...), the rest refused
    assert (len(answered), len(taken)) == (len(PLACES), 34)


@pytest.mark.parametrize("key, path, item, entry", PLACES)
def test_a_null_item_is_refused_with_the_servers_messages_or_read_as_an_empty_object(
        key: str, path: tuple, item: str, entry: dict) -> None:
    obj, index = GEN.with_null(GEN.NULL_BASES[key], path)
    diags = Diagnostics()
    read_manifest_text(json.dumps(obj), "m.yaml", diags)
    at = schema.go_path(path + (index,))
    errors = [d.message for d in diags.sorted() if d.severity.name == "ERROR"]
    messages = entry["messages"] if entry["messages"] is not None else schema._null_items()[1].get(item)
    if not messages:
        assert errors == [], errors
        return
    shown = [m.replace("{item}", at).replace("{list}", schema.go_path(path)).replace("{holder}", schema.go_path(path[:-1]))
             .replace("{index}", str(index)) for m in messages]
    assert errors == [f"`{at}` is null, which the API server decodes as an empty object, and refuses: "
                      + "; ".join(f"`{m}`" for m in shown)], errors
    assert [d.code for d in diags.sorted() if d.severity.name == "ERROR"] == ["KAD157"]


def test_a_null_item_is_read_as_an_empty_mapping() -> None:
    text = "a: [null, {b: 1}, ~]\n"
    diags = Diagnostics()
    root = next(iter(parse_documents(text, "m.yaml", diags)))
    items = Fields("m.yaml", diags).maps(root, "a")
    assert [(v.kind, v.v, v.line, v.col) for v in items][::2] == [(MAP, {}, 0, 4), (MAP, {}, 0, 18)]
    assert len(items) == 3 and not diags.sorted()


def test_a_crd_still_refuses_a_null_item() -> None:
    jobset = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: default}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            tolerations: [null]
            containers: [{name: c, image: busybox}]
"""
    diags = Diagnostics()
    read_manifest_text(jobset, "m.yaml", diags)
    assert [(d.code, d.message) for d in diags.sorted() if d.severity.name == "ERROR"] == [
        ("KAD156", "`spec.replicatedJobs[0].template.spec.template.spec.tolerations[0]` should be a mapping, "
                   "found null")]
