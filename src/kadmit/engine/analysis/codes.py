"""Diagnostic codes of the symbolic analyses of `check --deep` (KAD75x-KAD76x)."""

from kadmit.diagnostics import register

KAD750 = register("KAD750", "workload never admissible", "warning",
                  "The workload isn't admitted even alone on an empty cluster, so no state admits it: other "
                  "workloads only take quota and nodes away. The notes give `why`'s reasons and the minimal set "
                  "of statements responsible, computed on that empty cluster.")
KAD751 = register("KAD751", "flavor never assigned", "warning",
                  "No workload can be assigned this flavor in this cluster queue: not even one unit of any "
                  "resource its group covers is admitted there on an empty cluster (the quota is zero with "
                  "nothing to borrow, or the flavor's nodes can't hold a pod).")
KAD752 = register("KAD752", "quota above node capacity", "warning",
                  "The nominal quota for a flavor and resource, summed over every cluster queue and cohort, is "
                  "more than the ready, schedulable nodes with the flavor's labels can hold: the quota promises "
                  "capacity that doesn't exist.")
KAD753 = register("KAD753", "flavor matches no node", "warning",
                  "No node carries every label of the flavor, so nothing admitted on it can run (only reported "
                  "when the inputs hold nodes).")
KAD754 = register("KAD754", "topology level on no node", "warning",
                  "A level of the flavor's topology is a node label that none of the flavor's nodes carries: "
                  "topology-aware scheduling can't place a pod set that asks for it.")
KAD755 = register("KAD755", "borrowing limit never takes effect", "warning",
                  "The cluster queue can never borrow more than its borrowing limit anyway: it has no cohort, or "
                  "everything the rest of its cohort tree could lend is within the limit.")
KAD756 = register("KAD756", "lending limit never takes effect", "warning",
                  "The lending limit can't restrict anything: the cluster queue has no cohort, no other cluster "
                  "queue in its cohort tree could borrow, or the limit is at least the nominal quota.")
KAD757 = register("KAD757", "rules contradict", "warning",
                  "No workload can satisfy these `require`/`forbid` rules together (with the quotas): every "
                  "workload is refused. The listed rules are a minimal set that contradict each other.")
KAD758 = register("KAD758", "rule always holds", "warning",
                  "The rule holds for every workload any cluster queue could admit: a `require` that every "
                  "workload meets, or a `forbid` no workload can trigger. It constrains nothing.")
KAD759 = register("KAD759", "rule implied by another", "warning",
                  "Every workload that satisfies the other rule satisfies this one: it adds nothing.")
KAD760 = register("KAD760", "rule not analysed", "note",
                  "`check --deep` could not encode this rule symbolically (a reference or operator its rule "
                  "analysis doesn't cover); it is left out of the rule analyses.")
KAD761 = register("KAD761", "rules shut a cluster queue", "warning",
                  "Together with the quotas, the `require`/`forbid` rules leave no workload this cluster queue "
                  "could admit, though without the rules some would fit. The listed rules are a minimal set that "
                  "does it.")
