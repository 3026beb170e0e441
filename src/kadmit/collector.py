"""Pausing Python's cyclic garbage collector while a stage builds many small acyclic objects (value trees,
model objects, a cluster read's documents), and keeping a read model out of its walks while a command works."""

from __future__ import annotations

import gc
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
    was, held = gc.isenabled(), gc.get_freeze_count() > 0
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if not held:  # inside an outer holder's frozen set (why's prover), ours stay there until it ends
            gc.unfreeze()
        if was:
            gc.enable()


@contextmanager
def long_lived() -> Iterator[None]:
    """While a command works on a model it has read, the objects that exist now (the model, its
    source texts, its indexes) sit in the collector's permanent generation, so the collections the
    work triggers don't walk them (a full collection of 50,000 workloads' model costs seconds);
    when the work ends they return to the oldest generation, where garbage among them is found."""
    held = gc.get_freeze_count() > 0  # an outer holder (why's prover) releases everything itself
    gc.freeze()
    try:
        yield
    finally:
        if not held:
            gc.unfreeze()
