"""`why`'s blame points at the field that matters, where `check` points for the same mistake: a
missing flavor at its name in the queue, a queue without a namespace selector at its name, a
namespace's labels at the label the selector reads, a flavor without quota for a resource at it."""

from __future__ import annotations

import shutil
from pathlib import Path

from kadmit import api

ROOT = Path(__file__).parents[2]
KUEUE = ROOT / "examples" / "ml-platform-kueue"
KAD = ROOT / "examples" / "ml-platform"
SPOT = "      - name: spot-cpu\n        resources:\n        - borrowingLimit: \"32\""


def _copy(tmp: Path, src: Path, drop: tuple[str, ...] = ()) -> Path:
    out = tmp / src.name
    shutil.copytree(src, out, ignore=shutil.ignore_patterns(*drop))
    return out


def _where(span) -> tuple[str, int, int]:
    return (Path(span.file).name, span.line, span.column)


def _blame(key: str, folder: Path) -> dict[str, tuple[str, int, int]]:
    out = api.why(key, [str(folder)])
    assert out.result is not None and not out.result.admitted
    return {o.kind: _where(o.span) for o in out.result.blame}


def test_a_missing_flavor_is_blamed_at_its_name_as_check_reports_it(tmp_path: Path) -> None:
    folder = _copy(tmp_path, KUEUE, ("workloads-team-infra.yaml",))  # the admitted one would be an error
    cqs = folder / "cluster-queues.yaml"
    assert SPOT in cqs.read_text()
    cqs.write_text(cqs.read_text().replace(SPOT, SPOT.replace("spot-cpu", "spot-cpux")))
    [d] = [d for d in api.check([str(folder)]).diagnostics if d.code == "KAD200"]
    assert _blame("team-infra/log-compaction", folder)["flavor_missing"] == _where(d.span)


def test_a_queue_without_a_namespace_selector_is_blamed_at_its_name_as_check_reports_it(tmp_path: Path) -> None:
    folder = _copy(tmp_path, KUEUE)
    cqs = folder / "cluster-queues.yaml"
    text = cqs.read_text()
    selector = "    namespaceSelector:\n      matchLabels:\n        team: infra\n"
    assert selector in text
    cqs.write_text(text.replace(selector, ""))
    [d] = [d for d in api.check([str(folder)]).diagnostics if d.code == "KAD272"]
    assert _blame("team-infra/log-compaction", folder)["namespace_selector"] == _where(d.span)


def test_a_namespace_is_blamed_at_the_label_the_selector_reads(tmp_path: Path) -> None:
    folder = _copy(tmp_path, KAD)
    policy = folder / "policy.kad"
    text = policy.read_text()
    assert 'namespaces = { team = "infra" }' in text
    policy.write_text(text.replace('namespaces = { team = "infra" }', 'namespaces = { team = "infrastructure" }'))
    lines = policy.read_text().splitlines()
    at = next(i for i, line in enumerate(lines, 1) if line.startswith("namespace team-infra"))
    label = next(i for i in range(at, at + 3) if 'team = "infra"' in lines[i - 1])
    got = _blame("team-infra/log-compaction", folder)["namespace_labels"]
    assert got == ("policy.kad", label, lines[label - 1].index('"infra"') + 1)
