"""`python -m kadmit`, and the `kadmit` and `kubectl-kadmit` executables: the command line
(`kadmit.cli`), loaded with the cyclic garbage collector held off, and the methods of dataclasses
and the forward references of annotations kept compiled from run to run."""

import gc
import os
import re
import sys
import types

_LOADER = "pydantic.plugin._loader"
_SECTION = re.compile(r"^\s*\[\s*pydantic\s*\]", re.M)


def _may_have_pydantic_plugins() -> bool:
    """Whether an installed distribution may declare a pydantic plugin (an entry point of group
    `pydantic`), looked for as `importlib.metadata` would find it on `sys.path` (`*.dist-info` and
    `*.egg-info` folders' `entry_points.txt`); True (so the real search runs) for anything this
    does not read: a zip or egg on the path, another finder of distributions."""
    from importlib.machinery import PathFinder
    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        return True
    for entry in sys.path:
        root = entry or "."
        if not os.path.isdir(root):
            if os.path.exists(root):
                return True
            continue
        if root.lower().endswith(".egg"):
            return True
        try:
            names = os.listdir(root)
        except OSError:
            return True
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                path = os.path.join(root, name, "entry_points.txt")
                try:
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        if _SECTION.search(fh.read()):
                            return True
                except FileNotFoundError:
                    continue
                except OSError:
                    return True
    return False


def _plugins_when_installed() -> None:
    """pydantic looks for its plugins when it builds the first model class, in a module that
    imports `importlib.metadata` (with email, zipfile and csv: 52 M instructions of `kadmit why` on
    the bundled example's 1,980 M, callgrind) to read the installed distributions' entry points. This stands in for that
    module until it is asked for plugins: when no installed distribution names a pydantic entry
    point, there are none (as pydantic itself would find); else pydantic's own module is imported
    and answers (plugins, `PYDANTIC_DISABLE_PLUGINS`, as ever)."""
    if _LOADER in sys.modules:
        return
    none: list[bool] = []

    def real():
        if sys.modules.get(_LOADER) is stand_in:
            del sys.modules[_LOADER]
        import importlib
        return importlib.import_module(_LOADER)

    def get_plugins():
        if none:
            return ()
        if not _may_have_pydantic_plugins():
            none.append(True)
            return ()
        return real().get_plugins()

    stand_in = types.ModuleType(_LOADER, "kadmit's stand-in for pydantic's plugin loader (`kadmit.__main__`)")
    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]

    def other(name: str):
        """Anything else pydantic may ask of its module: the real one's (dunders, which the import
        system probes, are not delegated)."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.__getattr__ = other  # type: ignore[attr-defined]
    sys.modules[_LOADER] = stand_in


# Standard-library modules the libraries kadmit imports only bind at import, with `import NAME`,
# and use in functions kadmit's commands never call: `secrets` (pydantic.types, for its Secret
# types' `compare_digest`; it imports `hmac`, `random` and `hashlib`, OpenSSL's `_hashlib` with
# it), `bz2` and `lzma` (shutil, imported by tempfile, probes them to know which archive formats
# it offers). Each value: the extension modules the module needs.
_BOUND_ONLY = {"secrets": (), "bz2": ("_bz2",), "lzma": ("_lzma",)}


class _OnFirstUse(types.ModuleType):
    """Stands in for a module of `_BOUND_ONLY` until one of its attributes is asked for: then the
    module is imported as ever (into `sys.modules`, in place of this) and answers every question
    asked here from then on, reads and writes alike. The import system reads only what the stand-in
    holds itself (`__name__`, `__spec__`: the module's own spec, found as `import` finds it, not
    initializing), so `import NAME` does not load it."""

    def _module(self) -> types.ModuleType:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        import importlib
        return importlib.import_module(name)

    def __getattr__(self, attr: str):
        return getattr(self._module(), attr)

    def __setattr__(self, attr: str, value) -> None:
        setattr(self._module(), attr, value)

    def __delattr__(self, attr: str) -> None:
        delattr(self._module(), attr)

    def __dir__(self):
        return dir(self._module())


def _bound_only_modules_on_first_use() -> None:
    """Each module of `_BOUND_ONLY` not imported yet stands in `sys.modules` as an `_OnFirstUse`
    until something reads one of its attributes (`from NAME import x` included), found first as
    `import` finds it, with the extension module it needs (so shutil's probe still answers whether
    `bz2` can be imported). (The standard library's `LazyLoader` loads on any attribute read, and
    `import NAME` reads `__spec__`.)"""
    from importlib.util import find_spec
    for name, needs in _BOUND_ONLY.items():
        if name in sys.modules:
            continue
        try:
            spec = find_spec(name)
            if spec is None or any(find_spec(n) is None for n in needs):
                continue
        except (ImportError, ValueError):
            continue
        stand_in = _OnFirstUse(name)
        vars(stand_in).update(__spec__=spec, __loader__=spec.loader)
        del vars(stand_in)["__doc__"]  # the module's own, when asked
        sys.modules[name] = stand_in


def _compiled_text_kept() -> None:
    """Source text compiled in every process, compiled once and kept beside kadmit's bytecode (as
    Python keeps modules' bytecode, and not when it writes none), keyed by the exact text:

    - the methods `dataclasses` writes for each class (`__init__`, `__repr__`, `__eq__`, and a frozen
      class's `__setattr__`, `__delattr__`, `__hash__`), compiled with `exec`: ~740 compilations,
      0.37 G of the 2.15 G instructions of `kadmit why` on the bundled `.kad` example (callgrind);
    - the string annotations `typing.ForwardRef` compiles with `compile(text, "<string>", "eval")`:
      pydantic_core's ~90 `TypedDict`s of schemas (whose module has `from __future__ import
      annotations`) make 784 of them at import, 41 M instructions of `kadmit why`.

    The same text compiled the same way (`<string>`, no inherited flags: neither `dataclasses` nor
    `typing` has a `__future__` import) gives the same code, so every class and annotation is made
    as before."""
    import builtins
    import dataclasses
    import marshal
    import typing
    from importlib.util import MAGIC_NUMBER, cache_from_source
    if getattr(dataclasses, "exec", builtins.exec) is not builtins.exec or "annotations" in vars(dataclasses):
        return
    try:
        path = os.path.join(os.path.dirname(cache_from_source(__file__)),
                            f"compiled-text.{sys.implementation.cache_tag}.marshal")
    except (NotImplementedError, ValueError):
        return
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        kept = marshal.loads(data[len(MAGIC_NUMBER):]) if data.startswith(MAGIC_NUMBER) else {}
        if not isinstance(kept, dict) or not all(type(c) is types.CodeType for c in kept.values()):
            kept = {}
    except (OSError, ValueError, EOFError, TypeError):
        kept = {}
    made: dict = {}

    def exec_(source, globals=None, locals=None, /):
        if type(source) is str:
            code = kept.get(source)
            if code is None:
                code = kept[source] = made[source] = builtins.compile(source, "<string>", "exec", dont_inherit=True)
            source = code
        return builtins.exec(source, globals, locals)

    def compile_(source, filename, mode, *args, **kwargs):
        """`typing`'s `compile`: its forward references (`<string>`, eval) kept, anything else as asked."""
        if type(source) is not str or filename != "<string>" or mode != "eval" or args or kwargs:
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = ("eval", source)
        code = kept.get(key)
        if code is None:
            code = kept[key] = made[key] = builtins.compile(source, "<string>", "eval", dont_inherit=True)
        return code

    def keep() -> None:
        if not made or sys.dont_write_bytecode:
            return
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(MAGIC_NUMBER + marshal.dumps(kept if len(kept) <= 8192 else made))
            os.replace(tmp, path)
        except (OSError, ValueError):
            try:
                os.unlink(tmp)
            except OSError:
                pass

    import atexit
    atexit.register(keep)
    dataclasses.exec = exec_  # type: ignore[attr-defined]
    if "compile" not in vars(typing):
        typing.compile = compile_  # type: ignore[attr-defined]


def _cli():
    """`kadmit.cli`, imported with the cyclic garbage collector off, then every object made so far
    frozen (`gc.freeze`: left out of later collections) and the collector on again. The modules a
    command loads make some hundred thousand objects that live as long as the process; collecting
    while they are made, and scanning them again in every later full collection, found nothing to
    free and was 4% of `kadmit why` on the bundled example (107 M of 2,416 M instructions)."""
    _plugins_when_installed()
    _bound_only_modules_on_first_use()
    _compiled_text_kept()
    enabled = gc.isenabled()
    gc.disable()
    try:
        import kadmit.cli as cli
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    return cli


def _exited(run, caller) -> None:
    """Run a command line to its exit, then end the process without Python's finalization when
    that changes nothing but time: tearing down every module and object the command made was 2% of
    `kadmit why` on the bundled example (32 M of 1,493 M instructions, callgrind). Only when the
    process is the command (`caller`, the frame that called the entry point, is the top of the
    `__main__` module: `python -m kadmit` and the installed executables), not when a program runs
    it and expects its `SystemExit`. The exit handlers run (`atexit`: the kept compiled text,
    temporary files' clean-up) and the standard streams are flushed first; with another thread
    still running, an exit code that is not a number, or a stream that cannot be flushed (a closed
    pipe), the process exits as ever."""
    try:
        run()
        code = 0
    except SystemExit as e:
        code = 0 if e.code is None else e.code
    main_module = sys.modules.get("__main__")
    if (type(code) is not int or main_module is None or caller.f_code.co_name != "<module>"
            or caller.f_globals is not vars(main_module)):
        raise SystemExit(code)
    import threading
    if threading.active_count() > 1:
        raise SystemExit(code)
    import atexit
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        raise SystemExit(code) from None
    os._exit(code & 0xFF)


def main() -> None:
    """`kadmit …`"""
    _one_shot()
    _exited(_cli().main, sys._getframe(1))


def kubectl_main() -> None:
    """`kubectl kadmit …`"""
    _one_shot()
    _exited(_cli().kubectl_main, sys._getframe(1))


def _one_shot() -> None:
    """A command line runs one command and ends (`kadmit lsp`, which serves on, says otherwise)."""
    from kadmit.collector import one_shot_process
    one_shot_process()


if __name__ == "__main__":
    main()
