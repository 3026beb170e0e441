"""Required node affinity Kueue cannot parse, without topology-aware scheduling (the oracle decides the cases:
tests/oracle/features/node-affinity-match-expressions-unparsable-flavor-search.yaml): Kueue's flavor assigner
keeps each term's expressions on the resource group's label keys and, where no kept term matches a flavor and one
does not parse, fails the pod set at that flavor. `why` says so, not that the workload fits on its own. An
operator outside the six alike (node-affinity-match-expressions-unsupported-operator.yaml)."""

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


UNSUPPORTED = CASE.with_name("node-affinity-match-expressions-unsupported-operator.yaml")


def test_an_operator_outside_the_six_matches_nothing_and_gives_kueues_words():
    keys = frozenset({"zone"})
    for op in ("Equals", "in", "", "<&>"):
        assert not Requirement(key="zone", operator=op, values=("a",)).matches({"zone": "a"})
    # NotSupported, its key and values unchecked (`continue` in nodeSelectorRequirementsAsSelector); the bad value
    # printed as json.Marshal prints a NodeSelectorOperator
    matched, errors = flavor_affinity((term(("zone", "<&>", ("x y",))),), {"zone": "a"}, keys)
    assert not matched and errors == ['nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: '
                                      '"\\u003c\\u0026\\u003e": supported values: "In", "NotIn", "Exists", '
                                      '"DoesNotExist", "Gt", "Lt"']


def test_an_operator_outside_the_six_in_a_jobs_template_is_the_api_servers_refusal(tmp_path):
    text = UNSUPPORTED.read_text()
    job = text[text.index("- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: Workload\n  metadata: {name: equals"):]
    job = job[:job.index("- apiVersion", 1)].replace("kueue.x-k8s.io/v1beta2\n  kind: Workload", "batch/v1\n  kind: Job")
    job = job.replace("spec:\n    queueName: lq\n    podSets:\n    - name: main\n      count: 1\n      template:",
                      "spec:\n    template:").replace("        spec:\n          affinity", "        spec:\n"
                                                      "          restartPolicy: Never\n          affinity")
    path = tmp_path / "job.yaml"
    path.write_text(text[:text.index("- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: Workload")] + job.replace(
        "metadata: {name: equals, namespace: team,", "metadata: {name: equals, namespace: team, labels: "
        "{kueue.x-k8s.io/queue-name: lq},"))
    out = CliRunner().invoke(cli, ["check", "--format", "json", str(path)], catch_exceptions=False)
    assert out.exit_code == 1, out.output
    # ValidateNodeSelectorRequirement: the operator, then (unlike Kueue's parse) the key and each value
    messages = [d["message"] for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "KAD157"]
    assert len(messages) == 2 and "values[0]: Invalid value: \"x y\": a valid label" in messages[1], messages
    assert messages[:1] == ["the API server refuses the object: `spec.template.spec.affinity.nodeAffinity."
                        "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
                        "operator: Invalid value: \"Equals\": not a valid selector operator`"], out.stdout


def test_import_keeps_an_operator_outside_the_six_as_a_comment(tmp_path):
    out = CliRunner().invoke(cli, ["import", "--workloads", "-o", str(tmp_path / "kad"), str(UNSUPPORTED)],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    text = "\n".join(p.read_text() for p in sorted((tmp_path / "kad").glob("*.kad")))
    assert '#   match "zone" "Equals" ["x y"]' in text and '#   match "zone" "in" ["b"]' in text, text
    assert '#   match "metadata.name" "Equals" ["n1"]' in text, text  # in the term's `match_fields` (f9649a88)


def test_a_workloads_empty_values_read_as_the_cluster_stores_them(tmp_path):
    """A Workload's `values: []` is stored as written and Kueue's error says `[]` (the oracle's fake client drops
    the list and says `null`: KUEUE-DIFFERENCES §5)."""
    text = CASE.read_text().replace("{key: zone, operator: In}]}, {matchExpressions: [{key: zone, operator: In, "
                                    "values: [b]}", "{key: zone, operator: In, values: []}]}, {matchExpressions: "
                                    "[{key: zone, operator: In, values: [b]}")
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["admit", "--format", "json", str(path)], catch_exceptions=False)
    (emptyin,) = [d for d in json.loads(out.stdout)["decisions"] if d["workload"] == "team/emptyin"]
    assert "matchExpressions[0].values: Invalid value: []: for 'in', 'notin'" in json.dumps(emptyin), emptyin


def test_why_says_a_groups_workers_affinity_cannot_be_parsed_not_that_hosts_lack_room():
    case = CASE.with_name("pod-set-group-tas-unparsable-affinity.yaml")
    out = CliRunner().invoke(cli, ["why", "--color", "never", "team/badworkers", str(case)], catch_exceptions=False)
    assert out.exit_code == 1, out.output
    summary = out.stdout.splitlines()[2]
    assert summary.startswith("   = needs 2 pods of workers placed at once") and \
        "its required node affinity cannot be parsed" in summary and "room" not in summary, out.stdout
    assert "hosts, most room first" not in out.stdout, out.stdout


def test_a_match_fields_requirement_kueue_cannot_parse_is_warned_too():
    out = CliRunner().invoke(cli, ["check", "--format", "json", str(UNSUPPORTED)], catch_exceptions=False)
    warned = [d["message"] for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "KAD246"]
    assert len(warned) == 7 and any("of `team/fields`: `nodeSelectorTerms[0].matchFields[0].operator: Unsupported "
                                    "value: \"Equals\": supported values: \"In\", \"NotIn\"`" in w for w in warned), warned
