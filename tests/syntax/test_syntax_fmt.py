"""`kadmit fmt`: canonical layout, comments kept, idempotent, meaning unchanged."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from kadmit.diagnostics import Diagnostics
from kadmit.syntax import format_text, parse_text

from .strategies import policy


def fmt(text: str) -> str:
    out, diags = format_text(text, "f.kad")
    assert out is not None, [d.message for d in diags]
    return out


def comments(text: str) -> list[str]:
    return sorted(line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line)


def test_canonical_layout() -> None:
    src = """# head

flavor   h100 { node_labels = { "k" = "v" }  topology = dc }
priority a = 1
priority bbb = 2 default
cluster_queue q { cohort = c  resources cpu, memory { flavor h100 { cpu = 1  memory = 2Gi } } preemption {} }
rule r: require   flavor == h100   and not pod_group.count == 1
cohort org {}
"""
    assert fmt(src) == """# head

flavor h100 {
  node_labels = { "k" = "v" }
  topology    = dc
}

priority a   = 1
priority bbb = 2 default

cluster_queue q {
  cohort = c
  resources cpu, memory {
    flavor h100 { cpu = 1  memory = 2Gi }
  }
  preemption {}
}

require r: flavor == h100 and not (pod_group.count == 1)

cohort org {}
"""


def test_comments_are_kept_in_place() -> None:
    src = """# before flavor
flavor f { # after brace
  # before field
  node_labels = { a = "1", # inside a map
    b = "2" }   # after field
  # before close
} # after close
# at the end
"""
    out = fmt(src)
    assert comments(out) == comments(src)
    assert out == """# before flavor
flavor f {  # after brace
  # before field
  # inside a map
  node_labels = { a = "1", b = "2" }  # after field
  # before close
}  # after close
# at the end
"""


def test_long_values_and_rules_break_across_lines() -> None:
    labels = ", ".join(f'"example.com/label-{i}" = "value-{i}"' for i in range(4))
    out = fmt(f"node n {{ labels = {{ {labels} }} }}\nrequire r: {' and '.join(['pod_group.count > 1'] * 6)}\n")
    assert out.splitlines()[1:4] == ['  labels = {', '    "example.com/label-0" = "value-0"',
                                     '    "example.com/label-1" = "value-1"']
    assert out.splitlines()[-3:] == [
        "require r:",
        "  pod_group.count > 1 and pod_group.count > 1 and pod_group.count > 1 and pod_group.count > 1 and "
        "pod_group.count > 1",
        "    and pod_group.count > 1"]


def test_syntax_errors_give_no_output() -> None:
    out, diags = format_text("flavor f {", "f.kad")
    assert out is None and [d.code for d in diags] == ["KAD101"]


def test_parenthesised_quantifiers_and_precedence_survive() -> None:
    src = "require r: (all g in workload.pod_groups: g.count > 1) or (a or b) and -(1 - 2) * 3 > 0 implies x\n"
    assert fmt(src) == ("require r: (all g in workload.pod_groups: g.count > 1) or (a or b) and -(1 - 2) * 3 > 0 "
                        "implies x\n")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy())
def test_generated_policies_round_trip(text: str) -> None:
    diags = Diagnostics()
    before = parse_text(text, "f.kad", diags)
    assert not diags.has_errors, [f"{d.code} {d.span}: {d.message}" for d in diags]
    out = fmt(text)
    assert parse_text(out, "f.kad", Diagnostics()) == before
    assert comments(out) == comments(text)
    assert fmt(out) == out
