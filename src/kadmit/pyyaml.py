"""PyYAML, imported with the regular expressions its modules compile at import left to be compiled
when first used: `yaml.reader`'s pattern of non-printable characters (used only by the pure-Python
reader, which libyaml's parser replaces) cost 58 M of the 1,570 M instructions of `kadmit why` on
the bundled example (callgrind), the implicit resolvers' ten patterns 10 M more, of which a read
uses those of the first characters its plain scalars start with.

`import yaml` after this module gives the same module; importing `yaml` first (before kadmit) only
forgoes the saving."""

import re
import sys

_compile = re.compile


class DeferredPattern:
    """A regular expression compiled on the first use of any of its attributes (`match`, `search`,
    `pattern`...); each attribute asked for is then kept on the instance, so later calls reach the
    compiled pattern's bound method directly. What PyYAML asks of its patterns is attributes only."""

    def __init__(self, pattern, flags=0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_args":
            raise AttributeError(name)
        value = getattr(_compile(*self._args), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return repr(_compile(*self._args))


def _deferred_in_yaml(pattern, flags=0):
    """`re.compile` while PyYAML is imported: a call from one of PyYAML's own modules is deferred."""
    if sys._getframe(1).f_globals.get("__name__", "").partition(".")[0] == "yaml":
        return DeferredPattern(pattern, flags)
    return _compile(pattern, flags)


def _import():
    if "yaml" in sys.modules:
        return sys.modules["yaml"]
    re.compile = _deferred_in_yaml
    try:
        import yaml
    finally:
        re.compile = _compile
    return yaml


yaml = _import()
