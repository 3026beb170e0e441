package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utilqueue "sigs.k8s.io/kueue/pkg/util/queue"
	"sigs.k8s.io/kueue/pkg/util/resource"
	"sigs.k8s.io/kueue/pkg/util/routine"
	"sigs.k8s.io/kueue/pkg/workload"
)

// Stop says why a run ended.
const (
	StopSettled = "settled"     // no ClusterQueue has a workload to try (all pending ones are inadmissible)
	StopStalled = "stalled"     // cycles change nothing: the same heads fail again and again
	StopLoop    = "loop"        // the admitted workloads came back to an earlier state (preemptions in a loop)
	StopLimit   = "cycle limit" // the bound on cycles was reached
)

// Result of a run.
type Result struct {
	Cycles int
	Stop   string
	// Loop: the workloads admitted in the state the run came back to (StopLoop).
	Loop []string
	// Initial: every Workload when the run started (after Kueue's controllers met them).
	Initial map[types.NamespacedName]*kueue.Workload
	// Final: every Workload when it ended.
	Final map[types.NamespacedName]*kueue.Workload
	// AdmittedAt, EvictedAt: the cycle of a workload's last admission (quota reservation) and
	// eviction; TriedAt: the last cycle in which it was a head and not admitted.
	AdmittedAt, EvictedAt, TriedAt map[types.NamespacedName]int
	// EvictedFrom: the ClusterQueue a workload was evicted from.
	EvictedFrom map[types.NamespacedName]kueue.ClusterQueueReference
	// Evictions: every eviction of the run in order, with the Preempted condition it wrote (a
	// victim admitted again and evicted by another preemptor has one per eviction; the end
	// state keeps only the last condition).
	Evictions []Eviction
	// SchedulingCPU is the process CPU time spent in scheduling cycles and in the controllers
	// between them (loading not included).
	SchedulingCPU time.Duration
	Notes         []string
}

// Eviction is one workload evicted in a cycle, from a ClusterQueue, and the Preempted condition
// its preemptor wrote (nil when it was evicted for another reason).
type Eviction struct {
	Cycle     int
	Workload  types.NamespacedName
	From      kueue.ClusterQueueReference
	Preempted *metav1.Condition
}

// Run schedules until nothing changes.
func (c *Cluster) Run() (*Result, error) {
	r := &Result{
		AdmittedAt:  map[types.NamespacedName]int{},
		EvictedAt:   map[types.NamespacedName]int{},
		TriedAt:     map[types.NamespacedName]int{},
		EvictedFrom: map[types.NamespacedName]kueue.ClusterQueueReference{},
		Notes:       c.notes,
	}
	var err error
	if r.Initial, err = c.list(); err != nil {
		return nil, err
	}
	limit := c.opts.MaxCycles
	if limit <= 0 {
		limit = 50 + 10*len(r.Initial)
	}
	phases := map[types.NamespacedName]phase{}
	for k, wl := range r.Initial {
		phases[k] = phaseOf(wl)
	}
	queues := c.queueState()
	states := map[string]int{stateOf(phases) + "\n" + queues + "\n" + c.afsState() + "\n\n" + c.timers.state(): 0}
	still := 0
	waited := map[string]time.Time{}              // the states in which the run, changing nothing, waited for a second pass: when the last timer pending then was due
	messages := map[types.NamespacedName]string{} // the Pending message each head tried last had
	rests := map[string]bool{}                    // the states in which held-back reservations were given back (takeback.go)
	r.Stop = StopLimit
	for cycle := 1; cycle <= limit; cycle++ {
		// the workload controller's timers the clock has passed (requeue.go): their changes come in
		// before the cycle, as a reservation given back does
		released := c.fireRequeues()
		if len(c.heldBack) > 0 && !c.hasHeads() {
			// No head left: the workload controller's answer to the reservations held back comes now.
			// In a state met here before, the run would repeat from here on.
			rest := stateOf(phases) + "\n" + c.queueState() + "\n" + c.afsState()
			if rests[rest] {
				r.Stop = StopSettled
				r.Notes = append(r.Notes, c.takenBackNote(sortedKeys(c.heldBack)))
				break
			}
			rests[rest] = true
			start := cpuTime()
			released = append(released, c.releaseHeldBack()...)
			r.SchedulingCPU += cpuTime() - start
		}
		if !c.hasHeads() {
			if c.queues.OracleSecondPassWaiting() {
				// A second pass that found no room waits out its backoff (2 s, 4 s, ... 30 s): time
				// goes on, a second a cycle, with nothing to schedule (Heads would block). Such a
				// cycle counts neither as a cycle that changed nothing nor toward stopping: a pass
				// that fails again is one (`still`), so one that can never succeed is given up.
				r.Cycles = cycle
				c.clock.Step(time.Second)
				continue
			}
			if more, err := c.reconcileJobs(); err != nil {
				return nil, err
			} else if len(more) > 0 {
				c.update(phases, more) // the reconcilers' answer came late, and frees what a failed start held
				continue
			}
			r.Stop = StopSettled
			break
		}
		r.Cycles = cycle
		start := cpuTime()
		tried := c.scheduleOnce()
		c.holdBack()
		changed := append(released, c.deliver()...)
		if every := c.opts.ReconcileEvery; every > 0 && cycle%every == 0 {
			more, err := c.reconcileJobs()
			if err != nil {
				return nil, err
			}
			changed = append(changed, more...)
		}
		c.requeuer.ProcessRequeues(c.ctx)
		r.SchedulingCPU += cpuTime() - start
		c.clock.Step(time.Second)

		moved := false
		var evicted []string // this cycle's victims
		for _, key := range changed {
			var wl kueue.Workload
			p := phase{}
			if err := c.cl.Get(c.ctx, key, &wl); err == nil {
				p = phaseOf(&wl)
			}
			old := phases[key]
			if p.reserved && (!old.reserved || p.clusterQueue != old.clusterQueue) {
				r.AdmittedAt[key] = cycle
				moved = true
			}
			if p.evicted && !old.evicted {
				evicted = append(evicted, key.String())
				r.EvictedAt[key] = cycle
				r.EvictedFrom[key] = old.clusterQueue
				e := Eviction{Cycle: cycle, Workload: key, From: old.clusterQueue}
				if cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPreempted); cond != nil && cond.Status == metav1.ConditionTrue {
					e.Preempted = cond.DeepCopy()
				}
				r.Evictions = append(r.Evictions, e)
				moved = true
			}
			if p.reserved != old.reserved || (p.reserved && p.assignment != old.assignment) {
				moved = true // (a second pass placing delayed pod sets changes the assignment)
			}
			phases[key] = p
		}
		retried := false
		for _, key := range tried {
			if !phases[key].reserved {
				r.TriedAt[key] = cycle
			}
			m := c.pendingMessage(key)
			if old, ok := messages[key]; ok && old != m {
				retried = true
			}
			messages[key] = m
		}
		// A state is the admitted workloads, what the queues hold, the LocalQueues' admission
		// fair sharing usage and the workloads evicted in the cycle: the same admitted set is not
		// a loop when other workloads are queued or set aside, nor when a preemptor's victims have
		// just gone (it is admitted next, and the run goes on; Kueue keeps it at its queue's head,
		// which the queues' dump doesn't show), nor when an admission's entry penalty changed the
		// order of a queue under admission fair sharing (a loop there grows the penalties in
		// every period and runs to the cycle bound), nor when the queue manager's timers differ (a
		// second pass to come, with its backoff: timers.go).
		q := c.queueState()
		sort.Strings(evicted)
		state := stateOf(phases) + "\n" + q + "\n" + c.afsState() + "\n" + strings.Join(evicted, ",") + "\n" + c.timers.state()
		if first, seen := states[state]; seen && moved && first < cycle-1 && len(released) == 0 {
			r.Stop = StopLoop
			r.Loop = reservedKeys(phases)
			break
		}
		states[state] = cycle
		c.log.V(1).Info("oracle cycle", "cycle", cycle, "moved", moved, "queues", q, "timers", c.timers.state(), "secondPassWaiting", c.queues.OracleSecondPassWaiting())
		if !moved && q == queues && !retried {
			still++
		} else {
			still = 0
		}
		// A head whose flavors are not all tried yet (pending flavors) stays in its heap and
		// tries the next flavor in the next cycle: only after that many unchanged cycles is
		// nothing going to change. A head whose Pending message changed starts its flavors
		// again (the status update replaces its queue entry, and LastTriedFlavorIdx with it), so
		// such a cycle is not unchanged: a multi-pod-set head whose message varies with Go's map
		// order can take 10 cycles to be set aside, and the workloads behind it are tried then.
		if still > c.flavors+1 {
			if more, err := c.reconcileJobs(); err != nil {
				return nil, err
			} else if len(more) > 0 {
				c.update(phases, more)
				still = 0
				queues = c.queueState()
				continue
			}
			// A workload queued for its second pass is tried in the next cycle, and one prequeued
			// (its backoff not over) when its timer fires, however long the heads before it go on
			// failing: Kueue's clock runs on to it, so the run's clock is set to the soonest timer
			// and the run goes on. Back in a state it waited in before, with its timers at the same
			// backoff steps, once every timer pending then has fired, each pass was put off or
			// failed again and nothing will change.
			key := stateOf(phases) + "\n" + q + "\n" + c.afsState() + "\n" + c.timers.delays()
			if due, seen := waited[key]; c.queues.OracleSecondPassWaiting() && (!seen || c.clock.Now().Before(due)) {
				if !seen {
					waited[key] = c.timers.last()
				}
				if at, ok := c.timers.next(); ok && !c.queues.OracleSecondPassQueued() {
					c.log.V(1).Info("oracle waits for a second pass", "cycle", cycle, "until", at)
					c.clock.SetTime(at)
				}
				still = 0
				queues = q
				continue
			}
			r.Stop = StopStalled
			break
		}
		queues = q
	}
	if r.Final, err = c.list(); err != nil {
		return nil, err
	}
	return r, nil
}

// reconcileJobs runs the job reconcilers again (Options.ReconcileEvery > 0) and delivers what they changed
// to the workload controller: a job whose Workload the run admitted is started, and where the start fails for
// good its Workload is finished (FailedToStart) and gives its quota back. In a cluster the job reconciler and
// the scheduler run concurrently: its answer lands after one cycle or several (the option's period), and at the
// latest before the run would stop, so a run never ends with a start not tried. It returns the Workloads
// changed (none: the option is off, or nothing was left to start).
func (c *Cluster) reconcileJobs() ([]types.NamespacedName, error) {
	if c.opts.ReconcileJobs == nil || c.opts.ReconcileEvery <= 0 {
		return nil, nil
	}
	if err := c.opts.ReconcileJobs(c.ctx); err != nil {
		return nil, fmt.Errorf("reconciling the jobs again: %w", err)
	}
	changed := c.deliver()
	c.requeuer.ProcessRequeues(c.ctx)
	return changed, nil
}

// update reads the phases of the changed Workloads again.
func (c *Cluster) update(phases map[types.NamespacedName]phase, changed []types.NamespacedName) {
	for _, key := range changed {
		var wl kueue.Workload
		p := phase{}
		if err := c.cl.Get(c.ctx, key, &wl); err == nil {
			p = phaseOf(&wl)
		}
		phases[key] = p
	}
}

// scheduleOnce runs one scheduling cycle and waits for its admissions to be written; it
// returns the workloads the cycle tried and did not admit (its Pending events).
func (c *Cluster) scheduleOnce() []types.NamespacedName {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	go c.queues.CleanUpOnContext(ctx)
	var wg sync.WaitGroup
	c.sched.OracleSetAdmissionRoutineWrapper(routine.NewWrapper(func() { wg.Add(1) }, func() { wg.Done() }))
	c.recorder.take()
	c.sched.OracleSchedule(ctx)
	wg.Wait()
	return c.recorder.take()
}

// hasHeads says whether an active ClusterQueue holds a workload to try, or a workload holding
// quota is queued for its second pass (Heads would block otherwise). A workload whose topology
// placement was delayed (a provisioning check, all checks Ready) is queued a second after its
// reservation, so the next cycle places it, as a running Kueue does a second later; the run does
// not stop before it (tests/oracle/features/admission-check-ready-second-pass-places-it.yaml).
func (c *Cluster) hasHeads() bool {
	if c.queues.OracleSecondPassQueued() {
		return true
	}
	for cq, items := range c.queues.Dump() {
		if len(items) > 0 && c.cache.ClusterQueueActive(cq) {
			return true
		}
	}
	return false
}

// pendingMessage is the message of the workload's QuotaReserved=False condition ("" without one).
func (c *Cluster) pendingMessage(key types.NamespacedName) string {
	var wl kueue.Workload
	if err := c.cl.Get(c.ctx, key, &wl); err != nil {
		return ""
	}
	if cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); cond != nil && cond.Status == metav1.ConditionFalse {
		return cond.Message
	}
	return ""
}

// queueState is the queue manager's content, pending and inadmissible, as text.
func (c *Cluster) queueState() string {
	var b strings.Builder
	for _, dump := range []map[kueue.ClusterQueueReference][]workload.Reference{c.queues.Dump(), c.queues.DumpInadmissible()} {
		cqs := make([]string, 0, len(dump))
		for cq := range dump {
			cqs = append(cqs, string(cq))
		}
		sort.Strings(cqs)
		for _, cq := range cqs {
			items := make([]string, 0, len(dump[kueue.ClusterQueueReference(cq)]))
			for _, w := range dump[kueue.ClusterQueueReference(cq)] {
				items = append(items, string(w))
			}
			sort.Strings(items)
			fmt.Fprintf(&b, "%s:%s;", cq, strings.Join(items, ","))
		}
		b.WriteString("|")
	}
	return b.String()
}

// afsState is, for each LocalQueue whose ClusterQueue orders by admission fair sharing, what its
// usage is computed from (workload.CalcLocalQueueFSUsage): the consumed resources and the entry
// penalties the scheduler added on each admission, as text.
func (c *Cluster) afsState() string {
	var b strings.Builder
	for _, lq := range c.afsQueues {
		key := utilqueue.Key(lq)
		total := c.queues.AfsEntryPenalties.Peek(key)
		if entry, found := c.queues.AfsConsumedResources.Get(key); found {
			total = resource.MergeResourceListKeepSum(entry.Resources, total)
		}
		names := make([]string, 0, len(total))
		for r := range total {
			names = append(names, string(r))
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "%s:", key)
		for _, r := range names {
			v := total[corev1.ResourceName(r)]
			fmt.Fprintf(&b, "%s=%s,", r, v.String())
		}
		b.WriteString(";")
	}
	return b.String()
}

func (c *Cluster) list() (map[types.NamespacedName]*kueue.Workload, error) {
	var list kueue.WorkloadList
	if err := c.cl.List(c.ctx, &list); err != nil {
		return nil, err
	}
	out := make(map[types.NamespacedName]*kueue.Workload, len(list.Items))
	for i := range list.Items {
		out[client.ObjectKeyFromObject(&list.Items[i])] = &list.Items[i]
	}
	return out, nil
}

// Client is the fake client, for reading the objects at the end.
func (c *Cluster) Client() client.Client { return c.cl }

// phase is what a run tracks of a workload.
type phase struct {
	reserved     bool
	evicted      bool
	clusterQueue kueue.ClusterQueueReference
	assignment   string
	// checks: the states of its admission checks while it holds quota. A workload evicted and
	// reserved again has them back to Pending (the eviction resets them), so the state it comes
	// back to is not the one it left: a delayed-topology head that preempted it is placed in its
	// next second pass, while the victim waits for its checks (the run went on to that; it was
	// stopped as a loop when the reserved set alone repeated)
	checks string
}

func phaseOf(wl *kueue.Workload) phase {
	p := phase{reserved: workload.HasQuotaReservation(wl)}
	if cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); cond != nil && cond.Status == metav1.ConditionTrue {
		p.evicted = true
	}
	if p.reserved && wl.Status.Admission != nil {
		p.clusterQueue = wl.Status.Admission.ClusterQueue
		var b strings.Builder
		for _, psa := range wl.Status.Admission.PodSetAssignments {
			fmt.Fprintf(&b, "%s:%d:%v:%t;", psa.Name, ptrValue(psa.Count), psa.Flavors, psa.TopologyAssignment != nil)
		}
		p.assignment = b.String()
		states := make([]string, 0, len(wl.Status.AdmissionChecks))
		for _, ac := range wl.Status.AdmissionChecks {
			states = append(states, fmt.Sprintf("%s=%s", ac.Name, ac.State))
		}
		sort.Strings(states)
		p.checks = strings.Join(states, ",")
	}
	return p
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// stateOf is the admitted workloads with their assignments and check states, as text.
func stateOf(phases map[types.NamespacedName]phase) string {
	keys := make([]string, 0)
	for k, p := range phases {
		if p.reserved {
			keys = append(keys, fmt.Sprintf("%s=%s/%s[%s]", k, p.clusterQueue, p.assignment, p.checks))
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

func sortedKeys(set map[types.NamespacedName]bool) []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

func reservedKeys(phases map[types.NamespacedName]phase) []string {
	var keys []string
	for k, p := range phases {
		if p.reserved {
			keys = append(keys, k.String())
		}
	}
	sort.Strings(keys)
	return keys
}

// cpuTime is the process's CPU time (user and system) so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pendingRecorder is the event recorder Kueue's code writes to: it keeps only which workloads a
// cycle tried without admitting them (the scheduler's "Pending" events).
type pendingRecorder struct {
	mu      sync.Mutex
	pending map[types.NamespacedName]bool
}

func (p *pendingRecorder) Event(object runtime.Object, eventType, reason, message string) {
	p.note(object, reason)
}

func (p *pendingRecorder) Eventf(object runtime.Object, eventType, reason, messageFmt string, args ...any) {
	p.note(object, reason)
}

func (p *pendingRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventType, reason, messageFmt string, args ...any) {
	p.note(object, reason)
}

func (p *pendingRecorder) note(object runtime.Object, reason string) {
	if reason != "Pending" {
		return
	}
	o, ok := object.(client.Object)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[types.NamespacedName]bool{}
	}
	p.pending[client.ObjectKeyFromObject(o)] = true
}

func (p *pendingRecorder) take() []types.NamespacedName {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(p.pending))
	for k := range p.pending {
		out = append(out, k)
	}
	p.pending = nil
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
