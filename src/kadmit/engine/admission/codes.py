"""Diagnostic codes of decisions and `why`: Kueue's reasons for a pending workload (KAD501–KAD534) and
what ordered runs report beyond them (KAD535–KAD539, KAD542)."""

from kadmit.diagnostics import register

KAD501 = register("KAD501", "workload not admitted", "error",
                  "The workload can't be admitted; the reasons, blame and fixes follow.")
KAD502 = register("KAD502", "workload admitted", "note", "The workload is admitted; why this queue and flavor.")
KAD504 = register("KAD504", "quota reserved, waiting for admission checks", "warning",
                  "Kueue reserved the workload's quota in a cluster queue with admission checks; it is "
                  "admitted only when every check that applies to its flavors is Ready (their controllers "
                  "decide that, not quota: no change of quota admits it sooner).")
KAD503 = register("KAD503", "solver gave no answer", "error",
                  "The solver could not decide within its limits (`unknown`); raise --rlimit or --timeout.")
KAD510 = register("KAD510", "insufficient unused quota", "error",
                  "The flavor has the quota, but admitted workloads use it: Kueue's `insufficient unused quota`.")
KAD511 = register("KAD511", "request above maximum capacity", "error",
                  "Even with nothing admitted the request exceeds what the queue could ever get in this "
                  "flavor, borrowing included: Kueue's `request > maximum capacity`.")
KAD512 = register("KAD512", "untolerated taint", "error",
                  "The flavor's nodes carry a NoSchedule/NoExecute taint the pod set doesn't tolerate.")
KAD513 = register("KAD513", "flavor doesn't match node selector or affinity", "error",
                  "The pod set's node selector or required node affinity excludes the flavor's node labels.")
KAD514 = register("KAD514", "resource unavailable in cluster queue", "error",
                  "The pod set requests a resource that no resource group of the cluster queue covers.")
KAD515 = register("KAD515", "namespace not selected", "error",
                  "The workload's namespace doesn't match the cluster queue's namespace selector.")
KAD516 = register("KAD516", "local queue missing", "error", "The workload's LocalQueue doesn't exist.")
KAD517 = register("KAD517", "cluster queue missing", "error", "The LocalQueue's ClusterQueue doesn't exist.")
KAD518 = register("KAD518", "queue stopped or inactive", "error",
                  "The cluster queue or local queue is stopped (its stopPolicy holds new admissions), "
                  "or the cluster queue is inactive (a missing flavor, a cohort cycle, an admission check "
                  "missing or not Active).")
KAD519 = register("KAD519", "waiting behind (StrictFIFO)", "error",
                  "A StrictFIFO queue's head can't be admitted, and every workload behind it waits.")
KAD520 = register("KAD520", "rule forbids", "error", "A `require` or `forbid` rule excludes every assignment.")
KAD521 = register("KAD521", "workload inactive or inadmissible", "error",
                  "The workload's spec.active is false, or Kueue marks it inadmissible before queueing "
                  "(DRA claims it can't count: a device class no deviceClassMappings entry names, "
                  "FirstAvailable, AllocationMode All).")
KAD522 = register("KAD522", "flavor skipped", "note",
                  "An earlier flavor in the resource group was skipped; why.")
KAD523 = register("KAD523", "not admitted in this run", "error",
                  "The workload fits on its own, but the workloads admitted before it in Kueue's order "
                  "took what it needed, or flavors were assigned greedily pod set by pod set.")
KAD528 = register("KAD528", "flavor other than the replaced slice's", "error",
                  "With the ElasticJobsViaWorkloadSlices gate on, a Workload that replaces an admitted slice of its "
                  "job (`kueue.x-k8s.io/workload-slice-replacement-for`) can take only the flavors its old slice "
                  "was admitted with: Kueue's `could not assign … flavor since the original workload is "
                  "assigned`.")
KAD530 = register("KAD530", "topology doesn't fit", "error",
                  "Quota admits the pod set, but topology-aware scheduling finds no placement on the flavor's "
                  "nodes within its topology request: Kueue's `topology \"T\" allows to fit only F out of N pod(s)`.")
KAD531 = register("KAD531", "preempted", "error",
                  "The workload was admitted, and another workload preempted it under one of its cluster "
                  "queue's preemption policies (Kueue's `Preempted` condition).")
KAD532 = register("KAD532", "pending preemption", "error",
                  "The workload needs preemption and Kueue chose victims; it is admitted once they are gone.")
KAD534 = register("KAD534", "optimal mode differs", "note",
                  "`why --mode optimal`: where the optimal assignment (CP-SAT) decides this workload "
                  "differently from Kueue's order — admitted or not, and which victims.")
KAD533 = register("KAD533", "no preemption possible", "error",
                  "The workload's flavor needs preemption, but no admitted workload may be preempted for it "
                  "(or evicting every candidate would not make it fit).")

KAD535 = register("KAD535", "preemption loop", "warning",
                  "Kueue's preemption rules evict the same workloads again and again: the scheduling "
                  "cycles return to a state they were in before. kadmit stops the run there and reports "
                  "the workloads in the loop as undecided (exit 3), naming the preemption policy that makes "
                  "them loop.")
KAD536 = register("KAD536", "run did not settle", "warning",
                  "The scheduling cycles kept changing the state up to kadmit's bound on cycles without "
                  "repeating it; the workloads still moving are reported as undecided (exit 3).")
KAD537 = register("KAD537", "admission write refused by the API server", "error",
                  "Kueue nominates the workload and it fits, but the API server refuses Kueue's write of its "
                  "admission: a pod set's topology assignment has no slices, which the Workload CRD requires "
                  "(a negative podSetSliceSize; a pod-set group Kueue assigns no domains). Kueue forgets the "
                  "quota it assumed and requeues the workload, writing no condition: it is tried again every "
                  "cycle and never admitted.")
KAD538 = register("KAD538", "set aside with an equivalent workload", "error",
                  "Under Kueue's SchedulingEquivalenceHashing gate a workload of the same scheduling hash "
                  "(effective priority, pod specs, counts, minCounts, topology requests; not the namespace) was "
                  "found inadmissible in this BestEffortFIFO queue, and Kueue moved this one to the queue's "
                  "inadmissible list with it, untried: it is tried again only when quota is released in the "
                  "queue's cohort tree, and keeps the message of its last try, if any.")
KAD539 = register("KAD539", "quota reserved, waiting for the topology assignment", "warning",
                  "Kueue reserved the workload's quota and its admission checks are Ready, but the topology "
                  "assignment delayed for them (a second pass) is not made: Kueue's Admitted condition waits for "
                  "it (HasTopologyAssignmentsPending), so the workload is not admitted.")
KAD542 = register("KAD542", "nothing scheduled: an admitted workload's LocalQueue is missing under admission fair sharing",
                  "warning",
                  "A Workload holds quota in an active ClusterQueue that uses admission fair sharing "
                  "(`admissionScope.admissionMode: UsageBasedAdmissionFairSharing`, with the Configuration's "
                  "`admissionFairSharing`), and the LocalQueue it names doesn't exist. Kueue's scheduler computes "
                  "the LocalQueue usage of every such Workload when it takes its snapshot, reading the LocalQueue; "
                  "the read fails, so the snapshot fails and every scheduling cycle stops there: no workload of "
                  "any ClusterQueue is admitted, none is preempted, until the LocalQueue exists again or the "
                  "Workload stops holding quota. Create the LocalQueue (or finish the Workload).",
                  "pkg/cache/scheduler/snapshot.go snapshotClusterQueue: \"failed to calculate LocalQueue FS usage "
                  "for LocalQueue NS/NAME\" (workload.CalcLocalQueueFSUsage); scheduler.schedule returns on a "
                  "snapshot error")
