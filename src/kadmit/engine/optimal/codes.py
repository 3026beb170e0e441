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
KAD526 = register("KAD526", "optimal mode places a pod-set group only in part", "warning",
                  "A pod set belongs to a pod-set group (`podSetGroupName`, the `podset-group-name` "
                  "annotation), whose two pod sets Kueue gives one flavor and places as one: a leader "
                  "beside its workers. Optimal mode's model does both, but where the workers ask for one "
                  "host it keeps the leader on the same kind of node (a node class), not on the same "
                  "node; and where the leader has no pods it holds no room for it, while Kueue counts one "
                  "leader pod: its answer for that workload may differ from Kueue's. Ordered mode (the "
                  "default) places groups as Kueue does.")


class OptimalUnavailable(RuntimeError):
    """OR-tools isn't installed (the `kadmit[optimal]` extra). Here, beside the mode's codes, so that
    callers catching it don't import the optimal model."""
