"""Required node affinity Kueue cannot parse, without topology-aware scheduling (the oracle decides the cases:
tests/oracle/features/node-affinity-match-expressions-unparsable-flavor-search.yaml): Kueue's flavor assigner
keeps each term's expressions on the resource group's label keys and, where no kept term matches a flavor and one
does not parse, fails the pod set at that flavor. `why` says so, not that the workload fits on its own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.model import NodeSelectorTerm, Requirement
from kadmit.modelscheduling import flavor_affinity

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / \
    "node-affinity-match-expressions-unparsable-flavor-search.yaml"


def term(*reqs: tuple[str, str, tuple[str, ...]]) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=tuple(Requirement(key=k, operator=o, values=v) for k, o, v in reqs))


def test_flavor_affinity_keeps_the_groups_keys_and_numbers_what_it_keeps():
    keys = frozenset({"zone"})
    # a term left with no expression on the keys matches every flavor, whatever the others say
    assert flavor_affinity((term(("zone", "In", ())), term(("rack", "In", ()))), {"zone": "a"}, keys) == (True, [])
    # a term that parses and matches: no error, though another term does not parse
    assert flavor_affinity((term(("zone", "Gt", ("x",))), term(("zone", "In", ("a",)))), {"zone": "a"}, keys) == \
        (True, [])
    # none matches: the errors of the kept expressions, numbered as kept (`rack` dropped before `zone`)
    matched, errors = flavor_affinity((term(("rack", "Exists", ()), ("zone", "NotIn", ())),), {"zone": "a"}, keys)
    assert not matched and errors == ["nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: null: for "
                                      "'in', 'notin' operators, values set can't be empty"]


def test_why_blames_the_flavor_search_ending_at_the_flavor_that_errs():
    out = CliRunner().invoke(cli, ["why", "--format", "json", "team/emptyin", str(CASE)], catch_exceptions=False)
    assert out.exit_code == 1, out.output
    text = json.dumps(json.loads(out.stdout))
    assert "fits on its own" not in text
    assert "Kueue's flavor search fails at flavor `fa` before it" in text, text
