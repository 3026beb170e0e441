"""Diagnostic codes of `kadmit simulate`: traces, capacity models and sweeps (KAD700–KAD719)."""

from kadmit.diagnostics import register

KAD700 = register("KAD700", "unreadable trace", "error",
                  "A `--trace` file is neither CSV with a header row nor JSON Lines (one JSON object per "
                  "line), or it is missing a required column (`time`, `namespace`, `name`, `pods`).")
KAD701 = register("KAD701", "invalid trace value", "error",
                  "A value in a trace row can't be read: a time that is neither seconds nor RFC 3339, a "
                  "count or duration that isn't a non-negative number, a resource that isn't a Kubernetes "
                  "quantity, a malformed `node_selector`, `topology` or `tolerations`. The row is skipped and the run "
                  "refused, so no result leaves a workload out.")
KAD702 = register("KAD702", "unknown trace column", "error",
                  "A trace column is neither one of the known columns nor a resource name (a resource "
                  "name contains a `/` or is `cpu`, `memory`, `ephemeral-storage` or `hugepages-*`).")
KAD703 = register("KAD703", "duplicate workload", "error",
                  "Two trace rows (or a trace row and an input workload) name the same workload.")
KAD704 = register("KAD704", "unknown queue or priority", "error",
                  "A trace row names a local queue that no input defines in its namespace, or a priority "
                  "class that no input defines.")
KAD705 = register("KAD705", "invalid capacity or sweep file", "error",
                  "A `--add-nodes`, `--nodepool` or `--sweep` file can't be used as written.")
KAD706 = register("KAD706", "no duration", "warning",
                  "A workload has no duration (`kadmit.dev/duration`, `duration`, or a trace column): once "
                  "admitted it runs until the end of the simulation.")
KAD707 = register("KAD707", "Ray unavailable", "error",
                  "`kadmit simulate --sweep … --executor ray` runs the variants on Ray, an optional extra that "
                  "is not installed (`pip install 'kadmit[ray]'`).")
