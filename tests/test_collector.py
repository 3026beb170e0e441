"""kadmit.collector: a process that decides again and again (the language server, the API's users) keeps
no decision's garbage — each decision's solver objects are cycles only a full collection finds, and Python's
own schedule never makes one after `gc.freeze` — while a one-shot command line leaves it to the exit."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from kadmit import api, collector

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "ml-platform-kueue")


@pytest.fixture
def every_time(monkeypatch):
    monkeypatch.setattr(collector, "SHARE", 0)  # no pacing: a full collection whenever work ends
    monkeypatch.setattr(collector, "GROWN", 0)
    monkeypatch.setattr(collector, "_ONE_SHOT", False)


def test_admit_leaves_nothing_for_a_full_collection(every_time):
    for _ in range(2):
        assert api.admit([EXAMPLE]).exit_code == 0
        assert gc.collect() == 0


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
    assert _whys(4) > 3 * one


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
