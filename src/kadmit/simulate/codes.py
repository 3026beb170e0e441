"""Diagnostic codes of `kadmit simulate`: traces, capacity models and sweeps (KAD700–KAD749)."""

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
KAD705 = register("KAD705", "invalid capacity argument", "error",
                  "A `--add-nodes TIME:PATH` argument whose TIME is not a time from the start, or a `--with-capacity "
                  "PATH[:NAME]` that names no single NodePool of the file. (Problems inside the files are KAD710–KAD716.)")
KAD706 = register("KAD706", "no duration", "warning",
                  "A workload has no duration (`kadmit.dev/duration`, `duration`, or a trace column): once "
                  "admitted it runs until the end of the simulation.")
KAD707 = register("KAD707", "Ray unavailable", "error",
                  "`kadmit simulate --sweep … --executor ray` runs the variants on Ray, an optional extra that "
                  "is not installed (`pip install 'kadmit[ray]'`).")
KAD710 = register("KAD710", "invalid NodePool", "error",
                  "A `--nodepool` or `--with-capacity` file is not a usable `karpenter.sh/v1` NodePool: a field of the "
                  "wrong type (a string where a list is expected...), a missing field (`metadata.name`, "
                  "`spec.template.spec`), an unknown field (strict validation, as the API server's), or a value "
                  "Karpenter rejects (a weight outside 1..100, an unknown requirement operator or taint effect, a "
                  "negative limit, a duration that isn't one). The message names the field; the simulation is refused.")
KAD711 = register("KAD711", "invalid instance shapes", "error",
                  "The NodePool annotation `kadmit.dev/instance-types` is not a YAML list of `{name, allocatable, "
                  "labels, price}`: it doesn't parse, a shape lacks `name` or `allocatable`, an amount is not a "
                  "quantity, or a price is not a finite non-negative number. Reported at the line inside the annotation.")
KAD712 = register("KAD712", "invalid sweep file", "error",
                  "A `--sweep` file is not a mapping of `variants` (a list of `{name, paths, add_nodes, scoring, "
                  "mode, cycle_latency}`) and `grid` (a list of axes: `set` with `values`, `scoring`, `mode` or "
                  "`cycle_latency`), or a value in it has the wrong type or is not one kadmit knows. Reported at the value.")
KAD713 = register("KAD713", "NodePool field not modelled", "warning",
                  "A NodePool field that changes what Karpenter does but that kadmit's capacity model leaves out "
                  "(`startupTaints`, `expireAfter`, `terminationGracePeriod`, disruption `budgets`, `replicas`): "
                  "nodes are provisioned and consolidated as if it were absent.")
KAD714 = register("KAD714", "capacity file without nodes", "error",
                  "An `--add-nodes TIME:PATH` file defines no Node (in `.kad` or as manifests), so nothing would join.")
KAD715 = register("KAD715", "not a node", "warning",
                  "An `--add-nodes` file holds an object that is not a Node (a queue, a workload...): only nodes join "
                  "the cluster at TIME; the object is not added.")
KAD716 = register("KAD716", "sweep variant could not run", "error",
                  "A variant of a `--sweep` file could not be replayed: its `paths` hold errors or can't be read, "
                  "a quota its grid sets doesn't exist in the policy (no such cluster queue, flavor or resource), or "
                  "its `add_nodes` or the command's trace can't be used. Reported at the variant (or the grid's `set`); "
                  "the other variants still run, and the command exits 2.")
KAD717 = register("KAD717", "replay stopped at its work budget", "error",
                  "The replay decided pending workloads again more times in all than its budget allows (`simulate "
                  "--budget N`, 20,000,000 by default): each event of a queue decides its pending workloads again, so a "
                  "backlog of thousands waiting through thousands of events costs their product. The replay stops at "
                  "the instant it passed the budget; what it shows ends there, and the command exits 3.")
