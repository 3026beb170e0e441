"""Diagnostic codes of `optimal` mode."""

from kadmit.diagnostics import register

KAD524 = register("KAD524", "optimal mode chose other work", "error",
                  "Kueue's order admits the workload, but the optimal assignment (most admitted "
                  "workloads, then pods, priority by priority from the highest) uses its quota for "
                  "other workloads.")
