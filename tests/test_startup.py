"""Start-up: a command loads only the modules its question uses. Checked on `sys.modules` of a fresh
interpreter (not a timing): `import kadmit.cli` loads no solver, parser, template engine, simulator or
terminal library, and `check`, `admit` and `why` on Kueue manifests load only what they use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"

# never loaded by `import kadmit.cli`: each is only for some verbs, inputs or outputs
HEAVY = ("z3", "ortools", "ray", "rich", "jinja2", "lark", "yaml", "kadmit.simulate", "kadmit.syntax",
         "kadmit.manifests", "kadmit.validate", "kadmit.review", "kadmit.export", "kadmit.placement",
         "kadmit.engine.admission", "kadmit.engine.explain", "kadmit.engine.optimal", "kadmit.engine.analysis",
         "kadmit.render.decisions", "kadmit.render.simulation", "kadmit.render.report",
         # other verbs' API modules and other output formats, loaded when asked for
         "kadmit.api.convert", "kadmit.api.review", "kadmit.api.simulation", "kadmit.render.sarif",
         "kadmit.render.github", "kadmit.render.json_report", "kadmit.live")
# loaded by no verb on an input without these: job kinds read on their first object, a cluster
# snapshot's reader on a snapshot
NOT_IN_EXAMPLE = ("kadmit.manifests.jobs.trainjob", "kadmit.manifests.jobs.appwrapper", "kadmit.manifests.jobs.apps",
                  "kadmit.manifests.jobs.disaggregated", "kadmit.live", "kadmit.api.convert", "kadmit.api.review",
                  "kadmit.api.simulation", "kadmit.render.sarif", "kadmit.render.github")

_RUN = """
import json, sys
from kadmit.cli import cli
try:
    cli(sys.argv[2:], prog_name="kadmit")
except SystemExit:
    pass
with open(sys.argv[1], "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""


_RAN: dict[tuple[str, ...], set[str]] = {}  # the same command's modules, asked by several tests (`check` and `why` on
# examples/ml-platform): one process each


def _loaded(tmp_path: Path, *args: str) -> set[str]:
    if args in _RAN:
        return set(_RAN[args])
    out = tmp_path / "modules.json"
    code = "import json, sys\nimport kadmit.cli\njson.dump(sorted(sys.modules), open(sys.argv[1], 'w'))" \
        if not args else _RUN
    subprocess.run([sys.executable, "-c", code, str(out), *args], cwd=ROOT, check=True, capture_output=True,
                   env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    _RAN[args] = set(json.loads(out.read_text()))
    return set(_RAN[args])


def _under(modules: set[str], names) -> list[str]:
    return sorted(m for m in modules for n in names if m == n or m.startswith(n + "."))


def test_importing_the_cli_loads_nothing_heavy(tmp_path: Path) -> None:
    assert _under(_loaded(tmp_path), HEAVY) == []


@pytest.mark.parametrize("verb, args, unused", [
    ("check", [str(EXAMPLE)], ("z3", "ortools", "ray", "rich", "jinja2", "lark", "kadmit.syntax", "kadmit.engine.admission",
                               "kadmit.engine.explain", "kadmit.engine.optimal", "kadmit.simulate", "kadmit.review")),
    ("admit", [str(EXAMPLE)], ("ortools", "ray", "rich", "jinja2", "lark", "kadmit.syntax", "kadmit.simulate",
                               "kadmit.review", "kadmit.engine.analysis", "kadmit.engine.optimal.solve",
                               "kadmit.engine.optimal.model", "kadmit.engine.explain.cores",
                               "kadmit.engine.explain.fixes", "kadmit.engine.explain.placement",
                               "kadmit.engine.explain.prove", "kadmit.engine.explain.proposals",
                               "kadmit.engine.explain.part")),
    ("why", ["team-infra/gpu-smoke", str(EXAMPLE), "--format", "json"],
     ("ortools", "ray", "rich", "jinja2", "lark", "kadmit.syntax", "kadmit.simulate", "kadmit.review",
      "kadmit.engine.analysis")),
], ids=["check", "admit", "why"])
def test_a_verb_on_manifests_loads_only_what_it_uses(tmp_path: Path, verb: str, args: list[str], unused) -> None:
    assert _under(_loaded(tmp_path, verb, *args), unused + NOT_IN_EXAMPLE) == []


def test_other_formats_and_kinds_are_loaded_when_asked_for(tmp_path: Path) -> None:
    """What start-up leaves out is still there when the input or the options ask for it."""
    job = tmp_path / "train.yaml"
    job.write_text("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
                   "metadata: {name: t, namespace: default}\nspec: {runtimeRef: {name: torch}}\n")
    loaded = _loaded(tmp_path, "check", str(job), "--format", "sarif")
    assert {"kadmit.manifests.jobs.trainjob", "kadmit.render.sarif"} <= loaded


@pytest.mark.parametrize("verb, args", [
    ("check", [str(ROOT / "examples" / "ml-platform")]),
    ("why", ["team-infra/gpu-smoke", str(ROOT / "examples" / "ml-platform"), "--format", "json"]),
], ids=["check", "why"])
def test_a_clean_kad_policy_is_read_without_lark(tmp_path: Path, verb: str, args: list[str]) -> None:
    """The fast reader reads a clean `.kad` file for its objects; its comments (Lark tokens) are not
    asked for, so Lark is not imported."""
    loaded = _loaded(tmp_path, verb, *args)
    assert "kadmit.syntax.descent" in loaded
    assert _under(loaded, ("lark", "kadmit.syntax.recover", "kadmit.syntax.windows", "kadmit.syntax.grammar")) == []


def test_lark_reads_what_the_fast_reader_gives_up_on(tmp_path: Path) -> None:
    """A file the fast reader is not sure of (a syntax error) is read by Lark, imported then."""
    bad = tmp_path / "bad.kad"
    bad.write_text("flavor a {\n  node_labels = {\n}\n")
    loaded = _loaded(tmp_path, "check", str(bad))
    assert {"lark", "kadmit.syntax.windows", "kadmit.syntax.recover"} <= loaded


_MAIN = """
import json, runpy, sys
out = sys.argv[1]
sys.argv = ["kadmit", *sys.argv[2:]]
try:
    runpy.run_module("kadmit", run_name="__main__")
except SystemExit:
    pass
with open(out, "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""


def _main(tmp_path: Path, *args: str, path: str = "") -> tuple[set[str], str]:
    """Modules loaded and output of `python -m kadmit ARGS` (the entry points' way in); a command asked again
    (`check` on the example, by two tests) is not run again."""
    if (path, *args) not in _MAINS:
        out = tmp_path / "modules.json"
        got = subprocess.run([sys.executable, "-c", _MAIN, str(out), *args], cwd=ROOT, capture_output=True,
                             text=True, env={"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "src"), path) if p),
                                             "PATH": "/usr/bin:/bin"})
        _MAINS[(path, *args)] = set(json.loads(out.read_text())), got.stdout
    modules, stdout = _MAINS[(path, *args)]
    return set(modules), stdout


_MAINS: dict[tuple[str, ...], tuple[set[str], str]] = {}


def test_the_command_line_does_not_read_package_metadata_without_pydantic_plugins(tmp_path: Path) -> None:
    """pydantic's plugin loader imports `importlib.metadata` (email, zipfile, csv); with no pydantic
    plugin installed, kadmit's entry point answers for it (`kadmit.__main__`), so it is not imported
    (zipfile is: `importlib.resources` reads kadmit's data with it)."""
    loaded, out = _main(tmp_path, "check", str(EXAMPLE))
    assert "no problems" in out
    assert _under(loaded, ("importlib.metadata", "email", "csv")) == []


def test_an_installed_pydantic_plugin_is_still_loaded(tmp_path: Path) -> None:
    """With a distribution declaring a `pydantic` entry point on the path, pydantic's own loader
    runs and loads it, as without kadmit's stand-in."""
    site = tmp_path / "site"
    info = site / "fakeplug-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nfake = fakeplug:plugin\n")
    marker = tmp_path / "plugin-called"
    (site / "fakeplug.py").write_text(
        "class _Plugin:\n"
        "    def new_schema_validator(self, *args, **kwargs):\n"
        f"        open({str(marker)!r}, 'w').close()\n"
        "        return None, None, None\n"
        "plugin = _Plugin()\n")
    loaded, out = _main(tmp_path, "check", str(EXAMPLE), path=str(site))
    assert "no problems" in out
    assert "fakeplug" in loaded and "importlib.metadata" in loaded
    assert marker.exists()


_COUNTED = """
import builtins, json, runpy, sys
out = sys.argv[1]
sys.argv = ["kadmit", *sys.argv[2:]]
compiled = []
real = builtins.compile
builtins.compile = lambda source, f, mode, *a, **k: (compiled.append((source, mode)), real(source, f, mode, *a, **k))[1]
try:
    runpy.run_module("kadmit", run_name="__main__")
except SystemExit:
    pass
builtins.compile = real
with open(out, "w") as fh:
    json.dump([sum(1 for s, mode in compiled if isinstance(s, str) and s.startswith("def __create_fn__(")),
               sum(1 for s, mode in compiled if mode == "eval")], fh)
"""


def _counted(tmp_path: Path, *args: str, write: bool = True) -> tuple[list[int], str]:
    """How many dataclass methods and annotations' forward references (eval) `python -m kadmit ARGS`
    compiles from source, and its output; bytecode (and the kept code) under tmp_path/pyc."""
    out = tmp_path / "count.json"
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    got = subprocess.run([sys.executable, "-c", _COUNTED, str(out), *args], cwd=ROOT, capture_output=True, text=True,
                         env=env)
    assert got.stderr == ""
    return json.loads(out.read_text()), got.stdout


def test_dataclass_methods_and_forward_references_are_compiled_once_and_kept(tmp_path: Path) -> None:
    """The methods `dataclasses` writes and the forward references `typing` compiles (pydantic_core's
    TypedDicts) are compiled in the first run and kept beside the bytecode (`kadmit.__main__`); the
    next run compiles none and prints the same; a damaged file is read as none and written again;
    without bytecode writing nothing is kept."""
    args = ("why", "team-infra/gpu-smoke", str(ROOT / "examples" / "ml-platform"))
    first, out = _counted(tmp_path, *args, write=False)
    assert first[0] > 100 and first[1] > 100 and "KAD501" in out
    assert list(tmp_path.rglob("compiled-text.*")) == []
    assert _counted(tmp_path, *args) == (first, out)
    [kept] = tmp_path.rglob("compiled-text.*")
    assert _counted(tmp_path, *args) == ([0, 0], out)
    kept.write_bytes(kept.read_bytes()[:100])
    assert _counted(tmp_path, *args) == (first, out)
    assert _counted(tmp_path, *args) == ([0, 0], out)


_YAML = """
import re, sys
real = re.compile
from kadmit.pyyaml import yaml, DeferredPattern
import yaml.reader, yaml.resolver
assert re.compile is real
assert isinstance(yaml.reader.Reader.NON_PRINTABLE, DeferredPattern)
kinds = {type(p) for ps in yaml.resolver.Resolver.yaml_implicit_resolvers.values() for _, p in ps}
assert kinds == {DeferredPattern}, kinds
compiled = sorted({p.pattern for ps in yaml.resolver.Resolver.yaml_implicit_resolvers.values() for _, p in ps})
print(repr(compiled))
for text in ("1", "0x1f", "1.5e+3", ".inf", "true", "No", "~", "null", "2001-12-14t21:59:43.10-05:00", "<<", "=", "abc", "-", "+1_000"):
    print(text, yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False)))
print(yaml.safe_load("a: [1, 2.5, true, ~, 2001-12-14]\\nb: {c: d}\\n"))
print(yaml.load("a: 1\\n", Loader=yaml.SafeLoader))
try:
    yaml.load("a: \\x07\\n", Loader=yaml.SafeLoader)
except yaml.reader.ReaderError as e:
    print("refused", e.character)
"""


def test_pyyaml_patterns_compiled_when_used_give_the_same_answers(tmp_path: Path) -> None:
    """`kadmit.pyyaml` imports PyYAML with the patterns its modules compile at import deferred
    (`re.compile` itself is left as it was): resolving plain scalars, loading with libyaml's and the
    pure-Python reader (its non-printable check) answer as PyYAML imported the ordinary way does."""
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    deferred = subprocess.run([sys.executable, "-c", _YAML], cwd=ROOT, capture_output=True, text=True, env=env)
    assert deferred.returncode == 0, deferred.stderr
    plain = _YAML.replace("from kadmit.pyyaml import yaml, DeferredPattern", "import yaml\nDeferredPattern = re.Pattern")
    ordinary = subprocess.run([sys.executable, "-c", plain], cwd=ROOT, capture_output=True, text=True, env=env)
    assert ordinary.returncode == 0, ordinary.stderr
    assert deferred.stdout == ordinary.stdout
    assert deferred.stdout.endswith("{'a': 1}\nrefused 7\n")  # the pure-Python reader's non-printable check ran



_SCRIPT = """
import os
import sys

real_exit = os._exit


def _exit(code):
    os.write(2, b"ended without finalization\\n")
    real_exit(code)


os._exit = _exit
from kadmit.__main__ import main
sys.exit(main())
"""


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory) -> Path:
    """A bytecode folder (PYTHONPYCACHEPREFIX) the cases below share: kadmit is compiled from source once,
    not once per case (about 0.5 s of CPU each)."""
    return tmp_path_factory.mktemp("pyc")


@pytest.mark.parametrize("args, code", [
    (["check", str(EXAMPLE)], 0),
    (["why", "team-infra/gpu-smoke", str(EXAMPLE)], 1),
    (["admit", "no-such-folder"], 2),
], ids=["check", "why", "bad-input"])
def test_the_command_line_ends_without_finalization(tmp_path: Path, bytecode: Path, args: list[str],
                                                    code: int) -> None:
    """Run as the process (an installed executable's script), the command line ends without Python's
    finalization (`os._exit`) after the exit handlers (the kept compiled text is written: an earlier
    case's is removed first), with the same output and exit code as under a program that runs it and
    catches its `SystemExit` (which still gets it, and goes on)."""
    script = tmp_path / "kadmit-script.py"
    script.write_text(_SCRIPT)
    for kept in bytecode.rglob("compiled-text.*"):
        kept.unlink()
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "PYTHONPYCACHEPREFIX": str(bytecode)}
    ran = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, capture_output=True, text=True, env=env)
    assert ran.returncode == code
    assert ran.stderr.endswith("ended without finalization\n")
    assert list(bytecode.rglob("compiled-text.*"))
    caught = subprocess.run([sys.executable, "-c", _MAIN, str(tmp_path / "m.json"), *args], cwd=ROOT,
                            capture_output=True, text=True, env=env)
    assert caught.returncode == 0 and json.loads((tmp_path / "m.json").read_text())
    assert (ran.stdout, ran.stderr.replace("ended without finalization\n", "")) == (caught.stdout, caught.stderr)


def test_modules_the_libraries_only_bind_are_not_run(tmp_path: Path) -> None:
    """`secrets` (pydantic's, with hmac and OpenSSL's hashing) and `bz2`/`lzma` (shutil's probe) are
    only bound by the libraries on the way in: run as the command line, `check` and `why` do not
    execute them (`kadmit.__main__`'s stand-ins stay in their place)."""
    for args in (("check", str(EXAMPLE)), ("why", "team-infra/gpu-smoke", str(ROOT / "examples" / "ml-platform"))):
        loaded, out = _main(tmp_path, *args)
        assert out
        assert {"secrets", "bz2", "lzma"} <= loaded
        assert _under(loaded, ("hmac", "_bz2", "_lzma")) == []


_BOUND = """
import sys
STAND_IN
import shutil
from pydantic import BaseModel, SecretStr
class M(BaseModel):
    s: SecretStr
print(M(s="a").s == M(s="a").s, M(s="a").s == M(s="b").s)  # pydantic's `secrets.compare_digest`
import secrets
print(type(secrets).__name__, len(secrets.token_hex(4)), "compare_digest" in dir(secrets), bool(secrets.__doc__))
from secrets import token_bytes
print(len(token_bytes(3)), sys.modules["secrets"] is secrets or type(secrets).__name__)
print(sorted(name for name, _ in shutil.get_archive_formats()))
import bz2, lzma
print(bz2.decompress(bz2.compress(b"kadmit")), lzma.decompress(lzma.compress(b"kadmit")))
base = shutil.make_archive(sys.argv[1] + "/a", "xztar", sys.argv[1], "in")
import tarfile
with tarfile.open(base) as t:
    print(t.getnames())
"""


def test_a_module_stood_in_for_answers_as_itself_when_used(tmp_path: Path) -> None:
    """Used, a module `kadmit.__main__` stands in for is imported and answers as it does in a
    process without the stand-ins: pydantic compares secrets with it, `from secrets import x`, shutil
    offers the same archive formats and writes xz archives, bz2 and lzma compress."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "f.txt").write_text("x")
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    outputs = []
    for stand_in in ("import kadmit.__main__ as m\nm._bound_only_modules_on_first_use()\n"
                     "assert type(sys.modules['secrets']).__name__ == '_OnFirstUse' and 'hmac' not in sys.modules", ""):
        ran = subprocess.run([sys.executable, "-c", _BOUND.replace("STAND_IN", stand_in), str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, env=env)
        assert ran.returncode == 0, ran.stderr
        outputs.append(ran.stdout.replace("_OnFirstUse", "module"))
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith("True False\nmodule 8 True True\n3 True\n")


@pytest.mark.parametrize("verb, args", [
    ("check", [str(ROOT / "examples" / "ml-platform")]),
    ("admit", [str(ROOT / "examples" / "ml-platform")]),
    ("why", ["team-infra/gpu-smoke", str(ROOT / "examples" / "ml-platform"), "--format", "json"]),
], ids=["check", "admit", "why"])
def test_a_kad_policy_is_read_without_the_manifest_reader(tmp_path: Path, verb: str, args: list[str]) -> None:
    """On `.kad` input a command turns no jobs into workloads and reads no manifest: the modules of
    `kadmit.manifests` it uses (`jobs.manage`, `resources`) come without the reader, its kinds'
    modules and PyYAML (the package's and `jobs`'s names are imported when asked for)."""
    loaded = _loaded(tmp_path, verb, *args)
    assert {"kadmit.manifests.jobs.manage", "kadmit.manifests.resources"} <= loaded
    assert _under(loaded, ("yaml", "kadmit.pyyaml", "kadmit.manifests.reader", "kadmit.manifests.jobs.kinds",
                           "kadmit.manifests.documents", "kadmit.manifests.schema", "kadmit.manifests.fields")) == []


_SCHEMA = """
import sys
FIRST
from kadmit.manifests import schema
keys = [("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime"), ("scheduling.x-k8s.io", "v1alpha1", "PodGroup"),
        ("jobset.x-k8s.io", "v1alpha2", "JobSet"), ("batch", "v1", "Job"), ("example.com", "v1", "Nothing")]
print([(schema.schema_for(*k) is not None, schema.source_of(*k), schema.versions_of(k[0], k[2])) for k in keys])
"""


def test_schema_lookups_answer_alike_whichever_module_comes_first(tmp_path: Path) -> None:
    """The kinds the job and gang modules register are known to `schema`'s lookups whether the
    manifest reader was imported first or `schema` alone (as before, when the package's `__init__`
    imported every module)."""
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    got = [subprocess.run([sys.executable, "-c", _SCHEMA.replace("FIRST", first)], cwd=ROOT, capture_output=True,
                          text=True, env=env) for first in ("from kadmit.manifests import read_manifest_text", "")]
    assert [g.returncode for g in got] == [0, 0], [g.stderr for g in got]
    assert got[0].stdout == got[1].stdout
    assert got[0].stdout.startswith("[(True, 'kubeflow/trainer@v2.2.0 manifests/base/crds', ['v1alpha1']), "
                                    "(True, 'kubernetes-sigs/scheduler-plugins")
