"""`optimal` mode: one global CP-SAT model over every pending workload, with placement and preemption."""
