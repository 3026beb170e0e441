"""The files `simulate` reads besides policy and state, when they are wrong: every problem a KAD
diagnostic at its own line, in kadmit's words (NodePools, their instance shapes, sweeps, capacity
files, traces)."""

from pathlib import Path

from kadmit import api

DATA = Path(__file__).parent / "data"
POOL = (DATA / "karpenter-pool.yaml").read_text()
POLICY = str(DATA / "karpenter-policy.kad")


def _pool(tmp_path: Path, text: str) -> tuple[list, list[str]]:
    path = tmp_path / "pool.yaml"
    path.write_text(text)
    out = api.simulate([POLICY], nodepools=[str(path)])
    return out.diagnostics, path.read_text().splitlines()


def _at(d, lines: list[str]) -> str:
    return lines[d.span.line - 1]


def test_a_nodepool_field_of_the_wrong_type_is_reported_at_it(tmp_path: Path) -> None:
    diags, lines = _pool(tmp_path, POOL.replace("nvidia.com/gpu: 32", "nvidia.com/gpu: [32]"))
    (d,) = [d for d in diags if d.code == "KAD710"]
    assert '`spec.limits["nvidia.com/gpu"]` must be a quantity' in d.message and "[32]" in _at(d, lines)
    diags, lines = _pool(tmp_path, POOL.replace("      requirements:\n", "      requirements: 7\n      x:\n"))
    assert {d.message.split(":")[0] for d in diags if d.code == "KAD710"} >= {"unknown field `x` in `spec.template.spec`"}
    diags, _ = _pool(tmp_path, POOL.replace("spec:\n  template:", "spec: 7\n  template:"))
    assert any(d.code in ("KAD710", "KAD150") for d in diags)


def test_a_key_holding_a_line_break_is_named_on_the_message_s_one_line(tmp_path: Path) -> None:
    # test_hostile_files[nodepool] (merge train 4): a limit keyed "\n" printed "`spec.limits.\n`", a line break
    # that split the message's first line from its location
    diags, lines = _pool(tmp_path, POOL.replace("nvidia.com/gpu: 32", "nvidia.com/gpu: 32\n    ? \"\\n\"\n    : null"))
    (d,) = [d for d in diags if d.code == "KAD710"]
    assert d.message.startswith('`spec.limits["\\n"]` must be a quantity') and "\n" not in d.message
    assert _at(d, lines).strip() == ": null"


def test_instance_shapes_are_reported_at_their_line_inside_the_annotation(tmp_path: Path) -> None:
    diags, lines = _pool(tmp_path, POOL.replace("cpu: 96,", "cpu: lots,"))
    (d,) = [d for d in diags if d.code == "KAD711"]
    assert "instance-types[1].allocatable.cpu`" in d.message and "cpu: lots" in _at(d, lines)
    assert _at(d, lines)[d.span.column - 1:].startswith("lots")
    diags, lines = _pool(tmp_path, POOL.replace("      - {name: g.4x", "      - {nme: g.4x"))
    found = [d for d in diags if d.severity.value == "error"]
    assert [d.code for d in found] == ["KAD711", "KAD711"] and all(d.span.line == 8 for d in found)
    assert sorted(d.message.split("` ")[-1] for d in found) == ["has no `name`", "in `metadata.annotations.kadmit.dev/instance-types[0]`"]


def test_fields_kadmit_does_not_model_are_named(tmp_path: Path) -> None:
    diags, lines = _pool(tmp_path, POOL.replace("  disruption: {consolidateAfter: Never}",
                                                "  disruption: {consolidateAfter: Never, budgets: [{nodes: 10%}]}"))
    (d,) = [d for d in diags if d.code == "KAD713"]
    assert "spec.disruption.budgets" in d.message and "budgets" in _at(d, lines)


def test_a_capacity_file_without_nodes_or_with_other_objects(tmp_path: Path) -> None:
    other = tmp_path / "other.kad"
    other.write_text('flavor extra {}\nnode n9 { allocatable = { cpu = 8, pods = 110 } }\n')
    out = api.simulate([POLICY], add_nodes=[f"1h:{other}"])
    assert out.exit_code == 0 and [(d.code, d.span.line) for d in out.diagnostics if d.code == "KAD715"] == [("KAD715", 1)]
    other.write_text("flavor extra {}\n")
    out = api.simulate([POLICY], add_nodes=[f"1h:{other}"])
    assert out.exit_code == 2 and [(d.code, d.span.line) for d in out.diagnostics if d.code == "KAD714"] == [("KAD714", 1)]


def test_a_sweep_variant_that_cannot_run_is_reported_at_its_entry(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("variants:\n  - name: ok\n  - name: broken\n    paths: [nowhere/]\n")
    out = api.sweep([POLICY], str(sweep), workers=1)
    (d,) = [d for d in out.diagnostics if d.code == "KAD716"]
    assert out.exit_code == 2 and d.span.line == 3 and "`broken`" in d.message
    sweep.write_text("variants:\n  - paths: 7\n")
    out = api.sweep([POLICY], str(sweep), workers=1)
    assert [(d.code, d.span.line) for d in out.diagnostics] == [("KAD712", 2)]
    assert "must be a list, not an integer" in out.diagnostics[0].message


def test_a_sweep_never_names_two_variants_alike(tmp_path: Path) -> None:
    """Each variant is a row of the results, told apart by its name: a name given twice or empty, a grid
    value given twice (`1s` is `1000ms`) or two axes setting one thing are refused at the entry."""
    sweep = tmp_path / "sweep.yaml"
    cases = {
        "variants:\n  - name: a\n  - name: b\n  - name: a\n": (4, "`variants[2]` is named `a`, as `variants[0]` is"),
        "variants:\n  - name: ''\n": (2, "`variants[0].name` is empty"),
        "grid:\n  - cycle_latency: [0s, 1s, 1000ms]\n": (2, "`grid[0]` gives `1000ms` again (as its entry 1)"),
        "grid:\n  - scoring: [MostAllocated]\n  - scoring: [LeastAllocated]\n": (3, "`grid[1]` sets what `grid[0]` sets"),
        "grid:\n  - set: {cluster_queue: q, flavor: gpu, resource: cpu, field: nominal}\n"
        "    values: [1000000, 1000k]\n": (3, "`grid[0]` gives `1000000` again (as its entry 0)"),
    }
    for text, (line, message) in cases.items():
        sweep.write_text(text)
        out = api.sweep([POLICY], str(sweep), workers=1)
        assert out.exit_code == 2 and [(d.code, d.span.line) for d in out.diagnostics] == [("KAD712", line)], text
        assert out.diagnostics[0].message == message
    sweep.write_text("grid:\n  - set: {cluster_queue: q, flavor: gpu, resource: cpu, field: nominal}\n"
                     "    values: [1000000, 1000001, 0.5]\n")
    out = api.sweep([POLICY], str(sweep), workers=1)
    assert out.exit_code == 0 and [r["variant"].split("=")[-1] for r in out.result["variants"]] \
        == ["1000000", "1000001", "500m"]


def test_trace_rows_the_reader_cannot_take(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"time": 0, "namespace": "a", "name": "j", "pods": 1}\n'
                     '{"time": 0, "namespace": "a", "name": "k", "pods": [1, 2]}\n' + "[" * 100_000 + "\n")
    out = api.simulate([POLICY], trace=str(trace))
    assert out.exit_code == 2 and [(d.code, d.span.line) for d in out.diagnostics if d.severity.value == "error"] \
        == [("KAD701", 2)]
    trace.write_text('{"time": 0, "namespace": "a", "name": "j", "pods": 1}\n' + "[" * 100_000 + "\n")
    out = api.simulate([POLICY], trace=str(trace))
    assert [(d.code, d.span.line) for d in out.diagnostics if d.severity.value == "error"] == [("KAD700", 2)]
    csv = tmp_path / "trace.csv"
    csv.write_text("time,namespace,name,pods\n0,a," + "x" * 200_000 + ",1\n")
    out = api.simulate([POLICY], trace=str(csv))
    assert out.exit_code == 2 and "longer than kadmit reads" in out.diagnostics[-1].message
    csv.write_text("time,namespace,name,pods\n9999-12-31T23:59:59Z,a,j,1\n")
    out = api.simulate([POLICY], trace=str(csv), start="9999-12-31T23:59:58Z")
    assert out.exit_code == 0
    out = api.simulate([POLICY], trace=str(csv), start="9999-12-31T23:59:58Z", until="1h")
    csv.write_text("time,namespace,name,pods\n99999999,a,j,1\n")
    out = api.simulate([POLICY], trace=str(csv), start="9999-12-31T23:59:58Z")
    assert out.exit_code == 2 and "after the year 9999" in out.diagnostics[-1].message


def test_a_column_or_key_named_twice_is_refused_not_dropped(tmp_path: Path) -> None:
    csv = tmp_path / "trace.csv"
    csv.write_text("time,namespace,name,pods,cpu,cpu\n0,a,j,1,1,2\n")
    out = api.simulate([POLICY], trace=str(csv))
    assert out.exit_code == 2 and [(d.code, d.span.line) for d in out.diagnostics if d.severity.value == "error"] \
        == [("KAD700", 1)] and "`cpu` twice" in out.diagnostics[-1].message
    jsonl = tmp_path / "trace.jsonl"
    jsonl.write_text('{"time": 0, "namespace": "a", "name": "j", "pods": 1}\n'
                     '{"time": 0, "namespace": "a", "name": "k", "pods": 1, "pods": 2}\n')
    out = api.simulate([POLICY], trace=str(jsonl))
    assert out.exit_code == 2 and [(d.code, d.span.line) for d in out.diagnostics if d.severity.value == "error"] \
        == [("KAD700", 2)]


def test_unknown_nodepool_fields_outside_the_spec_are_reported(tmp_path: Path) -> None:
    """Karpenter's template metadata takes labels and annotations only, as the API server's strict
    validation holds; a field there or beside `spec` is reported, never read past."""
    diags, lines = _pool(tmp_path, POOL.replace("  template:\n    spec:\n",
                                                "  template:\n    metadata: {lables: {team: a}}\n    spec:\n")
                         .replace("kind: NodePool\n", "kind: NodePool\nspecs: {}\n"))
    found = sorted((d.message.split(" in ")[0], _at(d, lines).strip()) for d in diags if d.code == "KAD710")
    assert found == [("unknown field `lables`", "metadata: {lables: {team: a}}"), ("unknown field `specs`", "specs: {}")]
    diags, lines = _pool(tmp_path, POOL.replace("  template:\n    spec:\n",
                                                "  template:\n    metadata: {annotations: {a: [1]}}\n    spec:\n"))
    (d,) = [d for d in diags if d.code == "KAD710"]
    assert "`spec.template.metadata.annotations.a` must be a string" in d.message and "[1]" in _at(d, lines)


def test_names_labels_and_taints_follow_kubernetes_limits(tmp_path: Path) -> None:
    """A NodePool the API server would reject (its name, a label or taint key or value a node would carry)
    is KAD710 at the value, not nodes with labels no node can have."""
    taint = "      taints:\n        - {key: dedicated, value: gpu, effect: NoSchedule}\n"
    cases = [
        (POOL.replace("name: gpu", "name: GPU_Pool"), "GPU_Pool", "the name of NodePool `GPU_Pool` is not a DNS-1123"),
        (POOL.replace("  template:\n", "  template:\n    metadata:\n      labels: {team: " + "x" * 64 + "}\n"),
         "team: xxx", "labels.team` `xxxxxxxxxxxxxxxxxxxx…` is 64 characters long; at most 63"),
        (POOL.replace("  template:\n", "  template:\n    metadata:\n      labels: {'a b': x}\n"),
         "'a b'", "label key `a b` has a name part"),
        (POOL.replace("{key: karpenter.sh/capacity-type", "{key: 'karpenter.sh/capacity type'"),
         "capacity type", "requirements[0].key` `karpenter.sh/capacity type` has a name part"),
        (POOL.replace("values: [on-demand]", "values: ['-on-demand']"), "'-on-demand'",
         "requirements[0].values[0]` `-on-demand` isn't letters"),
        (POOL.replace("        - {key: karpenter.sh", taint + "        - {key: karpenter.sh").replace("value: gpu", "value: 'g p u'"),
         "'g p u'", "taints[0].value` `g p u` isn't letters"),
        (POOL.replace("price: 20}", "labels: {'/zone': a}, price: 20}"), "'/zone'",
         "labels`: label key `/zone` has an empty prefix"),
    ]
    for text, at, message in cases:
        diags, lines = _pool(tmp_path, text)
        errors = [d for d in diags if d.severity.value == "error"]
        assert len(errors) == 1 and message in errors[0].message and at in _at(errors[0], lines), (message, errors)
