package cluster

import (
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
)

// The workload controller's timers. Kueue's WorkloadReconciler answers some Reconciles with
// ctrl.Result{RequeueAfter: d}, and its manager's work queue reconciles the Workload again d later
// (the rate-limited queue's AddAfter: a later request for a Workload already waiting keeps the
// sooner time). In Kueue v0.17 (pkg/controller/core/workload_controller.go, Reconcile) these are:
//   - an active Workload's backoff to wait out (status.requeueState.requeueAt to come, "Waiting for
//     backoff to finish"), then a pending one has its requeueAt cleared and is queued ("Pending
//     workload requeued after backoff"), and one holding quota goes on to the rest of Reconcile (a
//     Retry admission check's eviction, which waited for the requeueAt its requeueAfterSeconds set);
//   - a Requeued condition False for PodsReadyTimeout or AdmissionCheck whose requeueAt is to come,
//     then set True (BackoffFinished);
//   - an Admitted Workload's maximumExecutionTimeSeconds left (reconcileMaxExecutionTime), then it
//     is deactivated and gives its quota back, and its PodsReady timeout (reconcileNotReadyTimeout:
//     never here, the controller is given no waitForPodsReady);
//   - a finished Workload's retention (objectRetentionPolicies: never here, not given).
//
// The harness used to drop Reconcile's result, so none of these came. Now deliver notes each
// (requeueAfter) and the run fires those due as its clock passes them (fireRequeues): after each
// cycle's second, and after the clock is set to a second pass's timer. A run does not wait for
// them: one that settles, stalls or loops before a timer is due ends there, as kadmit decides the
// state from the input's "now" (a requeueAt far ahead holds its Workload, effective.held).
// docs/KUEUE-DIFFERENCES.md §2.

// requeueAfter notes Reconcile's request to be called again for key (none: RequeueAfter 0).
func (c *Cluster) requeueAfter(key types.NamespacedName, res ctrl.Result) {
	if res.RequeueAfter <= 0 {
		return
	}
	at := c.clock.Now().Add(res.RequeueAfter)
	if old, ok := c.requeues[key]; ok && !at.Before(old) {
		return
	}
	c.requeues[key] = at
}

// fireRequeues reconciles the Workloads whose timers are due (soonest first, then by name), then
// delivers what that changed and runs the requeuer, and returns the Workloads that changed.
func (c *Cluster) fireRequeues() []types.NamespacedName {
	now := c.clock.Now()
	type due struct {
		key types.NamespacedName
		at  time.Time
	}
	var fire []due
	for key, at := range c.requeues {
		if !at.After(now) {
			fire = append(fire, due{key, at})
			delete(c.requeues, key)
		}
	}
	if len(fire) == 0 {
		return nil
	}
	sort.Slice(fire, func(i, j int) bool {
		if !fire[i].at.Equal(fire[j].at) {
			return fire[i].at.Before(fire[j].at)
		}
		return fire[i].key.String() < fire[j].key.String()
	})
	changed := make([]types.NamespacedName, 0, len(fire))
	for _, f := range fire {
		c.log.V(2).Info("workload controller timer", "workload", f.key, "due", f.at)
		c.reconcile(f.key)
		changed = append(changed, f.key)
	}
	changed = append(changed, c.deliver()...)
	c.requeuer.ProcessRequeues(c.ctx)
	return changed
}

// reconcile runs the workload controller's Reconcile for key and notes its timer.
func (c *Cluster) reconcile(key types.NamespacedName) {
	res, err := c.workloads.Reconcile(c.ctx, ctrl.Request{NamespacedName: key})
	if err != nil {
		c.log.V(2).Info("workload reconcile", "workload", key, "error", err.Error())
	}
	c.requeueAfter(key, res)
}
