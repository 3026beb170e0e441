"""Issue 22: time to diagnostics after an edit in `kadmit lsp`, on a generated 5,000-line workspace.

Two views of the same work, each against `kadmit check` of the whole workspace measured in the same run:
- in process (CPU time of this process, `time.process_time`): what the server does after a change —
  `kadmit.editor.Project`: the edited file read again (the others' readings kept by their text), merged and
  validated as `check` does — cold (the first snapshot: every file read) and warm (one file edited), for an
  edit of a number, an edit that breaks the syntax (the file goes to Lark's reader), and a change that only
  moves text; beside it, `validate.validate_since` (only the checks the edit reaches) against a full
  validation of the same edited model: what the incremental validator would save, and why the server
  can't use it for diagnostics (it reports only what the edit's checks find, not every diagnostic);
- over the protocol (wall time, so the machine's load shows): a `kadmit lsp` subprocess driven by a real
  client (tests/lsp/lsp_editor.py): start to the first published diagnostics, and didChange to the
  diagnostics of that version, median of the edits.

Also one 5,000-line file alone (every edit re-reads the whole file). Run:
`.venv/bin/python bench/lsp_bench.py` (about a minute), `--quick` for a small workspace.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import check_bench
import gen

from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.editor import Project
from kadmit.validate import Checked, validate, validate_since

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))


def _cpu(f):
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def workspace(queues: int) -> dict[str, str]:
    return gen.kad_files(check_bench.check_state(cluster_queues=queues, cohorts=max(2, queues // 10)))


def _edits(text: str) -> dict[str, str]:
    """The three kinds of edit, each of the file's text."""
    at = text.index("cpu = ") + len("cpu = ")
    end = at + len(text[at:].split()[0])
    number = text[:at] + str(int(text[at:end]) + 1) + text[end:]
    block = text.index("cluster_queue", len(text) // 3)
    broken = text[:block] + "cluster_queue half {\n  cohort = \n" + text[block:]
    moved = "# a comment moves every line\n" + text
    return {"number": number, "syntax error": broken, "lines moved": moved}


def in_process(root: Path, name: str, repeats: int) -> None:
    path = root / name
    text = path.read_text()
    api.check([str(root)])  # the grammar and the readers' tables built once, as a server has them
    base = statistics.median(_cpu(lambda: api.check([str(root)]))[0] for _ in range(repeats))
    cold, project = _cpu(lambda: (lambda p: (p, p.snapshot()))(Project([str(root)])))
    project = project[0]
    print(f"  kadmit check of the workspace (baseline): {base * 1000:7.1f} ms CPU (median of {repeats})")
    print(f"  cold: the first snapshot (every file read): {cold * 1000:7.1f} ms CPU = {cold / base:.2f}x check")
    for kind, edited in _edits(text).items():
        times = []
        for i in range(repeats):
            project.set_text(path, edited if i % 2 == 0 else text)
            times.append(_cpu(project.snapshot)[0])
        warm = statistics.median(times)
        print(f"  warm, {kind:>12}: {warm * 1000:7.1f} ms CPU = {warm / base:.2f}x check "
              f"(median of {repeats}; read again: {len(project.snapshot().read)} file)")
    project.set_text(path, None)
    before = project.snapshot().model
    project.set_text(path, _edits(text)["number"])
    after = project.snapshot().model
    full = statistics.median(_cpu(lambda: validate(after, Diagnostics()))[0] for _ in range(repeats))
    checked = Checked(before)
    _ = checked.places, checked.key_counts
    since = statistics.median(_cpu(lambda: validate_since(checked, after, Diagnostics()))[0] for _ in range(repeats))
    print(f"  validation of a number's edit: full {full * 1000:.1f} ms, validate_since {since * 1000:.1f} ms "
          f"({since / full:.2f}x) — the server runs the full one: it publishes every diagnostic")
    project.set_text(path, None)


def over_the_protocol(root: Path, name: str, repeats: int) -> None:
    from lsp_editor import Editor

    t = time.perf_counter()
    ed = Editor(root, cwd=root.parent)
    path = root / name
    text = path.read_text()
    uri = ed.open(path)
    ed.diagnostics(uri, ed.versions[uri])
    print(f"  cold: start, initialize, open -> first diagnostics: {time.perf_counter() - t:6.2f} s wall")
    for kind, edited in _edits(text).items():
        times = []
        for i in range(repeats):
            t = time.perf_counter()
            version = ed.change(uri, edited if i % 2 == 0 else text)
            ed.diagnostics(uri, version)
            times.append(time.perf_counter() - t)
        print(f"  warm, {kind:>12}: didChange -> diagnostics {statistics.median(times) * 1000:7.1f} ms wall "
              f"(median of {repeats}, max {max(times) * 1000:.0f} ms)")
    assert ed.errors() == []
    ed.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    queues, repeats = (40, 3) if args.quick else (340, 7)
    files = workspace(queues)
    with tempfile.TemporaryDirectory(prefix="kadmit-lsp-bench-") as tmp:
        root = Path(tmp) / "ws"
        gen.write_files(files, root)
        name = max((n for n in files if n.startswith("queues/")), key=lambda n: len(files[n]))
        print(f"workspace: {gen.count_lines(files):,} lines in {len(files)} files; edits in {name} "
              f"({files[name].count(chr(10))} lines)")
        in_process(root, name, repeats)
        over_the_protocol(root, name, repeats)
        one = Path(tmp) / "one"
        one.mkdir()
        (one / "all.kad").write_text("".join(files[n] for n in sorted(files)))
        shutil.rmtree(root)
        print(f"one file of {(one / 'all.kad').read_text().count(chr(10)):,} lines:")
        in_process(one, "all.kad", repeats)
        over_the_protocol(one, "all.kad", repeats)


if __name__ == "__main__":
    main()
