"""`why`'s controls: how many fixes to show (0: none searched), the budget of changes decided again,
and what the answer says of them (how many were found and tried, whether the list is complete)."""

from __future__ import annotations

import json

from kadmit import api
from kadmit.render.why import why_dict

KAD = "examples/ml-platform/"


def _why(name: str, **kw) -> dict:
    out = api.why(name, [KAD], **kw)
    assert out.result is not None
    return why_dict(out.result)


def test_fixes_shown_are_the_best_found_and_the_rest_are_counted():
    one = _why("team-vision/frame-extract", fixes=1)
    three = _why("team-vision/frame-extract", fixes=3)
    assert len(one["fixes"]) == 1 and one["fixes_found"] == three["fixes_found"] >= 2
    assert one["fixes"][0] == three["fixes"][0]  # the same search, fewer shown
    assert one["fixes_complete"] is False and three["fixes_complete"] is (three["fixes_found"] <= 3)
    assert one["candidates_tried"] == three["candidates_tried"] >= one["fixes_found"]
    assert one["redecisions"] >= one["candidates_tried"]


def test_no_fixes_searched_with_zero():
    got = _why("team-vision/frame-extract", fixes=0)
    assert got["fixes"] == [] and got["fixes_found"] == 0 and got["redecisions"] == 0
    assert got["blame"]  # the explanation itself stands


def test_a_spent_budget_leaves_the_list_incomplete():
    full = _why("team-vision/frame-extract", fixes=5)
    short = _why("team-vision/frame-extract", fixes=5, budget=1)
    assert short["redecisions"] == 1 < full["redecisions"]
    assert short["fixes_complete"] is False and full["fixes_complete"] is True
    json.dumps(short)  # plain data
