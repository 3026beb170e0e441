"""Quantities hold what Kubernetes holds: a `16Pi` memory quota (18 * 10**18 milli-units, past int64)
with byte-exact requests decides the same in ordered and optimal mode and in the reference."""

from __future__ import annotations

import pytest

from kadmit import api
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.reference import decide as reference_decide

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: "9223372036854775807"}
      - {name: memory, nominalQuota: 16Pi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""


def workload(name: str, minute: int, count: int, memory: str) -> str:
    return f"""\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-11-20T08:{minute:02d}:00Z"}}
spec:
  queueName: q
  podSets:
  - name: main
    count: {count}
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "3", memory: "{memory}"}}}}}}]}}}}
"""


def test_parse_holds_int64_units_of_every_resource() -> None:
    assert parse_quantity("16Pi") == 16 * 2**50 * 1000
    assert parse_quantity("9223372036854775807") == (2**63 - 1) * 1000
    with pytest.raises(QuantityError):
        parse_quantity("9223372036854775808")


def test_a_binary_suffix_past_int64_is_capped_as_the_api_server_keeps_it() -> None:
    """ParseQuantity caps a BinarySI amount at 2^63-1 ("The max is just a simple cap."; oracle case
    quantity-binary-si-capped-at-int64); a decimal one past it stays out of range."""
    assert parse_quantity("8Ei") == parse_quantity("999999999999Ei") == (2**63 - 1) * 1000
    assert parse_quantity("-9Ei") == -(2**63 - 1) * 1000
    assert parse_quantity("7Ei") == 7 * 2**60 * 1000
    with pytest.raises(QuantityError):
        parse_quantity("9223372036854775808k")


@pytest.mark.parametrize("mode", ["ordered", "optimal"])
def test_a_16pi_quota_admits_up_to_the_byte(tmp_path, mode) -> None:
    five_pi_and_a_byte = str(5 * 2**50 + 1)
    (tmp_path / "c.yaml").write_text(
        CLUSTER + workload("big", 0, 3, five_pi_and_a_byte)  # 15Pi + 3 bytes: fits
        + workload("rest", 1, 1, str(2**50 - 3))  # exactly what is left: fits
        + workload("one-more", 2, 1, "1"))  # one byte over: doesn't
    out = api.admit([str(tmp_path)], mode=mode)
    assert out.exit_code == 0, [(d.code, d.message) for d in out.diagnostics]
    got = {d.key: d.admitted for d in out.result.decisions}
    assert got == {"default/big": True, "default/rest": True, "default/one-more": False}
    ref = {d.workload: d.admitted for d in reference_decide(out.loaded.workspace.model)}
    assert ref == got
