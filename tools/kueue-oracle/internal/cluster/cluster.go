// Package cluster runs Kueue's scheduler in process, as Kueue's own scheduler unit tests drive
// it (pkg/scheduler/scheduler_test.go): a controller-runtime fake client holding the input's
// objects, the scheduler's cache (schdcache), the queue manager (qcache) with the unit tests'
// requeuer, Kueue's workload controller fed the events an informer would deliver, a fake clock,
// and scheduling cycles until nothing changes. Between cycles, evicted workloads release their
// quota as their jobs' reconcilers make them (see stopEvictedJob).
package cluster

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/admissionchecks/multikueue"
	"sigs.k8s.io/kueue/pkg/controller/admissionchecks/provisioning"
	"sigs.k8s.io/kueue/pkg/controller/core"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	tasindexer "sigs.k8s.io/kueue/pkg/controller/tas/indexer"
	"sigs.k8s.io/kueue/pkg/dra"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/scheduler"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	utilqueue "sigs.k8s.io/kueue/pkg/util/queue"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/server"
)

// Options of a run.
type Options struct {
	// Start is the fake clock's time when the run starts.
	Start time.Time
	// Seed permutes the order in which objects are added to Kueue's caches (0: by name).
	Seed int64
	// MaxCycles bounds the run (0: 50 + 10 per workload, as kadmit bounds its own).
	MaxCycles int
	// StopEvictedJobs: evicted workloads give back their quota before the next cycle, as their
	// jobs' reconcilers make them (see stopEvictedJob).
	StopEvictedJobs bool
	// Indexes registers more field indexes on the fake client (the job integrations').
	Indexes func(ctx context.Context, ix client.FieldIndexer) error
	// Convert turns the input's jobs into Workloads, given the client holding every other
	// object (the job integrations' webhooks and reconcilers).
	Convert func(ctx context.Context, cl client.Client, clk clock.Clock) ([]*kueue.Workload, error)
	// ReconcileJobs runs the job reconcilers over the jobs Convert was given again; ReconcileEvery > 0
	// calls it after every ReconcileEvery-th cycle, and once more before the run would stop (see
	// reconcileJobs). 0: the jobs are reconciled only before the first cycle.
	ReconcileJobs  func(ctx context.Context) error
	ReconcileEvery int
	// ReconcilePriorityClasses runs Kueue's WorkloadPriorityClass controller over every WorkloadPriorityClass
	// before the first cycle, as a Kueue starting over this state does (its informer's create events): each
	// Workload naming the class gets its value as spec.priority. Off: a running Kueue, whose controller met the
	// classes before these Workloads were created, and leaves them as they are.
	ReconcilePriorityClasses bool
	// Log receives Kueue's own logs.
	Log logr.Logger
	// CRDs checks and defaults writes of Kueue's kinds as an API server does (nil: none).
	CRDs *objects.Defaulter
}

type requeuer interface {
	ProcessRequeues(ctx context.Context) int
}

// Cluster is Kueue's scheduler and the controllers it needs, over one input.
type Cluster struct {
	ctx       context.Context
	log       logr.Logger
	opts      Options
	cfg       *configapi.Configuration
	cl        client.Client
	cache     *schdcache.Cache
	queues    *qcache.Manager
	requeuer  requeuer
	sched     *scheduler.Scheduler
	workloads *core.WorkloadReconciler
	clock     *clocktesting.FakeClock
	timers    *timedClock // the clock as the queue manager has it: the timers it sets (timers.go)
	watch     *watch
	recorder  *pendingRecorder
	notes     []string
	flavors   int // how many ResourceFlavors: bounds the cycles a head tries flavors in
	// afsQueues: the LocalQueues whose ClusterQueue orders by admission fair sharing, sorted
	// (their usage is part of a run's state; see afsState)
	afsQueues []*kueue.LocalQueue
	// heldBack: reservations the workload controller takes back at once (their LocalQueue is being
	// deleted), whose Reconcile waits until the scheduler has no head left to try (see holdBack)
	heldBack map[types.NamespacedName]bool
	// requeues: when the workload controller asked to reconcile a Workload again (its RequeueAfter:
	// requeue.go)
	requeues map[types.NamespacedName]time.Time
}

// New puts the objects in a fake client and sets Kueue's caches up from them, in the order of
// TestSchedule and the TAS tests (scheduler_test.go, scheduler_tas_test.go).
func New(ctx context.Context, scheme *runtime.Scheme, objs []client.Object, cfg *configapi.Configuration, opts Options) (*Cluster, error) {
	c := &Cluster{log: opts.Log, opts: opts, cfg: cfg, clock: clocktesting.NewFakeClock(opts.Start), watch: newWatch(), recorder: &pendingRecorder{},
		heldBack: map[types.NamespacedName]bool{}, requeues: map[types.NamespacedName]time.Time{}}
	c.timers = &timedClock{FakeClock: c.clock}
	c.ctx = ctrl.LoggerInto(ctx, opts.Log)
	ctx = c.ctx

	// The plain object tracker: the field-managed one (controller-runtime's default) builds a
	// REST mapper of the whole scheme on every patch, and server-side applies reach the client
	// as strategic merges here anyway (see watch.interceptor).
	tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	// Kueue's kinds written as an API server takes them: their CRDs' defaults, schemas and
	// validation rules (objects.Intercept); a refused patch is undone in the tracker.
	restore := func(gvr schema.GroupVersionResource, obj client.Object) error {
		return tracker.Update(gvr, obj, obj.GetNamespace())
	}
	builder := fake.NewClientBuilder().WithScheme(scheme).WithObjectTracker(tracker).
		WithObjects(held(withoutWorkloads(objs))...).
		WithStatusSubresource(&kueue.Workload{}, &kueue.ClusterQueue{}, &kueue.LocalQueue{}, &kueue.Cohort{}, &kueue.AdmissionCheck{}).
		WithInterceptorFuncs(opts.CRDs.Intercept(scheme, c.watch.interceptor(), restore))
	ix := &onceIndexer{FieldIndexer: utiltesting.AsIndexer(builder), seen: map[string]bool{}}
	// The indexes Kueue's manager sets up (cmd/kueue/main.go, setupIndexes).
	if err := indexer.Setup(ctx, ix); err != nil {
		return nil, err
	}
	if features.Enabled(features.TopologyAwareScheduling) {
		if err := tasindexer.SetupIndexes(ctx, ix); err != nil {
			return nil, err
		}
	}
	if opts.Indexes != nil {
		if err := opts.Indexes(ctx, ix); err != nil {
			return nil, err
		}
	}
	c.cl = builder.Build()
	recorder := c.recorder
	store := preemptexpectations.New()
	cacheOpts, queueOpts, err := c.options()
	if err != nil {
		return nil, err
	}
	c.cache = schdcache.New(c.cl, cacheOpts...)
	queueOpts = append(queueOpts, qcache.WithClock(c.timers), qcache.WithPreemptionExpectations(store))
	c.queues, c.requeuer = qcache.NewManagerForUnitTestsWithRequeuer(c.cl, c.cache, queueOpts...)
	c.sched = scheduler.New(c.queues, c.cache, c.cl, recorder,
		scheduler.WithPodsReadyRequeuingTimestamp(podsReadyRequeuingTimestamp(cfg)),
		scheduler.WithFairSharing(cfg.FairSharing),
		scheduler.WithAdmissionFairSharing(cfg.AdmissionFairSharing),
		scheduler.WithClock(nil, c.clock),
		scheduler.WithPreemptionExpectations(store))
	c.workloads = core.NewWorkloadReconciler(c.cl, c.queues, c.cache, recorder, core.WithPreemptionExpectations(store))
	c.workloads.OracleSetClock(c.clock)

	if err := c.load(objs); err != nil {
		return nil, err
	}
	return c, nil
}

// options are the cache's and the queue manager's options from the Configuration, as Kueue's
// manager sets them (cmd/kueue/main.go).
func (c *Cluster) options() ([]schdcache.Option, []qcache.Option, error) {
	cfg := c.cfg
	var cacheOpts []schdcache.Option
	queueOpts := []qcache.Option{qcache.WithPodsReadyRequeuingTimestamp(podsReadyRequeuingTimestamp(cfg))}
	if cfg.WaitForPodsReady != nil {
		c.notes = append(c.notes, "waitForPodsReady is not modelled: no pod starts in the oracle, so admission is not blocked on PodsReady")
	}
	if cfg.Resources != nil && len(cfg.Resources.ExcludeResourcePrefixes) > 0 {
		cacheOpts = append(cacheOpts, schdcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
		queueOpts = append(queueOpts, qcache.WithExcludedResourcePrefixes(cfg.Resources.ExcludeResourcePrefixes))
	}
	if cfg.Resources != nil && len(cfg.Resources.Transformations) > 0 {
		cacheOpts = append(cacheOpts, schdcache.WithResourceTransformations(cfg.Resources.Transformations))
		queueOpts = append(queueOpts, qcache.WithResourceTransformations(cfg.Resources.Transformations))
	}
	if features.Enabled(features.DynamicResourceAllocation) && cfg.Resources != nil && len(cfg.Resources.DeviceClassMappings) > 0 {
		if err := dra.CreateMapperFromConfiguration(cfg.Resources.DeviceClassMappings); err != nil {
			return nil, nil, fmt.Errorf("the Configuration's deviceClassMappings: %w", err)
		}
	}
	if cfg.FairSharing != nil {
		cacheOpts = append(cacheOpts, schdcache.WithFairSharing(true))
	}
	if cfg.AdmissionFairSharing != nil {
		queueOpts = append(queueOpts, qcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
		cacheOpts = append(cacheOpts, schdcache.WithAdmissionFairSharing(cfg.AdmissionFairSharing))
	}
	return cacheOpts, queueOpts, nil
}

// podsReadyRequeuingTimestamp is cmd/kueue/main.go's.
func podsReadyRequeuingTimestamp(cfg *configapi.Configuration) configapi.RequeuingTimestamp {
	wfpr := cfg.WaitForPodsReady
	if wfpr != nil && wfpr.RequeuingStrategy != nil && wfpr.RequeuingStrategy.Timestamp != nil {
		return *wfpr.RequeuingStrategy.Timestamp
	}
	return configapi.EvictionTimestamp
}

// load adds the objects to Kueue's caches as its controllers do when they start.
func (c *Cluster) load(objs []client.Object) error {
	ctx, log := c.ctx, c.log
	var (
		flavors    []*kueue.ResourceFlavor
		topologies []*kueue.Topology
		cohorts    []*kueue.Cohort
		cqs        []*kueue.ClusterQueue
		lqs        []*kueue.LocalQueue
		nodes      []*corev1.Node
		pods       []*corev1.Pod
		checks     []*kueue.AdmissionCheck
		wls        []*kueue.Workload
	)
	for _, o := range objs {
		switch o := o.(type) {
		case *kueue.ResourceFlavor:
			flavors = append(flavors, o)
		case *kueue.Topology:
			topologies = append(topologies, o)
		case *kueue.Cohort:
			cohorts = append(cohorts, o)
		case *kueue.ClusterQueue:
			cqs = append(cqs, o)
		case *kueue.LocalQueue:
			lqs = append(lqs, o)
		case *kueue.AdmissionCheck:
			checks = append(checks, o)
		case *kueue.Workload:
			wls = append(wls, o)
		case *corev1.Node:
			nodes = append(nodes, o)
		case *corev1.Pod:
			pods = append(pods, o)
		}
	}
	order(c.opts.Seed, flavors, topologies, cohorts, cqs, lqs, nodes, pods, checks, wls)

	if features.Enabled(features.TopologyAwareScheduling) {
		for _, n := range nodes {
			c.cache.TASCache().SyncNode(n)
		}
	}
	checks, err := c.activateChecks(checks)
	if err != nil {
		return err
	}
	for _, ac := range checks {
		c.cache.AddOrUpdateAdmissionCheck(log, ac)
	}
	for _, rf := range flavors {
		c.cache.AddOrUpdateResourceFlavor(log, rf)
	}
	c.flavors = len(flavors)
	if features.Enabled(features.TopologyAwareScheduling) {
		for _, t := range topologies {
			c.cache.AddOrUpdateTopology(log, t)
		}
	}
	for _, co := range cohorts {
		if err := c.cache.AddOrUpdateCohort(co); err != nil {
			c.notes = append(c.notes, fmt.Sprintf("Cohort %s: %v", co.Name, err))
		}
		c.queues.AddOrUpdateCohort(ctx, co)
	}
	for _, cq := range cqs {
		if err := c.cache.AddClusterQueue(ctx, cq); err != nil {
			c.notes = append(c.notes, fmt.Sprintf("ClusterQueue %s: %v", cq.Name, err))
		}
		if !cq.DeletionTimestamp.IsZero() {
			// What ClusterQueueReconciler.Reconcile does for one being deleted (a finalizer holds it):
			// the cache marks it terminating, so it is inactive and admits no new workload.
			c.cache.TerminateClusterQueue(kueue.ClusterQueueReference(cq.Name))
		}
		if err := c.queues.AddClusterQueue(ctx, cq); err != nil {
			c.notes = append(c.notes, fmt.Sprintf("ClusterQueue %s: %v", cq.Name, err))
		}
	}
	// Kueue's queue ClusterQueues compare requeueAt with the real clock (newClusterQueue), the rest of
	// Kueue with the one it is given: in a live Kueue both are the real clock, here both the run's.
	c.queues.OracleSetClusterQueueClock(c.clock)
	for _, lq := range lqs {
		// A stopped LocalQueue (stopPolicy Hold or HoldAndDrain) is not added to the queueing
		// system, as LocalQueueReconciler.Create adds only queues whose stopPolicy is None: its
		// workloads are never queued, and the workload controller marks them inadmissible.
		if ptr.Deref(lq.Spec.StopPolicy, kueue.None) == kueue.None {
			if err := c.queues.AddLocalQueue(ctx, lq); err != nil {
				c.notes = append(c.notes, fmt.Sprintf("LocalQueue %s/%s: %v", lq.Namespace, lq.Name, err))
			}
		}
		// The cache lists a ClusterQueue's LocalQueues when the queue is added; those added to
		// it already report so, harmlessly.
		_ = c.cache.AddLocalQueue(lq)
		c.loadAfsUsage(lq)
		if c.cfg.AdmissionFairSharing != nil && c.cache.ClusterQueueUsesAdmissionFairSharing(lq.Spec.ClusterQueue) {
			c.afsQueues = append(c.afsQueues, lq)
		}
	}
	sort.Slice(c.afsQueues, func(i, j int) bool { return utilqueue.Key(c.afsQueues[i]) < utilqueue.Key(c.afsQueues[j]) })
	if features.Enabled(features.TopologyAwareScheduling) {
		for _, p := range pods {
			// The non-TAS usage controller's filter (pkg/controller/tas/non_tas_usage_controller.go):
			// pods bound to a node that Kueue's TAS did not place.
			if !utiltas.IsTAS(p) && p.Spec.NodeName != "" {
				c.cache.TASCache().Update(p, log)
			}
		}
	}
	// The Workloads arrive once the queues exist, as they would in a running cluster: the workload
	// controller meets each (its create event) and puts it in the queues or, holding quota, in the
	// cache. (Listing them for each queue added, as TestSchedule's setup does, costs the fake
	// client a copy of every Workload per queue.)
	// A Workload's namespace exists in any cluster that holds it (the API server's NamespaceLifecycle
	// admission refuses objects in a namespace that does not): one the input does not list is made as
	// the API server keeps it, labelled kubernetes.io/metadata.name alone, as kadmit reads it (and as the
	// job conversion makes a job's). Without it the scheduler's namespaceSelector check found no
	// Namespace ("Could not obtain workload namespace") where a cluster has one.
	for _, wl := range wls {
		if err := c.ensureNamespace(ctx, wl.Namespace); err != nil {
			return fmt.Errorf("Workload %s/%s: its namespace: %w", wl.Namespace, wl.Name, err)
		}
	}
	for _, wl := range wls {
		obj := wl.DeepCopy()
		obj.DeletionTimestamp = nil
		// the input's state, as the cluster holds it (not a request: the input is read unvalidated)
		if err := c.cl.Create(server.Stamping(ctx), obj); err != nil {
			return fmt.Errorf("Workload %s/%s: %w", wl.Namespace, wl.Name, err)
		}
		if !wl.DeletionTimestamp.IsZero() {
			if err := c.deleting(obj); err != nil {
				return fmt.Errorf("Workload %s/%s: putting it in deletion: %w", wl.Namespace, wl.Name, err)
			}
		}
	}
	if c.opts.Convert != nil {
		// Kueue's workload controller meets the input's Workloads before the job reconcilers do: it
		// sets the Admitted condition of one holding quota with every check Ready (SyncAdmittedCondition),
		// which a job reconciler then starts (startJob), or finishes where the start fails for good.
		c.deliver()
		made, err := c.opts.Convert(ctx, c.cl, c.clock)
		if err != nil {
			return fmt.Errorf("converting jobs: %w", err)
		}
		if err := c.addWorkloads(made); err != nil {
			return err
		}
	}
	c.deliver()
	if c.opts.ReconcilePriorityClasses {
		if err := c.reconcilePriorityClasses(); err != nil {
			return err
		}
	}
	// Adding queues and cohorts asked the requeuer to retry their inadmissible workloads; a
	// running manager's requeuer does so before any workload was tried.
	c.requeuer.ProcessRequeues(ctx)
	return nil
}

// activateChecks runs Kueue's built-in AdmissionCheck reconcilers over the checks, as a running
// Kueue does: the provisioning controller's (a check of `kueue.x-k8s.io/provisioning-request` is
// Active when its parameters name a ProvisioningRequestConfig that exists; the oracle takes the
// cluster's ProvisioningRequest CRD, which Kueue needs to run that controller, as installed) and,
// under the MultiKueue gate, MultiKueue's (a MultiKueueConfig that exists, not every cluster of it
// missing or inactive: a MultiKueueCluster's own Active condition is taken as given, since Kueue sets
// it by connecting to the worker cluster). Another controller's check keeps the status given. It
// returns the checks as the reconcilers left them.
func (c *Cluster) activateChecks(checks []*kueue.AdmissionCheck) ([]*kueue.AdmissionCheck, error) {
	if len(checks) == 0 {
		return checks, nil
	}
	prov, err := provisioning.OracleACReconciler(c.cl)
	if err != nil {
		return nil, err
	}
	reconcilers := []reconcile.Reconciler{prov}
	if features.Enabled(features.MultiKueue) {
		mk, err := multikueue.OracleACReconciler(c.cl)
		if err != nil {
			return nil, err
		}
		reconcilers = append(reconcilers, mk)
	}
	out := make([]*kueue.AdmissionCheck, 0, len(checks))
	for _, ac := range checks {
		req := reconcile.Request{NamespacedName: types.NamespacedName{Name: ac.Name}}
		for _, r := range reconcilers {
			if _, err := r.Reconcile(c.ctx, req); err != nil {
				return nil, fmt.Errorf("AdmissionCheck %s: %w", ac.Name, err)
			}
		}
		var now kueue.AdmissionCheck
		if err := c.cl.Get(c.ctx, req.NamespacedName, &now); err != nil {
			return nil, fmt.Errorf("AdmissionCheck %s: %w", ac.Name, err)
		}
		out = append(out, &now)
	}
	return out, nil
}

// loadAfsUsage gives admission fair sharing the LocalQueue's consumed resources from its
// status, as scheduler_afs_test.go sets them (AfsConsumedResources.Set).
func (c *Cluster) loadAfsUsage(lq *kueue.LocalQueue) {
	if c.cfg.AdmissionFairSharing == nil || lq.Status.FairSharing == nil || lq.Status.FairSharing.AdmissionFairSharingStatus == nil {
		return
	}
	st := lq.Status.FairSharing.AdmissionFairSharingStatus
	c.queues.AfsConsumedResources.Set(utilqueue.Key(lq), st.ConsumedResources, st.LastUpdate.Time)
}

// order sorts each list by name, or permutes it with the seed.
func order(seed int64, lists ...any) {
	var rng *rand.Rand
	if seed != 0 {
		rng = rand.New(rand.NewSource(seed))
	}
	for _, l := range lists {
		switch l := l.(type) {
		case []*kueue.ResourceFlavor:
			arrange(rng, l)
		case []*kueue.Topology:
			arrange(rng, l)
		case []*kueue.Cohort:
			arrange(rng, l)
		case []*kueue.ClusterQueue:
			arrange(rng, l)
		case []*kueue.LocalQueue:
			arrange(rng, l)
		case []*corev1.Node:
			arrange(rng, l)
		case []*corev1.Pod:
			arrange(rng, l)
		case []*kueue.AdmissionCheck:
			arrange(rng, l)
		case []*kueue.Workload:
			arrange(rng, l)
		}
	}
}

func arrange[T client.Object](rng *rand.Rand, l []T) {
	sort.SliceStable(l, func(i, j int) bool {
		return l[i].GetNamespace()+"/"+l[i].GetName() < l[j].GetNamespace()+"/"+l[j].GetName()
	})
	if rng != nil {
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}
}

// addWorkloads puts the Workloads the jobs made in the client where the job reconcilers did not.
func (c *Cluster) addWorkloads(made []*kueue.Workload) error {
	for i, wl := range made {
		var existing kueue.Workload
		if err := c.cl.Get(c.ctx, client.ObjectKeyFromObject(wl), &existing); err == nil {
			continue
		}
		wl = wl.DeepCopy()
		if wl.UID == "" {
			wl.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0001-%012d", i+1))
		}
		wl.ResourceVersion = ""
		if err := c.cl.Create(c.ctx, wl); err != nil {
			return fmt.Errorf("creating the Workload of a job: %w", err)
		}
	}
	return nil
}

func withoutWorkloads(objs []client.Object) []client.Object {
	out := make([]client.Object, 0, len(objs))
	for _, o := range objs {
		if _, ok := o.(*kueue.Workload); !ok {
			out = append(out, o)
		}
	}
	return out
}

// harnessFinalizer holds an object the input shows being deleted with no finalizer (see held).
const harnessFinalizer = "kueue-oracle.kadmit/deleting"

// held gives each object the input shows being deleted (metadata.deletionTimestamp) with no
// finalizer one of the harness's: on a cluster such an object exists only while a finalizer holds
// it (one read back from a cluster lists it; one written by hand may not), and the fake client
// refuses to hold it without one. Kueue's webhooks give a ClusterQueue and a ResourceFlavor theirs
// before this; the others are held as being deleted, as kadmit reads them.
func held(objs []client.Object) []client.Object {
	out := make([]client.Object, len(objs))
	for i, o := range objs {
		if o.GetDeletionTimestamp() != nil && len(o.GetFinalizers()) == 0 {
			o = o.DeepCopyObject().(client.Object)
			o.SetFinalizers([]string{harnessFinalizer})
		}
		out[i] = o
	}
	return out
}

// deleting puts a Workload the input shows being deleted (metadata.deletionTimestamp) in that
// state: the fake client's Create drops the field, as the API server's does, so it is created, given
// Kueue's finalizer where it lists none (a Workload holds it from its creation), and deleted; the
// client stamps its deletionTimestamp and keeps it while a finalizer is left. Kueue's workload
// controller then meets it as it would: one with no owner has Kueue's finalizer dropped and goes.
func (c *Cluster) deleting(wl *kueue.Workload) error {
	if len(wl.Finalizers) == 0 {
		wl.Finalizers = []string{kueue.ResourceInUseFinalizerName}
		if err := c.cl.Update(c.ctx, wl); err != nil {
			return err
		}
	}
	return c.cl.Delete(c.ctx, wl)
}

// onceIndexer registers each (type, field) index once: Kueue's core and the job integrations
// both index LimitRanges by container type, and the fake client panics on an index registered
// twice.
type onceIndexer struct {
	client.FieldIndexer
	seen map[string]bool
}

func (o *onceIndexer) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	key := fmt.Sprintf("%T %s", obj, field)
	if o.seen[key] {
		return nil
	}
	o.seen[key] = true
	return o.FieldIndexer.IndexField(ctx, obj, field, extract)
}

// ensureNamespace creates namespace ns, labelled as the API server labels every namespace, unless the
// input made it.
func (c *Cluster) ensureNamespace(ctx context.Context, ns string) error {
	var got corev1.Namespace
	err := c.cl.Get(ctx, client.ObjectKey{Name: ns}, &got)
	if !apierrors.IsNotFound(err) {
		return err
	}
	return c.cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: map[string]string{corev1.LabelMetadataName: ns}}})
}

// reconcilePriorityClasses is Options.ReconcilePriorityClasses: WorkloadPriorityClassReconciler.Reconcile for
// each WorkloadPriorityClass, by name, then the Workloads it updated delivered to the workload controller (the
// queues take their new priority).
func (c *Cluster) reconcilePriorityClasses() error {
	var classes kueue.WorkloadPriorityClassList
	if err := c.cl.List(c.ctx, &classes); err != nil {
		return err
	}
	sort.Slice(classes.Items, func(i, j int) bool { return classes.Items[i].Name < classes.Items[j].Name })
	r := core.NewWorkloadPriorityClassReconciler(c.cl, nil)
	for i := range classes.Items {
		req := reconcile.Request{NamespacedName: types.NamespacedName{Name: classes.Items[i].Name}}
		if _, err := r.Reconcile(c.ctx, req); err != nil {
			return fmt.Errorf("WorkloadPriorityClass %s: %w", classes.Items[i].Name, err)
		}
	}
	c.deliver()
	return nil
}
