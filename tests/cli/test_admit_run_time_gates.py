"""A feature gate that changes only what Kueue does at run time (after admission, or when it retries) is
warned of as run time (KAD161), and `admit`'s summary says Kueue's answer may differ (issue 18 item 4)."""

from __future__ import annotations

from jobs.helpers import SETUP  # Kueue's getting-started queues: user-queue in default

CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {FailureRecoveryPolicy: true, TASFailedNodeReplacement: false, PartialAdmission: false}
---
"""


def test_a_run_time_gate_is_warned_as_run_time_and_the_summary_says_so(run) -> None:
    run.write("in.yaml", CONFIG + SETUP)
    out = run("admit", "in.yaml")
    assert out.exit_code == 0, out.output
    warned = [line for line in out.output.splitlines() if line.startswith("warning[KAD161]")]
    assert len(warned) == 2, out.output  # PartialAdmission is modelled
    assert "`featureGates.FailureRecoveryPolicy`" in warned[0] and "at run time (pods stuck terminating" in warned[0]
    assert "`featureGates.TASFailedNodeReplacement`" in warned[1] and "at run time (a failed node" in warned[1]
    assert "the input sets 2 settings kadmit does not model (KAD161): Kueue's answer may differ" in out.stdout
