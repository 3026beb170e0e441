"""Durations: Go-style text, `duration` in `.kad`, the `kadmit.dev/duration` annotation."""

from kadmit import workspace as ws
from kadmit.durations import format_seconds, parse_duration_ms


def test_parse_and_format():
    assert [parse_duration_ms(t) for t in ("90", "1.5", "2h", "1h30m", "200ms", "1h2m3.5s")] == [
        90_000, 1_500, 7_200_000, 5_400_000, 200, 3_723_500]
    assert [parse_duration_ms(t) for t in ("", "x", "-1", "1d", "h")] == [None] * 5
    assert format_seconds(3_723_500) == "1h2m3.5s" and format_seconds(200) == "200ms"


def test_kad_duration_and_manifest_annotation(tmp_path):
    (tmp_path / "w.kad").write_text('workload a/w1 {\n  queue = lq\n  duration = "45m"\n'
                                    '  pod_group main { requests = { cpu = 1 } }\n}\n')
    (tmp_path / "w.yaml").write_text("""apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: w2
  namespace: a
  annotations:
    kadmit.dev/duration: 1h30m
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: w3
  namespace: a
  annotations:
    kadmit.dev/duration: soon
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
""")
    got = ws.load([str(tmp_path)], validate=False)
    durations = {w.key: w.duration_ms for w in got.model.workloads}
    assert durations == {"a/w1": 2_700_000, "a/w2": 5_400_000, "a/w3": None}
    bad = [d for d in got.diagnostics if d.code == "KAD165"]
    assert len(bad) == 1 and bad[0].span.line == 25
