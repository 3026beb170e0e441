"""The import rules of docs/ARCHITECTURE.md, read from the source with `ast`: no import cycle (deferred
and TYPE_CHECKING imports count), imports only towards earlier stages, third-party solvers, parser
and templates each in their one stage, and no module over 600 lines."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 600

# Import order: a module may import from its own group and from earlier groups only. The model's
# types come before the front ends that build them (parse -> model is the data flow, not imports).
STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("kadmit.source", "kadmit.diagnostics", "kadmit.budget", "kadmit.collector", "kadmit.quantity", "kadmit.durations", "kadmit.atomic", "kadmit.pyyaml",
              "kadmit.edits", "kadmit.kueuekeys", "kadmit.kueuelabels", "kadmit.kueueversion")),
    ("model", ("kadmit.featuregates", "kadmit.modelbase", "kadmit.modelscheduling", "kadmit.modelconfig", "kadmit.modelrules", "kadmit.modelchecks", "kadmit.podresources", "kadmit.modeldra", "kadmit.model", "kadmit.index", "kadmit.identity", "kadmit.effective")),
    ("parse", ("kadmit.syntax", "kadmit.manifests")),
    ("live", ("kadmit.live",)),  # reading a cluster through kubectl: a snapshot text for the manifest front end
    ("validate", ("kadmit.validate",)),
    ("export", ("kadmit.export",)),  # the model as the objects a cluster runs; rules as admission policies
    ("load", ("kadmit.workspace", "kadmit.edited", "kadmit.scope", "kadmit.symbols")),
    ("facts", ("kadmit.placement",)),  # nodes and kube-scheduler, no solver
    ("oracle", ("kadmit.reference",)),  # tests and benchmarks only: nothing in src imports it
    ("compile: solver layer", ("kadmit.engine", "kadmit.engine.solver")),
    ("compile: quota tree", ("kadmit.engine.quota",)),
    ("compile", ("kadmit.engine.compile",)),
    ("solve: placement", ("kadmit.engine.placing",)),
    ("solve: preemption", ("kadmit.engine.preemption",)),
    ("solve: admission", ("kadmit.engine.admission",)),
    ("solve: result", ("kadmit.engine.result",)),
    ("solve: optimal", ("kadmit.engine.optimal",)),
    ("explain", ("kadmit.engine.explain", "kadmit.engine.decide")),
    ("analysis", ("kadmit.engine.analysis",)),  # symbolic analyses over the whole policy (check --deep, diff)
    ("simulate", ("kadmit.simulate",)),  # replays arrivals over the engine's decisions
    ("review", ("kadmit.review",)),  # policy tests and diffs over the engine's decisions and analyses
    ("render", ("kadmit.render",)),
    ("api", ("kadmit.api", "kadmit.editor")),  # the API for editors beside the CLI's
    ("cli", ("kadmit.cli", "kadmit.cli_cluster", "kadmit.cli_options", "kadmit.cli_decide", "kadmit.__main__", "kadmit.lsp")),  # front ends: the command line, the language server
]
ONLY = {"lark": "kadmit.syntax", "z3": "kadmit.engine", "ortools": "kadmit.engine", "jinja2": "kadmit.render",
        "pygls": "kadmit.lsp", "lsprotocol": "kadmit.lsp",
        "rich": "kadmit.render"}  # rich draws progress and tables; the engine only reports (`engine.progress`)


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "kadmit").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


@cache
def _imports(name: str) -> tuple[tuple[str, int], ...]:
    """Every module `name` imports, wherever the import statement is (functions, TYPE_CHECKING); each
    file is parsed once per session (the tests below read the same graph)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:
                sub = f"{module}.{a.name}"
                out.append((sub if sub in MODULES else module, node.lineno))
    return tuple(out)


@cache
def _graph() -> dict[str, list[str]]:
    """Each module's imports of kadmit's modules (made when a test asks: not at collection, which every
    pytest-xdist worker does)."""
    return {m: sorted({i for i, _ in _imports(m) if i in MODULES and i != m}) for m in MODULES}


def _rank(module: str) -> tuple[int, str]:
    if module == "kadmit":
        return 0, "base"
    best = (-1, "", "")
    for rank, (stage, prefixes) in enumerate(STAGES):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best[2]):
                best = (rank, stage, p)
    assert best[0] >= 0, f"{module} belongs to no stage of docs/ARCHITECTURE.md: add it to STAGES"
    return best[0], best[1]


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_imports_go_to_earlier_stages_only() -> None:
    wrong = []
    for m in sorted(MODULES):
        r, stage = _rank(m)
        for dep, line in _imports(m):
            if dep in MODULES and dep != m:
                dr, dstage = _rank(dep)
                if dr > r:
                    wrong.append(f"{MODULES[m].relative_to(SRC)}:{line}: {m} ({stage}) imports {dep} ({dstage})")
    assert wrong == []


def test_nothing_in_the_product_imports_the_reference() -> None:
    users = [m for m in MODULES if not m.startswith("kadmit.reference")
             and any(d.startswith("kadmit.reference") for d in _graph()[m])]
    assert users == []


@pytest.mark.parametrize("package", sorted(ONLY))
def test_third_party_import_stays_in_its_stage(package: str) -> None:
    owner = ONLY[package]
    wrong = [f"{m}:{line}" for m in sorted(MODULES) for dep, line in _imports(m)
             if dep.split(".")[0] == package and not (m == owner or m.startswith(owner + "."))]
    assert wrong == []


def test_no_module_over_600_lines() -> None:
    big = {str(p.relative_to(SRC)): n for p in MODULES.values()
           if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert big == {}
