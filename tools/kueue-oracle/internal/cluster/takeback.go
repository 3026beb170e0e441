package cluster

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/workload"
)

// Reservations taken back at once. Kueue's workload controller takes back the quota reservation of
// a workload not yet Admitted whose LocalQueue is being deleted (reconcileOnLocalQueueActiveState:
// "LocalQueue ... is terminating or missing"), and puts it back in its queue at once (the Update
// event, QuotaReserved -> Pending). The queue manager keeps such a LocalQueue (only a stopPolicy or
// the queue's deletion takes it out), so the scheduler reserves the workload's quota again: in a
// ClusterQueue with admission checks, whose workloads hold their reservation without being Admitted
// until the checks are Ready, the workload's reservation comes and goes forever.
//
// Between cycles the harness lets every controller catch up; here that would be wrong. A live
// Kueue's scheduler runs its next cycle as soon as one ends: its admission is written to the API
// server by a goroutine, and the controller answers only once the write's event reaches it, by
// which time the scheduler has tried the heads left in its queues with the reservation still held.
// So the harness holds the controller's Reconcile of such a reservation back (the informer's event
// is delivered: the queues and the cache take the reservation as the scheduler assumed it) while
// any ClusterQueue has a head to try, and delivers it when none has (Kueue's Heads would block).
// The run has then come round: when it comes to the same state again, the rest of the run repeats
// (the reservations taken back, given again, the same heads failing), and it ends there, the
// reservations shown held, as the other heads meet them, and said so in a note.

// holdBack notes the workloads written in this cycle that hold a reservation the workload
// controller takes back at once: not Admitted, their LocalQueue being deleted.
func (c *Cluster) holdBack() {
	for _, key := range c.watch.peek() {
		var wl kueue.Workload
		if err := c.cl.Get(c.ctx, key, &wl); err != nil {
			continue
		}
		if !workload.HasQuotaReservation(&wl) || workload.IsAdmitted(&wl) || !wl.DeletionTimestamp.IsZero() {
			continue
		}
		var lq kueue.LocalQueue
		lqKey := types.NamespacedName{Namespace: wl.Namespace, Name: string(wl.Spec.QueueName)}
		if err := c.cl.Get(c.ctx, lqKey, &lq); err != nil || lq.DeletionTimestamp.IsZero() {
			continue
		}
		c.heldBack[key] = true
	}
}

// releaseHeldBack delivers the Reconcile held back (the reservations taken back, the workloads and
// those waiting on them queued again) and returns the workloads that changed.
func (c *Cluster) releaseHeldBack() []types.NamespacedName {
	c.watch.mu.Lock()
	for key := range c.heldBack {
		c.watch.dirty[key] = true
	}
	c.watch.mu.Unlock()
	clear(c.heldBack)
	changed := c.deliver()
	c.requeuer.ProcessRequeues(c.ctx)
	return changed
}

// takenBackNote says which workloads' reservations come and go for ever, as the run ends.
func (c *Cluster) takenBackNote(keys []types.NamespacedName) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.String()
	}
	return fmt.Sprintf("%s: Kueue's workload controller takes the quota reservation back at once (LocalQueue "+
		"terminating, not Admitted) and its scheduler reserves it again, over and over; shown as the scheduler's "+
		"other heads meet it, holding the reservation", strings.Join(names, ", "))
}
