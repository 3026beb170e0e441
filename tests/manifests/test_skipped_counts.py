"""Objects of kinds kadmit does not read are listed by name up to SKIPPED_NAMED per kind and file; the
next one's entry counts the rest (`Skipped.more`), so that what a file of a million ConfigMaps leaves
in memory is a hundred entries, and every object is still accounted for."""

from __future__ import annotations

import json

from kadmit.diagnostics import Diagnostics
from kadmit.edits import Edit
from kadmit.identity import skipped_dict
from kadmit.manifests import read_manifest_text
from kadmit.manifests.jobs.external import say_unread
from kadmit.manifests.documents import read_indexed, reread
from kadmit.model import SKIPPED_NAMED
from kadmit.render.decisions import skipped_lines


def _config_maps(n: int, prefix: str = "c") -> str:
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {prefix}{i}\n" for i in range(n))


def _list(n: int) -> str:
    items = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"s{i}", "namespace": "ns"}} for i in range(n)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def test_past_the_named_ones_one_entry_counts_the_rest():
    diags = Diagnostics()
    frag = read_manifest_text(_config_maps(250) + _config_maps(3, "d").replace("ConfigMap", "Secret"), "f.yaml", diags)
    maps = [s for s in frag.skipped if s.object.kind == "ConfigMap"]
    assert [s.object.name for s in maps] == [f"c{i}" for i in range(SKIPPED_NAMED + 1)]
    assert [s.more for s in maps] == [0] * SKIPPED_NAMED + [250 - SKIPPED_NAMED - 1]
    assert maps[-1].span.line == 5 * SKIPPED_NAMED + 2  # the first object it counts (after its `---`)
    assert [(s.object.name, s.more) for s in frag.skipped if s.object.kind == "Secret"] == [("d0", 0), ("d1", 0), ("d2", 0)]
    assert skipped_dict(maps[-1])["more"] == 149 and "more" not in skipped_dict(maps[0])
    say_unread(frag.unread_kinds, None, diags)  # said once the input is merged
    kad159 = sorted(d.message for d in diags.items if d.code == "KAD159")
    assert "(250 objects)" in kad159[0] and "(3 objects)" in kad159[1]


def test_a_list_counts_the_same():
    frag = read_manifest_text(_list(1000), "l.json", Diagnostics())
    assert len(frag.skipped) == SKIPPED_NAMED + 1 and frag.skipped[-1].more == 1000 - SKIPPED_NAMED - 1
    assert frag.skipped[-1].object.name == f"s{SKIPPED_NAMED}" and frag.skipped[-1].object.namespace == "ns"


def test_up_to_one_past_the_named_every_object_is_listed():
    frag = read_manifest_text(_config_maps(SKIPPED_NAMED + 1), "f.yaml", Diagnostics())
    assert len(frag.skipped) == SKIPPED_NAMED + 1 and not any(s.more for s in frag.skipped)


def test_the_text_counts_every_object():
    frag = read_manifest_text(_config_maps(250), "f.yaml", Diagnostics())
    lines = skipped_lines(frag.skipped)
    assert lines[0] == "250 objects in the input not decided:"
    assert lines[-1] == (f"  … and {250 - 20} more (ConfigMap): `--format json` lists them, the objects of one kind "
                         f"past {SKIPPED_NAMED} in a file by count")
    few = skipped_lines(read_manifest_text(_config_maps(30), "f.yaml", Diagnostics()).skipped)
    assert few[0] == "30 objects in the input not decided:" and few[-1].endswith("`--format json` lists them all")


def test_a_file_that_counts_is_read_whole_when_edited():
    text = _config_maps(250)
    diags = Diagnostics()
    frag, index = read_indexed(text, "f.yaml", diags)
    assert index is None and frag.skipped[-1].more == 149


def test_an_edit_that_passes_the_named_ones_reads_the_file_whole():
    text = _config_maps(SKIPPED_NAMED + 1) + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
    frag, index = read_indexed(text, "f.yaml", Diagnostics())
    assert index is not None and len(frag.skipped) == SKIPPED_NAMED + 2
    line = text.count("\n") - 2  # 1-based: `kind: Secret`
    assert reread(index, [Edit("f.yaml", line, 7, "Secret", "ConfigMap")]) is None
    assert reread(index, [Edit("f.yaml", line, 7, "Secret", "Service")]) is not None
    edited = read_manifest_text(text.replace("kind: Secret", "kind: ConfigMap"), "f.yaml", Diagnostics())
    assert len(edited.skipped) == SKIPPED_NAMED + 1 and edited.skipped[-1].more == 1


def test_why_on_a_counted_name_says_it_may_be_one_of_them(tmp_path):
    from kadmit import api

    (tmp_path / "maps.yaml").write_text(_config_maps(250).replace("name: c", "namespace: ns\n  name: c"))
    (tmp_path / "flavor.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n")
    got = api.why("ConfigMap/ns/c200", [str(tmp_path)])
    (d,) = [d for d in got.diagnostics if d.code == "KAD009"]
    assert "149 are counted, not named (the first after ConfigMap `ns/c100`)" in d.message
    assert d.span.line == 6 * SKIPPED_NAMED + 2 and got.exit_code == 2  # at the entry that counts them
    named = api.why("ConfigMap/ns/c7", [str(tmp_path)])
    assert [d.code for d in named.diagnostics if d.code.startswith("KAD01")] == ["KAD011"]
    other = api.why("ConfigMap/elsewhere/c200", [str(tmp_path)])
    assert "counted" not in next(d for d in other.diagnostics if d.code == "KAD009").message
