"""Pausing Python's cyclic garbage collector while a stage builds many small acyclic objects (value trees,
model objects, a cluster read's documents), and keeping a read model out of its walks while a command works."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Reading builds millions of small acyclic objects (value trees, model objects): the cyclic
    collector would walk them again and again for nothing (a third of the time on large manifests)
    and reference counting frees them anyway, so it pauses while reading and validating and
    resumes as it was. The objects made meanwhile then join the oldest generation in one step
    (`freeze` + `unfreeze` moves them there without walking them): left in the youngest, the first
    collections after reading would walk all of them (8 % of loading 15,000 workloads), only to
    find them alive. Garbage among them is still found by the next full collection."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if not _keeps_frozen():
            gc.unfreeze()
        if was:
            gc.enable()


_ONE_SHOT = False  # the process runs one command and ends (`one_shot_process`)
_HOLDERS = 0  # `long_lived` work open now (a command's decision, why's prover): the outermost releases


def _keeps_frozen() -> bool:
    """What is frozen now stays so: inside `long_lived` work (its end releases everything), or in a
    one-shot process (it collects nothing before its exit). Asked of this module's own holders, not of
    `gc.get_freeze_count()`: the command line's entry point freezes the modules it imports (`kadmit.__main__`),
    so the count is never 0 there, and the language server it starts took that for an outer holder and
    never released a decision's garbage (frozen with the next one's model: 50 MB more per admit + why)."""
    return _HOLDERS > 0 or _ONE_SHOT


def one_shot_process(one_shot: bool = True) -> None:
    """The process runs one command and then ends (the command line; not its language server): what a
    command leaves behind goes with the process, so `long_lived` need not collect it (a full collection
    walks the whole model read)."""
    global _ONE_SHOT
    _ONE_SHOT = one_shot


@contextmanager
def long_lived(share: int | None = None) -> Iterator[None]:
    """While a command works on a model it has read, the objects that exist now (the model, its
    source texts, its indexes) sit in the collector's permanent generation, so the collections the
    work triggers don't walk them (a full collection of 50,000 workloads' model costs seconds);
    when the work ends they return to the oldest generation. Garbage there is found only by a full
    collection, which Python's own schedule never makes here: `gc.freeze` zeroes the youngest
    generation's count, so the older ones' never reach their thresholds. So the work's end collects
    (`release`: never in a one-shot process): a process that decides again and
    again (the language server, the API's users, a test suite, a sweep) kept each decision's solver
    objects, cycles of Python wrappers around Z3's own memory (`api.admit` on the bundled example: 23 MB
    more per call, 1.4 GB after 60; `api.why`: 27 MB more per call). Inside other such work, the
    outermost releases everything; `share` paces its full collection (`release`)."""
    global _HOLDERS
    gc.freeze()
    _HOLDERS += 1
    try:
        yield
    finally:
        _HOLDERS -= 1
        if not _HOLDERS:
            release(share)


def release(share: int | None = None) -> None:
    """The end of work on a frozen model read (`long_lived`): a collection while it is still frozen, which
    walks only what the work made (cheap: its solver objects), then the model back in the walks and a
    full collection (`collect_after_work`, paced) for the rest (what came before the freeze, frozen with
    the model), at most one per `share` times its cost. A one-shot process keeps it all frozen."""
    if _ONE_SHOT:
        return
    gc.collect()
    gc.unfreeze()
    collect_after_work(share)


_LAST = (float("-inf"), 0.0, 0)  # when the last full collection here ended, its CPU time, the memory then
SHARE = 20  # at most one full collection per this many times its own cost (about 5% of the time) …
GROWN = 64 << 20  # … unless the process has grown by this many bytes since the last


def _resident() -> int:
    """The process's resident memory in bytes (0 where /proc does not say)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def collect_after_work(share: int | None = None) -> None:
    """When work on a model ends: a full collection, unless the last one was too recent for its cost (at
    most 1/`SHARE` of the process's time goes to them) and the process has not grown by `GROWN` since
    (the solver's memory, which Python does not count, goes with its wrappers); never in a one-shot
    process (`long_lived`). A caller's `share` may only make them closer (why's prover), never further
    apart than the process's `SHARE`."""
    global _LAST
    if _ONE_SHOT:
        return
    now, resident = time.process_time(), _resident()
    end, took, then = _LAST
    if now - end < (SHARE if share is None else min(share, SHARE)) * took and resident - then < GROWN:
        return
    gc.collect()
    done = time.process_time()
    _LAST = (done, done - now, _resident())
