"""Diagnostic codes of ordered decisions that are not Kueue's own reasons (KAD535–KAD539)."""

from kadmit.diagnostics import register

KAD535 = register("KAD535", "preemption loop", "warning",
                  "Kueue's preemption rules evict the same workloads again and again: the scheduling "
                  "cycles return to a state they were in before. kadmit stops the run there and reports "
                  "the workloads in the loop as undecided (exit 3), naming the preemption policy that makes "
                  "them loop.")
KAD536 = register("KAD536", "run did not settle", "warning",
                  "The scheduling cycles kept changing the state up to kadmit's bound on cycles without "
                  "repeating it; the workloads still moving are reported as undecided (exit 3).")
