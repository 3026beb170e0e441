"""A field's path in kadmit's messages (KAD156, KAD157, KAD158, KAD163, KAD180, KAD162; the NodePool and sweep
files' KAD71x) reads one way: a key a dot would not show as written (holding a dot, a space, a quote, a
bracket, a control character, or empty) is quoted, `requests["nvidia.com/gpu"]` (`diagnostics.field_path`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api
from kadmit.diagnostics import field_key, field_path

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: a, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  "odd key": 1
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {"a.b": [1], plain: [1]}
      containers:
        - name: c
          image: x
          resources:
            requests: {"nvidia.com/gpu": [1], "x[0]": [2], "": [3]}
"""


@pytest.mark.parametrize(("path", "shown"), [
    (("spec", "limits", "cpu"), "spec.limits.cpu"),
    (("spec", "containers", 0, "resources", "requests", "nvidia.com/gpu"),
     'spec.containers[0].resources.requests["nvidia.com/gpu"]'),
    (("a.b", "c"), '["a.b"].c'),
    (("m", "a b"), 'm["a b"]'), (("m", "[0]"), 'm["[0]"]'), (("m", 'q"'), 'm["q\\""]'), (("m", ""), 'm[""]'),
    (("m", "a\nb"), 'm["a\\nb"]'),
])
def test_field_path(path, shown) -> None:
    assert field_path(path) == shown
    assert field_key(field_path(path[:-1]), path[-1]) == shown


def test_kad156_and_kad180_quote_the_keys_a_dot_would_make_ambiguous(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    said = sorted(d.message.split("`")[1] for d in api.check([str(tmp_path / "job.yaml")]).diagnostics
                  if d.code in ("KAD156", "KAD180"))
    assert said == ['spec.template.spec.containers[0].resources.requests[""]',
                    'spec.template.spec.containers[0].resources.requests["nvidia.com/gpu"]',
                    'spec.template.spec.containers[0].resources.requests["x[0]"]',
                    "spec.template.spec.nodeSelector.plain", 'spec.template.spec.nodeSelector["a.b"]',
                    'spec["odd key"]']
