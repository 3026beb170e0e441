"""kadmit.collector: a process that decides again and again (the language server, the API's users) keeps
no decision's garbage — each decision's solver objects are cycles only a full collection finds, and Python's
own schedule never makes one after `gc.freeze` — while a one-shot command line leaves it to the exit."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest

from kadmit import api, collector

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "ml-platform-kueue")


@pytest.fixture(autouse=True)
def thawed():
    """What a test's one-shot work left frozen (a one-shot process keeps it so) is not the next test's."""
    yield
    gc.unfreeze()


@pytest.fixture
def every_time(monkeypatch):
    # no pacing: a full collection whenever work ends, however costly the last one was (a test worker's
    # heap grows with what it ran before) and whether or not the process has grown since
    monkeypatch.setattr(collector, "SHARE", 0)
    monkeypatch.setattr(collector, "GROWN", 0)
    monkeypatch.setattr(collector, "_ONE_SHOT", False)


def test_admit_leaves_nothing_for_a_full_collection(every_time):
    for _ in range(2):
        assert api.admit([EXAMPLE]).exit_code == 0
        assert gc.collect() == 0


def test_a_language_server_the_command_line_started_frees_each_decision(every_time):
    # `kadmit lsp` runs through the command line's entry point, which froze the modules it imported
    # (`kadmit.__main__._cli`): that is no outer holder of the work, whose end releases what it froze
    gc.freeze()
    for _ in range(2):
        assert api.admit([EXAMPLE]).exit_code == 0
        assert api.why("team-infra/gpu-smoke", [EXAMPLE]).exit_code in (0, 1)
        assert gc.get_freeze_count() == 0  # the decisions' garbage is not kept frozen with the model
    assert gc.collect() < 10_000  # the last explanation's, which the next work collects


def _whys(n: int) -> int:
    """What a full collection finds after `n` whys."""
    for _ in range(n):
        assert api.why("team-infra/gpu-smoke", [EXAMPLE]).exit_code in (0, 1)
    return gc.collect()


def test_whys_leave_no_more_than_the_last_ones_explanation(every_time, monkeypatch):
    # the prover's re-decisions are collected when it ends; what the explanation made after it is the
    # next work's to collect: it does not add up
    gc.collect()
    one = _whys(1)
    assert _whys(4) < 1.5 * one
    monkeypatch.setattr(collector, "_ONE_SHOT", True)
    four = _whys(4)  # a one-shot process keeps what it froze so: its garbage is out of the walks
    gc.unfreeze()
    assert gc.collect() + four > 3 * one


def test_a_one_shot_process_leaves_the_garbage_to_its_exit(monkeypatch):
    monkeypatch.setattr(collector, "_ONE_SHOT", True)
    gc.collect()
    assert api.admit([EXAMPLE]).exit_code == 0
    assert gc.collect() > 1000  # the decision's solver objects: what the other processes collect


def test_pacing_skips_a_collection_too_soon_after_the_last(monkeypatch):
    monkeypatch.setattr(collector, "_ONE_SHOT", False)
    monkeypatch.setattr(collector, "GROWN", 1 << 60)
    monkeypatch.setattr(collector, "_LAST", (float("inf"), 1.0, 0))  # the last one "just now", costly
    calls = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(a) or 0)
    collector.collect_after_work()
    assert calls == []
    monkeypatch.setattr(collector, "_LAST", (float("-inf"), 1.0, 0))
    collector.collect_after_work()
    assert calls == [()]


def test_a_callers_share_makes_collections_no_further_apart_than_the_process_does(monkeypatch):
    # why's prover asks for one per 4 times its cost: a process that collects after all work (SHARE 0,
    # the tests above) still collects after each why, whatever the last collection cost
    monkeypatch.setattr(collector, "_ONE_SHOT", False)
    monkeypatch.setattr(collector, "SHARE", 0)
    monkeypatch.setattr(collector, "GROWN", 1 << 60)
    monkeypatch.setattr(collector, "_LAST", (time.process_time(), 1.0, 0))  # the last one just now, costly
    calls = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(a) or 0)
    collector.collect_after_work(share=4)
    assert calls == [()]
