"""Diagnostic codes of gangs kube-scheduler places all-or-nothing (KAD540–KAD541)."""

from kadmit.diagnostics import register

KAD540 = register("KAD540", "gang can't be placed", "error",
                  "A pod group kube-scheduler places all-or-nothing (a `scheduling.k8s.io` Workload's "
                  "gang, or a coscheduling PodGroup) can't have `minCount` of its pods on the nodes at once; "
                  "none of them bind. `kadmit why` gives minimal cores over the nodes' capacity.")
KAD541 = register("KAD541", "gang placed", "note",
                  "At least `minCount` pods of an all-or-nothing pod group fit on the nodes together.")
