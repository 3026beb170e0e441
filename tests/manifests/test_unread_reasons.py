"""Built-in kinds a cluster dump holds that kadmit does not read are listed with why (manifests/unread.py), never
dropped unsaid: the skipped reason and KAD159's help say what Kueue's admission makes of them
(tests/oracle/features/cluster-dump-kinds-not-read.yaml decides the same input on the oracle)."""

from __future__ import annotations

from pathlib import Path

from kadmit.manifests import KINDS
from kadmit.manifests.unread import WHY
from kadmit.workspace import load

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "cluster-dump-kinds-not-read.yaml"


def test_each_kind_not_read_says_why():
    ws = load([str(CASE)])
    reasons = {s.object.kind: s.reason for s in ws.model.skipped}
    assert reasons["PersistentVolumeClaim"] == ("kadmit does not read this kind: Kueue counts no claimed storage: quota "
                                                "and topology-aware placement read a pod's container requests (with its "
                                                "overhead; `ephemeral-storage` among them), not the volumes it claims")
    for kind in ("PersistentVolume", "StorageClass", "Secret", "ServiceAccount", "Service", "Role"):
        group = next(g for g, k in WHY if k == kind)
        assert reasons[kind] == f"kadmit does not read this kind: {WHY[group, kind]}"
    helps = {d.message.split("`")[1]: d.help for d in ws.diagnostics if d.code == "KAD159"}
    assert helps["Service"] == WHY["", "Service"]


def test_the_kinds_said_not_read_are_none_kadmit_reads():
    assert not set(WHY) & set(KINDS)
