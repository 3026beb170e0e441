package cluster

import (
	"context"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/constants"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/kueue/pkg/workload"
)

// watch stands in for the informers of a Kueue manager: it notes every Workload written through
// the client, and delivers the changes to Kueue's workload controller as the events an informer
// would (create, update with the object before and after, delete), then reconciles what the
// events enqueued. Between scheduling cycles the oracle delivers until nothing changes: every
// controller has caught up before the next cycle starts.
type watch struct {
	mu    sync.Mutex
	dirty map[types.NamespacedName]bool
	seen  map[types.NamespacedName]*kueue.Workload // the informer's copy
}

func newWatch() *watch {
	return &watch{dirty: map[types.NamespacedName]bool{}, seen: map[types.NamespacedName]*kueue.Workload{}}
}

func (w *watch) touch(obj client.Object) {
	if _, ok := obj.(*kueue.Workload); !ok {
		return
	}
	w.mu.Lock()
	w.dirty[client.ObjectKeyFromObject(obj)] = true
	w.mu.Unlock()
}

// take returns the keys written since the last call, sorted (the order events are delivered in
// is then the same from run to run).
func (w *watch) take() []types.NamespacedName {
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := make([]types.NamespacedName, 0, len(w.dirty))
	for k := range w.dirty {
		keys = append(keys, k)
	}
	clear(w.dirty)
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// peek returns the keys written since the last take, sorted, and leaves them to be taken.
func (w *watch) peek() []types.NamespacedName {
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := make([]types.NamespacedName, 0, len(w.dirty))
	for k := range w.dirty {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// interceptor records writes. Status patches are server-side applies in Kueue; the fake client
// treats them as strategic merges, as Kueue's own unit tests do (utiltesting.TreatSSAAsStrategicMerge).
func (w *watch) interceptor() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			err := c.Create(ctx, obj, opts...)
			if err == nil {
				w.touch(obj)
			}
			return err
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			err := c.Update(ctx, obj, opts...)
			if err == nil {
				w.touch(obj)
			}
			return err
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			err := c.Patch(ctx, obj, patch, opts...)
			if err == nil {
				w.touch(obj)
			}
			return err
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			err := c.Delete(ctx, obj, opts...)
			if err == nil {
				w.touch(obj)
			}
			return err
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			err := c.SubResource(sub).Update(ctx, obj, opts...)
			if err == nil {
				w.touch(obj)
			}
			return err
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			dropsRequeueAt := appliesWithoutRequeueAt(sub, obj, patch, opts)
			before := storedWorkload(ctx, c, obj)
			err := utiltesting.TreatSSAAsStrategicMerge(ctx, c, sub, obj, patch, opts...)
			if err == nil && dropsRequeueAt {
				err = clearRequeueAt(ctx, c, obj.(*kueue.Workload))
			}
			if err == nil && !unchanged(before, storedWorkload(ctx, c, obj)) {
				w.touch(obj)
			}
			return err
		},
	}
}

// storedWorkload is the Workload `obj` names as the client holds it, or nil (not a Workload, not
// found).
func storedWorkload(ctx context.Context, c client.Client, obj client.Object) *kueue.Workload {
	if _, ok := obj.(*kueue.Workload); !ok {
		return nil
	}
	var stored kueue.Workload
	if c.Get(ctx, client.ObjectKeyFromObject(obj), &stored) != nil {
		return nil
	}
	return &stored
}

// unchanged says whether a status patch left the stored Workload as it was but for its
// resourceVersion. An API server stores nothing for a patch (a server-side apply) that changes
// nothing: the resourceVersion stays and watchers get no event. The fake client writes it anyway
// with a new resourceVersion, which the watch would deliver as an update; the workload controller
// answers some updates with the same patch (a pending workload in a stopped queue), so the two
// would go on until deliver's bound on rounds, ~8 s of CPU for a few workloads.
func unchanged(before, after *kueue.Workload) bool {
	if before == nil || after == nil {
		return false
	}
	b, a := before.DeepCopy(), after.DeepCopy()
	b.ResourceVersion, a.ResourceVersion = "", ""
	b.ManagedFields, a.ManagedFields = nil, nil
	return equality.Semantic.DeepEqual(b, a)
}

// appliesWithoutRequeueAt says whether a status patch is a server-side apply of a Workload by Kueue's
// admission field manager (workload.PatchAdmissionStatus) that leaves status.requeueState.requeueAt
// out. A server-side apply removes the fields its manager owns and leaves out; the strategic merge
// that stands for it here keeps them. Kueue's admission manager writes requeueAt (UpdateRequeueState,
// SetRequeueState, through PatchAdmissionStatus) and drops it so once a backoff has elapsed (the
// workload controller's "Clear RequeueAt since backoff has elapsed"), which the merge would lose:
// the workload would then wait for a backoff already over. A Workload read from a cluster had its
// requeueAt written by that manager, so this is the field the apply removes.
func appliesWithoutRequeueAt(sub string, obj client.Object, patch client.Patch, opts []client.SubResourcePatchOption) bool {
	wl, ok := obj.(*kueue.Workload)
	if !ok || sub != "status" || patch.Type() != types.ApplyPatchType {
		return false
	}
	po := &client.SubResourcePatchOptions{}
	po.ApplyOptions(opts)
	if po.FieldManager != string(constants.AdmissionName) {
		return false
	}
	return wl.Status.RequeueState == nil || wl.Status.RequeueState.RequeueAt == nil
}

// clearRequeueAt removes a stored requeueAt an apply left out (see appliesWithoutRequeueAt), and
// gives `wl` the stored object.
func clearRequeueAt(ctx context.Context, c client.Client, wl *kueue.Workload) error {
	var stored kueue.Workload
	if err := c.Get(ctx, client.ObjectKeyFromObject(wl), &stored); err != nil {
		return err
	}
	if stored.Status.RequeueState == nil || stored.Status.RequeueState.RequeueAt == nil {
		return nil
	}
	stored.Status.RequeueState.RequeueAt = nil
	if err := c.Status().Update(ctx, &stored); err != nil {
		return err
	}
	stored.DeepCopyInto(wl)
	return nil
}

// deliver hands the Workload changes since the last delivery to Kueue's workload controller,
// runs what the jobs' reconcilers do for evicted workloads, and repeats until nothing changes.
// It returns the workloads that changed, in order.
func (c *Cluster) deliver() []types.NamespacedName {
	var changed []types.NamespacedName
	for round := 0; round < 1000; round++ {
		keys := c.watch.take()
		if len(keys) == 0 {
			return changed
		}
		changed = append(changed, keys...)
		for _, key := range keys {
			c.event(key)
		}
		for _, key := range keys {
			if c.heldBack[key] {
				continue // the controller's answer comes after the scheduler's next cycles (holdBack)
			}
			c.reconcile(key)
		}
		for _, key := range keys {
			c.stopEvictedJob(key)
		}
	}
	c.log.Info("the controllers did not settle after 1000 rounds of events")
	return changed
}

// event delivers one object's change as the informer would.
func (c *Cluster) event(key types.NamespacedName) {
	old := c.watch.seen[key]
	var cur kueue.Workload
	err := c.cl.Get(c.ctx, key, &cur)
	switch {
	case apierrors.IsNotFound(err):
		if old != nil {
			c.workloads.Delete(event.TypedDeleteEvent[*kueue.Workload]{Object: old})
			delete(c.watch.seen, key)
		}
		return
	case err != nil:
		c.log.Error(err, "reading a workload", "workload", key)
		return
	case old == nil:
		c.workloads.Create(event.TypedCreateEvent[*kueue.Workload]{Object: cur.DeepCopy()})
	case old.ResourceVersion != cur.ResourceVersion:
		c.workloads.Update(event.TypedUpdateEvent[*kueue.Workload]{ObjectOld: old, ObjectNew: cur.DeepCopy()})
	}
	c.watch.seen[key] = cur.DeepCopy()
}

// stopEvictedJob does what Kueue's job reconcilers do for a workload evicted while it holds
// quota, once its job has stopped (pkg/controller/jobframework/reconciler.go, "6. handle
// eviction": the Requeued condition, then UnsetQuotaReservationWithCondition). The oracle
// takes every evicted workload's job to stop before the next cycle, as kadmit does, whether or
// not the job is in the input (a Workload read from the cluster stands for its job).
//
// Kueue writes this with a server-side apply, which removes status.admission; the fake
// client's apply (a strategic merge) would keep it, so the status is written whole.
func (c *Cluster) stopEvictedJob(key types.NamespacedName) {
	if !c.opts.StopEvictedJobs {
		return
	}
	var wl kueue.Workload
	if err := c.cl.Get(c.ctx, key, &wl); err != nil {
		return
	}
	evCond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted)
	if evCond == nil || evCond.Status != metav1.ConditionTrue || !workload.HasQuotaReservation(&wl) {
		return
	}
	// The requeued condition status set to true only on EvictedByPreemption (as in jobframework).
	setRequeued := (evCond.Reason == kueue.WorkloadEvictedByPreemption) || (evCond.Reason == kueue.WorkloadEvictedDueToNodeFailures)
	workload.SetRequeuedCondition(&wl, evCond.Reason, evCond.Message, setRequeued)
	workload.UnsetQuotaReservationWithCondition(&wl, "Pending", evCond.Message, c.clock.Now())
	if err := c.cl.Status().Update(c.ctx, &wl); err != nil {
		c.log.Error(err, "clearing an evicted workload's admission", "workload", key)
	}
}
