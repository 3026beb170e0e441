"""A top-level List's items are read while the List is parsed, so its tree is never whole in memory
(`_Reader.list_item`); what that reads is exactly what reading the whole tree reads: the same objects
at the same places, the same diagnostics, the same counts against the inputs' totals, the same index."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit import budget
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.manifests.documents import _read_indexed, read_indexed
from kadmit.manifests.reader import Restart, read_text

ITEMS = [
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c%d", "namespace": "n"}}',
    '{"metadata": {"name": "bare%d"}}',  # takes the List's type (a `*List`), or KAD155 in a `kind: List`
    '{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "f%d"}}',
    '{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "f%d"}, "spec": 3}',
    '{"apiVersion": "", "kind": "ConfigMap", "metadata": {"name": "e%d"}}',
    '{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w%d", "namespace": "n"}, '
    '"spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": '
    '[{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}',
    '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s%d"}}]}',
    "null", "3", '"text"', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d%d", "name": "dup"}}',
    '{"a": 1}', '{"apiVersion": "v1", "kind": 7, "metadata": {"name": "k%d"}}',
]
HEADS = {"apiVersion": ['"v1"', '"kueue.x-k8s.io/v1beta1"', '""', "3"], "kind": ['"List"', '"List"', '"ConfigMapList"', '"ResourceFlavorList"',
         '"Foo"', '"ClusterQueue"', "[]"], "metadata": ['{"resourceVersion": ""}']}


@st.composite
def list_documents(draw) -> str:
    keys = draw(st.permutations(["apiVersion", "kind", "items", "metadata"]))  # kubectl writes items before kind
    keys = keys[:len(keys) - draw(st.sampled_from([0, 0, 0, 1]))]
    keys += draw(st.lists(st.sampled_from(["items", "kind", "apiVersion", "<<"]), max_size=2)) if draw(st.booleans()) else []
    block = draw(st.booleans())
    out = []
    for k in keys:
        if k == "items":
            items = [ITEMS[i] % n if "%d" in ITEMS[i] else ITEMS[i]
                     for n, i in enumerate(draw(st.lists(st.integers(0, len(ITEMS) - 1), max_size=6)))]
            if block:
                out.append("items:\n" + "".join(f"- {i}\n" for i in items) if items else "items: []\n")
            else:
                out.append(f'"items": [{", ".join(items)}]')
        elif k == "<<":
            v = '{"kind": "List", "apiVersion": "v1"}'
            out.append(f"<<: {v}\n" if block else f'"<<": {v}')
        else:
            v = HEADS[k][0] if draw(st.booleans()) else draw(st.sampled_from(HEADS[k]))
            out.append(f"{k}: {v}\n" if block else f'"{k}": {v}')
    text = "".join(out) if block else "{" + ", ".join(out) + "}\n"
    return text + draw(st.sampled_from(["", "", "", "bad: [\n", "x: *nowhere\n"]))


@st.composite
def files(draw) -> str:
    docs = draw(st.lists(st.one_of(list_documents(), st.just(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: plain}\n")), min_size=1, max_size=3))
    return "---\n".join(docs)


def _diags(d: Diagnostics) -> list:
    return sorted((x.code, x.message, tuple(x.span) if x.span else None, x.help) for x in d.items)


def _budget(b: budget.Budget | None) -> tuple | None:
    return None if b is None else (b.objects, b.workloads, {k: (r.first, tuple(r.span) if r.span else None, r.count)
                                                            for k, r in b.refused.items()})


def _whole(read, limit: int | None):
    """`read(diags)` under a budget of `limit` objects (None: no budget): fragment, diagnostics, budget."""
    diags = Diagnostics()
    b = budget.Budget(1 << 40, limit, limit) if limit is not None else None
    if b is None:
        got = read(diags)
    else:
        with budget.counting(b):
            got = read(diags)
    return got, diags, b


def _plain(read, limit):
    try:
        return _whole(read, limit)
    except Restart:
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files(), st.sampled_from([None, None, 3, 6]))
def test_reading_lists_while_parsed_reads_what_the_whole_tree_reads(text, limit):
    whole, wd, wb = _whole(lambda d: read_text(text, "f.yaml", d, False), limit)
    got, gd, gb = _whole(lambda d: read_manifest_text(text, "f.yaml", d), limit)
    assert got.model_dump() == whole.model_dump()
    assert _diags(gd) == _diags(wd)
    assert _budget(gb) == _budget(wb)
    (frag, index), idiags, ib = _whole(lambda d: read_indexed(text, "f.yaml", d), limit)
    (wfrag, windex), widiags, wib = _whole(lambda d: _read_indexed(text, "f.yaml", d, None, False), limit)
    assert frag.model_dump() == wfrag.model_dump() == whole.model_dump()
    assert idiags.items == widiags.items and _budget(ib) == _budget(wib)
    assert (index is None) == (windex is None)
    if index is not None:
        assert [index.sizes[s] for s in range(len(index.sizes))] == [windex.sizes[s] for s in range(len(windex.sizes))]
        assert list(index.diag_ends) == list(windex.diag_ends) and index.log == windex.log
        assert index.diags == windex.diags


def test_a_list_read_while_parsed_keeps_no_tree():
    kept = []

    class Watch:
        def list_item(self, values, item):
            kept.append(item)
            return True

        def list_done(self, values, seq):
            kept.append(seq)

    from kadmit.manifests.yamltree import parse_documents
    text = json.dumps({"items": [{"kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(5)], "kind": "List"})
    (doc,) = parse_documents(text, "f.json", Diagnostics(), lister=Watch())
    assert len(kept) == 6 and kept[-1].v == [] and doc.v["items"] is kept[-1]
    assert (kept[-1].end_line, kept[-1].end_col) == (kept[4].end_line, kept[4].end_col)  # its place: the whole list's


def test_kubectl_order_items_before_kind_is_read_while_parsed():
    text = "apiVersion: v1\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c{i}\n" for i in range(3)) + "kind: List\nmetadata: {}\n"
    reader_items = []
    from kadmit.manifests import reader as r

    class Counting(r._Reader):
        def list_item(self, values, item):
            took = super().list_item(values, item)
            reader_items.append(took)
            return took

    rd = Counting("f.yaml", Diagnostics(), text)
    from kadmit.manifests.yamltree import parse_documents
    for doc in parse_documents(text, "f.yaml", rd.f.diags, lister=rd):
        rd.document(doc)
    rd.finish()
    assert reader_items == [True, True, True] and [s.object.name for s in rd.fragment.skipped] == ["c0", "c1", "c2"]
