"""Diagnostic codes of `optimal` mode."""

from kadmit.diagnostics import register

KAD524 = register("KAD524", "optimal mode chose other work", "error",
                  "Kueue's order admits the workload, but the optimal assignment (most admitted "
                  "workloads, then pods, priority by priority from the highest) uses its quota for "
                  "other workloads.")
KAD525 = register("KAD525", "optimal mode ignores pod-set slices", "warning",
                  "A pod set asks for Kueue's pod-set slices (`podset-slice-required-topology`), which "
                  "optimal mode's placement model does not keep in one domain each: its answer for that "
                  "workload may differ from Kueue's. Ordered mode (the default) honours them.")
KAD526 = register("KAD526", "optimal mode holds no room for a group's leader of no pods", "warning",
                  "A pod-set group (`podSetGroupName`, the `podset-group-name` annotation) has a pod set "
                  "of no pods as its leader (a LeaderWorkerSet of size 1 makes one): Kueue still counts "
                  "one leader pod beside the workers when it places the group, optimal mode's model "
                  "holds no room for it, so its answer for that workload may differ from Kueue's. "
                  "Otherwise optimal mode places groups as one: one flavor, the leader with its workers' "
                  "request in their domain (on their node at host level). Ordered mode (the default) "
                  "places groups as Kueue does.")

KAD527 = register("KAD527", "optimal mode follows a feature gate's default", "warning",
                  "Kueue's feature gates FlavorFungibility, SchedulerTimestampPreemptionBuffer, "
                  "FairSharingPreemptWithinNominal, FairSharingPrioritizeNonBorrowing, PrioritySortingWithinCohort "
                  "and MultiKueueOrchestratedPreemption change how Kueue's scheduler picks a flavor, orders "
                  "heads and preempts: ordered mode (the default) decides by them, optimal mode's own model "
                  "decides as under Kueue v0.17.0's default for each. Set away from its default (the "
                  "Configuration's `featureGates` or the manager's `--feature-gates`), optimal mode's answer "
                  "may differ from Kueue's.")


class OptimalUnavailable(RuntimeError):
    """OR-tools isn't installed (the `kadmit[optimal]` extra). Here, beside the mode's codes, so that
    callers catching it don't import the optimal model."""
