"""Diagnostic codes of `kadmit export`, `kadmit import` and `diff --manifests` (KAD90x-KAD94x)."""

from kadmit.diagnostics import register

KAD901 = register("KAD901", "no Kueue form", "warning",
                  "`kadmit export` met something the policy holds that Kueue's objects have no field for. "
                  "The message says what was done with it: written as an annotation only kadmit reads "
                  "(Kueue ignores it, so the cluster behaves as if it were not there), or left out of the "
                  "export.")
KAD902 = register("KAD902", "rule not enforced by the cluster", "error",
                  "A `require`/`forbid` rule judges something known only when Kueue admits the workload "
                  "(its flavors, cluster queue or cohort, or the count partial admission chooses), so no "
                  "ValidatingAdmissionPolicy can enforce it when the workload is created: the cluster would "
                  "admit what the rule forbids. `kadmit export` writes no policy for it and exits 1; "
                  "`--allow-unenforced` makes this a warning. A Kueue AdmissionCheck (a controller that "
                  "sees the admission before it takes effect) could enforce it.")
KAD903 = register("KAD903", "topology level not resolved", "warning",
                  "A pod group names its topology level by a short name (`rack`) that the topologies of its "
                  "queue's flavors don't resolve to exactly one node label; Kueue's manifests name the node "
                  "label, so the level is written as given.")
KAD904 = register("KAD904", "output folder unusable", "error",
                  "`--output` was not given, or names something that is not a folder, or a folder that could "
                  "not be created or written.")
KAD905 = register("KAD905", "rule partly enforced", "error",
                  "A rule reads the count of pods Kueue admits (`pod_group.count`, `pod_group.total`, "
                  "`workload.pod_count`, `workload.requests`): known when the workload is created only for "
                  "workloads without partial admission (`minCount`). The exported policy judges those and "
                  "lets the others through, so for them the rule is not enforced; `--allow-unenforced` makes "
                  "this a warning.")
KAD920 = register("KAD920", "no `.kad` form", "warning",
                  "`kadmit import` met a field or object that the `.kad` language cannot say yet; it is kept "
                  "as a comment in the imported file, and the imported policy behaves as if it were not there.")
KAD921 = register("KAD921", "import refused", "error",
                  "`kadmit import` writes `.kad` files only for input it could read without errors (`kadmit "
                  "check` lists them), and never into a folder that holds a file of its input (it would be read with "
                  "it, or replace it).")
KAD922 = register("KAD922", "nothing to import", "note",
                  "`kadmit import` found nothing in the input that a `.kad` file says: no flavor, queue, cohort, "
                  "topology, priority class or admission check, and (with `--workloads`) no workload or node; it "
                  "writes no file. `kadmit admit` lists the objects it does not decide, and why (a job Kueue would "
                  "not manage, say).")
