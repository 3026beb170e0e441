"""Work measured by counting instead of timing: the function calls (Python and built-in) a run makes.

A test of how cost grows with the input compares counts at two sizes, so no test fails because the
machine is busy (timings belong in bench/). A count is the same on every machine for the same code
and input, up to set and dict order under string hashing.
"""

from __future__ import annotations

import sys
from typing import Callable


def calls(run: Callable[[], object]) -> int:
    """The function calls `run()` makes, its own included."""
    count = 0

    def profile(frame, event, arg):  # noqa: ARG001 - sys.setprofile's signature
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return count
