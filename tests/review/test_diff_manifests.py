"""`kadmit diff --manifests`: the Kueue manifests `kadmit export` writes, as they change between two
revisions — in human text, JSON and Markdown; absent unless asked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kadmit import api
from kadmit.render.diff_report import diff_human, diff_json, diff_markdown


def revisions(tmp_path: Path) -> tuple[str, str]:
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree("examples/ml-platform", base)
    shutil.copytree("examples/ml-platform", head)
    policy = head / "policy.kad"
    policy.write_text(policy.read_text().replace("nvidia.com/gpu = 24 borrow 8 lend 8",
                                                 "nvidia.com/gpu = 32 borrow 8 lend 8"))
    return str(base), str(head)


def test_the_changed_queue_alone(tmp_path: Path) -> None:
    base, head = revisions(tmp_path)
    out = api.diff(base, head, envelopes=False, manifests=True)
    assert out.exit_code == api.EXIT_FINDINGS
    (m,) = out.result.manifests
    assert (m.file, m.kind, m.name, m.change) == ("07-cluster-queues.yaml", "ClusterQueue", "team-vision", "changed")
    assert "-        nominalQuota: '24'\n+        nominalQuota: '32'\n" in m.diff
    assert m.before["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] == "24"
    assert "Kueue manifests that change (1" in diff_human(out)
    assert json.loads(diff_json(out))["manifests"][0]["after"]["metadata"]["name"] == "team-vision"
    assert "```diff\n--- a/07-cluster-queues.yaml:ClusterQueue/team-vision" in diff_markdown(out)


def test_added_and_removed_objects_and_nothing_unasked(tmp_path: Path) -> None:
    base, head = revisions(tmp_path)
    rules = Path(head) / "rules.kad"
    rules.write_text(rules.read_text() + "\nforbid huge-gangs: pod_group.max_count > 64\n")
    policy = Path(head) / "policy.kad"
    policy.write_text(policy.read_text().replace("local_queue team-nlp/vision-share -> team-vision", ""))
    out = api.diff(base, head, envelopes=False, manifests=True)
    got = {(m.kind, m.name, m.change) for m in out.result.manifests}
    assert {("ValidatingAdmissionPolicy", "kadmit-huge-gangs", "added"),
            ("ValidatingAdmissionPolicyBinding", "kadmit-huge-gangs", "added"),
            ("LocalQueue", "vision-share", "removed")} <= got
    plain = api.diff(base, head, envelopes=False)
    assert plain.result.manifests is None and "manifests" not in json.loads(diff_json(plain))
    assert "Kueue manifests" not in diff_human(plain)
