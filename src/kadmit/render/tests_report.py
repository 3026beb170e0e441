"""Policy test results (`kadmit test`) as human text, JSON and JUnit XML."""

from __future__ import annotations

import json
from itertools import groupby

from kadmit.render.excerpt import one_line
from kadmit.render.json_report import diagnostic_dict
from kadmit.render.templating import template


def _by_file(results) -> list[tuple[str, list]]:
    return [(f, list(rs)) for f, rs in groupby(results, key=lambda r: r.case.file)]


def tests_human(outcome) -> str:
    lines = []
    for r in outcome.results:
        c = r.case
        lines.append(one_line(f"{r.status.upper():5} {c.file}:{c.span.line} {c.name}"))
        for f in r.failures:
            lines.append(f"      {c.file}:{f.line}: {f.workload or 'diagnostics'}")
            lines.append(f"        expected: {one_line(f.expected)}")
            lines.append(f"        got:      {one_line(f.got)}")
            if f.why:
                lines.append("        why:")
                lines += [f"          {one_line(w)}" for w in f.why[:8]]
                if len(f.why) > 8:
                    lines.append(f"          … {len(f.why) - 8} more (kadmit why {f.workload} …)")
        for d in r.diagnostics:
            at = f"{d.span.file}:{d.span.line}: " if d.span else ""
            lines.append(f"      {at}{d.code} {one_line(d.message)}")
    counts = {s: sum(1 for r in outcome.results if r.status == s) for s in ("pass", "fail", "error", "unknown")}
    lines.append("")
    undecided = f", {counts['unknown']} undecided (solver limits)" if counts["unknown"] else ""
    lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['error']} could not run{undecided} "
                 f"({len(outcome.results)} tests, {outcome.seconds:.2f} s)")
    return "\n".join(lines) + "\n"


def tests_dict(outcome) -> dict:
    tests = []
    for r in outcome.results:
        tests.append({
            "name": r.case.name, "file": r.case.file, "line": r.case.span.line, "status": r.status,
            "seconds": round(r.seconds, 4),
            "failures": [{"workload": f.workload, "line": f.line, "expected": f.expected, "got": f.got,
                          "why": list(f.why)} for f in r.failures],
            "diagnostics": [{"code": d.code, "message": d.message,
                             "file": d.span.file if d.span else None, "line": d.span.line if d.span else None}
                            for d in r.diagnostics],
        })
    return {"tests": tests,
            "passed": sum(1 for r in outcome.results if r.status == "pass"),
            "failed": sum(1 for r in outcome.results if r.status == "fail"),
            "errors": sum(1 for r in outcome.results if r.status == "error"),
            "undecided": sum(1 for r in outcome.results if r.status == "unknown"),
            # the test files' and policies' own, as `check --format json` writes them (each test's are above)
            "diagnostics": [diagnostic_dict(d) for d in outcome.diagnostics]}


def tests_json(outcome) -> str:
    return json.dumps(tests_dict(outcome), indent=2) + "\n"


def tests_junit(outcome) -> str:
    results = outcome.results
    return template("junit.xml.j2").render(
        files=_by_file(results), total=len(results), seconds=outcome.seconds,
        failures=sum(1 for r in results if r.status == "fail"),
        errors=sum(1 for r in results if r.status in ("error", "unknown")))
