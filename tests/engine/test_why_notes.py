"""`why`'s notes naming quota numbers: the text output names at most three parts (the workload's own
queue's first, one owner's resources raised in the same flavors as one part) and counts the rest; as a
string (JSON `fixes_notes`, `--all`) the note names every number with the value decided."""

import pickle
from types import SimpleNamespace

from kadmit.engine.explain import raises
from kadmit.engine.explain.knobs import Knob
from kadmit.source import Span


def _knob(i: int, res: str) -> Knob:
    return Knob("quota", Span("p.kad", i, 1), "1", f"`{res}`", "q", 1, res, kad=True)


def _prover(entries, short=(), refused=()):
    """A stand-in for `Prover`: what each knob (by line) is, and what was recorded of them."""
    by_line = {k.span.line: e for k, e in entries}
    return SimpleNamespace(_quota_entry=lambda k: by_line[k.span.line], alone_short=list(short),
                           alone_refused=list(refused))


def test_the_text_names_three_parts_own_queue_first_and_counts_the_rest():
    rows = [("cq", "lender", "h100", "nvidia.com/gpu", "nominal"), ("cq", "mine", "h100", "cpu", "nominal"),
            ("cq", "mine", "a100", "cpu", "nominal"), ("cq", "mine", "h100", "memory", "nominal"),
            ("cq", "mine", "a100", "memory", "nominal"), ("cq", "mine", "h100", "nvidia.com/gpu", "borrowing_limit"),
            ("cq", "other", "a100", "nvidia.com/gpu", "nominal"), ("cohort", "root", "a100", "cpu", "nominal")]
    knobs = [(_knob(i, r[3]), r) for i, r in enumerate(rows, 1)]
    prover = _prover(knobs, short=[(k, 4000) for k, _ in knobs])
    [note] = raises.alone_notes(prover, [], "mine")
    assert note.brief.endswith(
        ": cluster_queue `mine`'s `cpu` and `memory` in h100 and a100, its `nvidia.com/gpu` borrowing limit in "
        "h100; cluster_queue `lender`'s `nvidia.com/gpu` in h100; and 2 more quotas (`--all` lists every one)")
    assert note.brief.startswith("raising any one of these quotas alone admits nothing (decided again with each "
                                 "raised: still pending")
    # the whole note names all eight with their values, in the order searched
    assert str(note).endswith("cluster_queue `lender`'s `nvidia.com/gpu` in h100 (4); cluster_queue `mine`'s `cpu` "
                              "in h100 (4) and a100 (4); cluster_queue `mine`'s `memory` in h100 (4) and a100 (4); "
                              "cluster_queue `mine`'s `nvidia.com/gpu` borrowing limit in h100 (4); cluster_queue "
                              "`other`'s `nvidia.com/gpu` in a100 (4); cohort `root`'s `cpu` in a100 (4)")
    assert "each raised to the value shown" in note
    assert pickle.loads(pickle.dumps(note)).brief == note.brief


def test_every_part_named_leaves_nothing_to_count_and_a_refused_number_once():
    rows = [("cq", "d", "f", "cpu", "nominal"), ("cq", "d", "g", "cpu", "nominal")]
    knobs = [(_knob(i, r[3]), r) for i, r in enumerate(rows, 1)]
    prover = _prover(knobs, refused=[k for k, _ in knobs] * 2)
    [note] = raises.alone_notes(prover, [], "a")
    assert note.brief == ("no value of any one of these quotas alone can admit it (by arithmetic: what its "
                          "ClusterQueue can reach at most stays short of what it must hold): cluster_queue `d`'s "
                          "`cpu` in f and g")
    assert str(note) == note.brief
