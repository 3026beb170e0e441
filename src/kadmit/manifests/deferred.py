"""Names a package of the front end imports when first asked for (its `__getattr__`), told apart
from its submodules, which the import system imports."""

from __future__ import annotations

import os
import sys


def submodule(package: str, name: str) -> bool:
    """Whether `name` is a module or package in the folder of `package` (listed once per package;
    the import system's own search, asked for every name `from package import a, b` names, cost 20
    times more): a name it does not list is looked up in the package's deferred module first, which
    is slower, not wrong."""
    module = sys.modules[package]
    names = vars(module).get("_submodules")
    if names is None:
        found = set()
        for folder in module.__path__:
            try:
                entries = os.listdir(folder)
            except OSError:
                continue
            found.update(e.removesuffix(".py") for e in entries if e.endswith(".py") or "." not in e)
        names = module._submodules = frozenset(found)
    return name in names
