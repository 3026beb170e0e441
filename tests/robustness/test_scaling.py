"""Checks and decisions cost in proportion to the input: each hostile shape at n and 10n, with the
work (function calls, `opcount`) held well under what a quadratic walk would take (100x). Work is
counted, not timed, so a busy machine can't fail these; bench/hostile_bench.py prints the times."""

from __future__ import annotations

from pathlib import Path

from opcount import calls

from kadmit import api
from kadmit.render import render
from kadmit.render.human import SHOWN_PER_CODE, render_one

from . import hostile

LINEAR_RATIO = 20  # 10x the input: ~10x the calls for linear work (~13x for n log n), ~100x for quadratic


def _ratio(make, run, n: int, tmp_path: Path) -> tuple[int, int]:
    small, large = tmp_path / "small", tmp_path / "large"
    make(small, n)
    make(large, 10 * n)
    run(small)  # imports and caches warm up on the small input
    return calls(lambda: run(small)), calls(lambda: run(large))


def _chain(folder: Path, depth: int) -> None:
    hostile.write(folder, "chain.json", hostile.cohort_chain(depth))


def test_a_deep_cohort_chain_is_checked_decided_and_explained_in_linear_time(tmp_path: Path) -> None:
    def run(folder: Path) -> None:
        paths = [str(folder)]
        assert api.check(paths).exit_code == 0
        admitted = api.admit(paths)
        assert admitted.exit_code == 0 and admitted.result is not None
        why = api.why("t/big", paths)
        assert why.exit_code == 1 and why.result is not None and not why.result.admitted

    small, large = _ratio(_chain, run, 100, tmp_path)
    assert large < LINEAR_RATIO * small, (small, large)


def test_a_cohort_chain_deeper_than_pythons_recursion_limit_is_decided(tmp_path: Path) -> None:
    _chain(tmp_path, 3000)
    got = api.admit([str(tmp_path)])
    decided = {d.key: d.admitted for d in got.result.decisions}
    assert decided == {"t/big": False, "t/mid": True}


def _checked_and_rendered(folder: Path) -> str:
    """Every diagnostic's block (the human report itself shows the first few of a code)."""
    got = api.check([str(folder)])
    return "\n".join(render_one(d, got.sources) for d in got.diagnostics)


def _one_line_flavors(folder: Path, n: int) -> None:
    hostile.write(folder, "flavors.json", [hostile.flavor(f"unused-{i}") for i in range(n)], one_line=True)


def test_diagnostics_on_one_long_line_cost_what_they_show(tmp_path: Path) -> None:
    """A one-line JSON List of unused flavors: one warning per flavor, each excerpt cut to a window,
    so 10x the flavors (and a 10x longer line) costs about 10x, not 100x."""
    small, large = tmp_path / "small", tmp_path / "large"
    _one_line_flavors(small, 150)
    _one_line_flavors(large, 1500)
    _checked_and_rendered(small)
    n_small = calls(lambda: _checked_and_rendered(small))
    texts: list[str] = []
    n_large = calls(lambda: texts.append(_checked_and_rendered(large)))
    assert n_large < LINEAR_RATIO * n_small, (n_small, n_large)
    text = texts[0]
    assert text.count("KAD270") == 1500
    assert max(len(line) for line in text.splitlines()) < 200
    got = api.check([str(large)])
    report = render(got.diagnostics, got.sources, "human")
    assert report.count("warning[KAD270]") == SHOWN_PER_CODE + 1
    assert f"warning[KAD270]: {1500 - SHOWN_PER_CODE:,} more (unused flavor) not shown" in report
    assert report.endswith("warning: 1500 warnings found\n")


def _kad_pod_groups(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["flavor f {}", "cluster_queue q {", "  namespaces = { team = \"t\" }", "  resources cpu {",
             "    flavor f { cpu = 8 }", "  }", "}", "workload t/w {", "  queue = lq",
             '  created = "2026-11-20T08:10:00Z"']
    for i in range(n):
        lines += [f"  pod_group ps{i} {{", "    count = 1", "    requests = { cpu = 1 }", "  }"]
    (folder / "w.kad").write_text("\n".join(lines + ["}"]) + "\n")


def test_a_workload_with_thousands_of_pod_groups_is_rejected_in_linear_time(tmp_path: Path) -> None:
    def run(folder: Path) -> None:
        codes = {d.code for d in api.check([str(folder)]).diagnostics}
        assert "KAD253" in codes  # more pod sets than Kueue accepts

    small, large = _ratio(_kad_pod_groups, run, 300, tmp_path)  # quadratic: 3,000 took ~11 s
    assert large < LINEAR_RATIO * small, (small, large)


def test_a_long_import_chain_closing_a_cycle_is_read_without_recursion(tmp_path: Path) -> None:
    n = 1200
    for i in range(n):
        (tmp_path / f"f{i}.kad").write_text(f'import "f{(i + 1) % n}.kad"\nflavor fl{i} {{}}\n')
    got = api.check([str(tmp_path / "f0.kad")]).diagnostics
    cycles = [d for d in got if "import cycle" in d.message]
    assert len(cycles) == 1 and f"… {n + 1 - 11} more …" in cycles[0].message
    assert cycles[0].message.count("→") == 11  # 11 files and the gap, not 1,200 names
