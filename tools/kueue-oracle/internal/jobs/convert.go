package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	qcache "sigs.k8s.io/kueue/pkg/cache/queue"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
	"sigs.k8s.io/kueue/pkg/workloadslicing"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/server"
)

// maxRounds bounds how often every request is reconciled again: a reconciler that creates a
// Workload sees it on its next reconcile (the Workload's create event), and one more round
// shows nothing moves any more.
const maxRounds = 4

// convertMu serialises Convert: Kueue's RayJob, RayService and TrainJob integrations keep their
// reconciler (and client) in a package variable, set by NewReconciler.
var convertMu sync.Mutex

// item is one input object on its way to its Workloads.
type item struct {
	index     int
	u         *unstructured.Unstructured // as given, with its identity filled in (identify)
	gvk       schema.GroupVersionKind
	sentIn    schema.GroupVersionKind // the version it was written in, where the API server stores it as gvk (servedAs)
	owner     Owner                   // the object, as kadmit names it
	stands    Owner                   // what its Workloads stand for: the object, or its Kueue pod group
	framework string
	submitted bool // no UID and no status in the input: it is being submitted, through the webhooks

	obj  client.Object // as created in the client (nil: never created)
	skip string        // why Kueue makes no Workload of it, when known before reconciling
	uids []types.UID   // the objects whose Workloads are this item's (itself, a Deployment's pods)
	pods []*corev1.Pod // a Deployment's pods (rollOut), an unsuspended Job's (startJob), an unmarked StatefulSet's
	// a running JobSet's child Jobs (startJobSet): Kueue's Job integration decides them; a LeaderWorkerSet's
	// leader StatefulSet Kueue's StatefulSet webhook marked (startLeaderWorkerSet): its reconciler decides it
	children []client.Object
}

// request is one reconcile request of one controller, and the items it stands for.
type request struct {
	req      reconcile.Request
	ctrl     controllerHandle
	items    []*item
	lines    []logLine // what the last reconcile logged
	err      error     // what the last reconcile returned
	filtered string    // the controller's event filter passes none of its objects: why
}

// Convert runs Kueue's webhooks (Default, ValidateCreate) and job reconcilers on objs against
// cl, which already holds every non-job object of the input, and returns the Workloads they
// create. Every object it is given is created in cl, as the API server would, except those
// Kueue's webhooks refuse and those that cannot be read as their kind's Go type; Workloads the
// reconcilers create stay in cl. cfg nil is the Configuration Kueue's release installs
// (InstalledConfiguration); feature gates are the process's (utilfeature).
//
// Kueue keeps which integrations are enabled in a package variable that only grows: in one
// process, call Convert with one set of frameworks.
func Convert(ctx context.Context, cl client.Client, objs []*unstructured.Unstructured, cfg *configapi.Configuration, clk clock.Clock) (Converted, error) {
	return ConvertSeeded(ctx, cl, objs, cfg, clk, 0)
}

// ConvertSeeded is Convert with the UIDs of the Workloads the reconcilers create drawn from
// seed (0: in input order). The API server gives each created Workload a random UUID
// (FillObjectMetaSystemFields), and Kueue breaks a queue's last tie, between Workloads of one
// priority created in one second, by UID (baseCompareFunc): a live cluster's order among jobs
// created in one second is drawn afresh for every Workload made, so `admit --runs N` draws them
// per run (seed+i) and its variance shows the orders Kueue may take.
func ConvertSeeded(ctx context.Context, cl client.Client, objs []*unstructured.Unstructured, cfg *configapi.Configuration, clk clock.Clock, seed int64) (Converted, error) {
	convertMu.Lock()
	defer convertMu.Unlock()
	if cfg == nil {
		cfg = InstalledConfiguration()
	}
	cfg = cfg.DeepCopy()
	configapi.SetDefaults_Configuration(cfg)

	before, err := workloadKeys(ctx, cl)
	if err != nil {
		return Converted{}, err
	}
	latest, err := latestCreation(ctx, cl, objs)
	if err != nil {
		return Converted{}, err
	}
	deleting, owned, err := inputOwners(ctx, cl)
	if err != nil {
		return Converted{}, err
	}
	items, err := identify(ctx, cl, objs)
	if err != nil {
		return Converted{}, err
	}
	if len(items) == 0 {
		return Converted{Owners: map[string]Owner{}}, nil
	}
	e, err := newEnv(ctx, cl, cfg, clk)
	if err != nil {
		return Converted{}, err
	}
	e.uidSeed = seed
	e.latest, e.deletingOwners, e.owned = latest, deleting, owned
	for _, it := range items {
		if it.u.GetCreationTimestamp().Time.After(latest) {
			e.untimed++
		}
	}
	namespaces := sets.New[string]()
	for _, it := range items {
		if ns := it.u.GetNamespace(); ns != "" && !namespaces.Has(ns) {
			namespaces.Insert(it.u.GetNamespace())
			if err := ensureNamespace(ctx, cl, it.u.GetNamespace(), namespaces.Len()); err != nil {
				return Converted{}, err
			}
		}
	}
	var jobs []*item
	for _, it := range items {
		if referenced.Has(it.gvk.GroupKind()) {
			if err := e.reference(ctx, it); err != nil {
				return Converted{}, err
			}
			continue
		}
		jobs = append(jobs, it)
	}
	items = jobs
	for _, it := range items {
		if err := e.submit(ctx, it); err != nil {
			return Converted{}, err
		}
	}
	reqs := e.requests(items)
	if err := e.reconcileAll(ctx, reqs); err != nil {
		return Converted{}, err
	}
	replaced, err := e.replaceStopped(ctx, items)
	if err != nil {
		return Converted{}, err
	}
	if len(replaced) > 0 {
		more := e.requests(replaced)
		if err := e.reconcileAll(ctx, more); err != nil {
			return Converted{}, err
		}
		reqs = append(reqs, more...)
	}
	out, err := e.collect(ctx, items, reqs, before)
	if err != nil {
		return out, err
	}
	out.Reconcile = func(ctx context.Context) error {
		convertMu.Lock()
		defer convertMu.Unlock()
		return e.reconcileAll(ctx, reqs)
	}
	return out, nil
}

// env is one Convert's Kueue: its options, the controllers SetupControllers built, the webhooks
// on the stub manager's server.
type env struct {
	cl      client.Client
	cfg     *configapi.Configuration
	clk     clock.Clock
	notes   []string
	mgr     *stubManager
	events  *eventLog
	enabled sets.Set[string]
	uidSeed int64 // the created Workloads' UIDs: drawn from it, else (0) in input order
	// latest: the input's latest creation time; untimed: how many objects identify created after it
	// (recreated Workloads come after them, see collect)
	latest  time.Time
	untimed int
	// deletingOwners: the owners' UIDs of the input's Workloads being deleted (replaces)
	deletingOwners sets.Set[types.UID]
	// owned: the keys of the input's Workloads by their owners' UIDs (replaces)
	owned map[types.UID][]string
}

func newEnv(ctx context.Context, cl client.Client, cfg *configapi.Configuration, clk clock.Clock) (*env, error) {
	cache := schdcache.New(cl)
	queues := qcache.NewManagerForUnitTests(cl, cache)
	if err := loadQueues(ctx, cl, cache, queues); err != nil {
		return nil, err
	}
	nsSelector, err := metav1.LabelSelectorAsSelector(cfg.ManagedJobsNamespaceSelector)
	if err != nil {
		return nil, fmt.Errorf("managedJobsNamespaceSelector: %w", err)
	}
	// The options cmd/kueue/main.go passes (setupControllers), with the oracle's clock.
	opts := []jobframework.Option{
		jobframework.WithManageJobsWithoutQueueName(cfg.ManageJobsWithoutQueueName),
		jobframework.WithWaitForPodsReady(cfg.WaitForPodsReady),
		jobframework.WithEnabledFrameworks(cfg.Integrations.Frameworks),
		jobframework.WithEnabledExternalFrameworks(cfg.Integrations.ExternalFrameworks),
		jobframework.WithManagerName(managerName),
		jobframework.WithLabelKeysToCopy(cfg.Integrations.LabelKeysToCopy),
		jobframework.WithCache(cache),
		jobframework.WithQueues(queues),
		jobframework.WithObjectRetentionPolicies(cfg.ObjectRetentionPolicies),
		jobframework.WithClock(clk),
		jobframework.WithManagedJobsNamespaceSelector(nsSelector),
	}
	events := &eventLog{scheme: cl.Scheme()}
	mgr := newStubManager(cl, events)
	if err := jobframework.SetupControllers(ctx, mgr, logDiscard(), opts...); err != nil {
		return nil, fmt.Errorf("setting up Kueue's job controllers: %w", err)
	}
	e := &env{cl: cl, cfg: cfg, clk: clk, mgr: mgr, events: events, enabled: sets.New[string]()}
	for framework := range mgr.controllers {
		e.enabled.Insert(framework)
	}
	// The integrations whose reconciler is a no-op (Deployment's: its pods are the pod
	// integration's) add no controller; they are enabled when listed.
	for _, f := range cfg.Integrations.Frameworks {
		e.enabled.Insert(f)
	}
	return e, nil
}

// loadQueues gives the webhooks' queue manager and cache what they read: LocalQueues (the
// namespace's `default` queue, LocalQueueDefaulting) and the ClusterQueues' admission checks
// (a MultiKueue check makes a job's managedBy MultiKueue's).
func loadQueues(ctx context.Context, cl client.Client, cache *schdcache.Cache, queues *qcache.Manager) error {
	log := ctrl.LoggerFrom(ctx)
	var acs kueue.AdmissionCheckList
	if err := cl.List(ctx, &acs); err != nil {
		return err
	}
	for i := range acs.Items {
		cache.AddOrUpdateAdmissionCheck(log, &acs.Items[i])
	}
	var cqs kueue.ClusterQueueList
	if err := cl.List(ctx, &cqs); err != nil {
		return err
	}
	for i := range cqs.Items {
		if err := cache.AddClusterQueue(ctx, &cqs.Items[i]); err != nil {
			return fmt.Errorf("ClusterQueue %s: %w", cqs.Items[i].Name, err)
		}
	}
	var lqs kueue.LocalQueueList
	if err := cl.List(ctx, &lqs); err != nil {
		return err
	}
	for i := range lqs.Items {
		if err := queues.AddLocalQueue(ctx, &lqs.Items[i]); err != nil {
			return fmt.Errorf("LocalQueue %s/%s: %w", lqs.Items[i].Namespace, lqs.Items[i].Name, err)
		}
	}
	return nil
}

// submit creates the item's object in the client, through Kueue's webhooks when it is being
// submitted.
func (e *env) submit(ctx context.Context, it *item) error {
	framework, ok := integrationOf(it.gvk)
	if !ok {
		it.skip = fmt.Sprintf("%s is not a kind Kueue v0.17 integrates", gvkString(it.gvk))
		return nil
	}
	it.framework = framework
	// the API server validates a custom resource against its CRD on create (a stored one was so created),
	// the schema of the version it was sent in (a ray.io/v1alpha1 RayCluster against v1alpha1's)
	sent := it.u.DeepCopy()
	if !it.sentIn.Empty() {
		sent.SetAPIVersion(it.sentIn.GroupVersion().String())
	}
	if err := CheckCRD(ctx, sent); err != nil {
		if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
			return err
		}
		it.skip = err.Error()
		return nil
	}
	obj, err := e.typed(it.u)
	if err != nil {
		it.skip = fmt.Sprintf("it cannot be read as Kueue's %s type: %v", gvkString(it.gvk), err)
		return nil
	}
	if it.submitted {
		applyContainerDefaults(obj)
		if obj, it.skip, err = e.admit(ctx, it.gvk, obj); err != nil || it.skip != "" {
			return err
		}
	}
	if err := e.cl.Create(ctx, obj); err != nil {
		it.skip = fmt.Sprintf("creating it failed: %v", err)
		return nil
	}
	// (a Deployment's or a StatefulSet's pods come from their controllers, which make none for one
	// being deleted; not modelled: they are read as if not being deleted, as kadmit reads them)
	if !it.submitted && it.u.GetDeletionTimestamp() != nil && framework != deploymentFramework && framework != statefulSetFramework {
		if err := e.deleting(ctx, obj); err != nil {
			it.skip = fmt.Sprintf("putting it in deletion failed: %v", err)
			return nil
		}
	}
	it.obj = obj
	it.uids = []types.UID{obj.GetUID()}
	if it.submitted && (framework == jobFramework || framework == statefulSetFramework) {
		// its pods, where Kueue leaves it alone (enabled or not: a disabled integration's webhook is a no-op)
		start := e.startJob
		if framework == statefulSetFramework {
			start = e.startStatefulSet
		}
		if err := start(ctx, it); err != nil || it.skip != "" {
			return err
		}
	}
	if it.submitted && framework == jobSetFramework {
		// its child Jobs, where Kueue leaves it running (enabled or not: a disabled integration's webhook is a no-op)
		if err := e.startJobSet(ctx, it); err != nil || it.skip != "" {
			return err
		}
		// and the pods of those of its Jobs Kueue left running, as the Job controller makes them
		if err := e.startChildJobPods(ctx, it); err != nil || it.skip != "" {
			return err
		}
	}
	if it.submitted && ownPodsFramework(framework) {
		// its pods, where Kueue leaves it running (enabled or not: a disabled integration's webhook is a no-op)
		if err := e.startOwnPods(ctx, it); err != nil || it.skip != "" {
			return err
		}
	}
	if it.submitted && framework == leaderWorkerSetFramework {
		// its StatefulSets and pods, where Kueue leaves it unmarked, enabled or not: a disabled integration's
		// webhook is a no-op, and LeaderWorkerSet's controllers make them all the same (a leader StatefulSet
		// Kueue's StatefulSet webhook marks, given `default` as its owner is no enabled integration's, or taken
		// under manageJobsWithoutQueueName, is reconciled by Kueue's StatefulSet reconciler: its Workload)
		if err := e.startLeaderWorkerSet(ctx, it); err != nil || it.skip != "" {
			return err
		}
	}
	if framework == deploymentFramework {
		// its pods, enabled or not: a disabled integration's Deployment webhook is a no-op, and Kubernetes'
		// Deployment and ReplicaSet controllers make the pods all the same, which Kueue's pod webhook decides
		// as any pod (FindAncestorJobManagedByKueue walks past the ReplicaSet to a Deployment it does not manage)
		if err := e.rollOut(ctx, it); err != nil || it.skip != "" {
			return err
		}
	}
	if !e.enabled.Has(framework) {
		it.skip = fmt.Sprintf("integration `%s` is not enabled in the Configuration's `integrations.frameworks`", framework)
	}
	return nil
}

// harnessFinalizer holds an object the input shows being deleted that has no finalizer of its
// own: on a cluster such an object exists only while its graceful termination lasts (a pod) or a
// finalizer holds it.
const harnessFinalizer = "kueue-oracle.kadmit/deleting"

// deleting puts an object the input shows being deleted (metadata.deletionTimestamp) in that
// state: the fake client's Create drops the field, as the API server's does, so the object is
// created, given the harness's finalizer where it has none, and deleted; the client stamps its
// deletionTimestamp (the fake clock's time, not the input's) and keeps it while a finalizer is
// left, as Kueue's reconcilers would find it (the job reconciler only drops its finalizers and
// makes no Workload; a pod group leaves a member being deleted on no node out of its pods).
func (e *env) deleting(ctx context.Context, obj client.Object) error {
	if len(obj.GetFinalizers()) == 0 {
		obj.SetFinalizers([]string{harnessFinalizer})
		if err := e.cl.Update(ctx, obj); err != nil {
			return err
		}
	}
	if err := e.cl.Delete(ctx, obj); err != nil {
		return err
	}
	return e.cl.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

// reference creates an object jobs read (a training runtime), as the API server would; a
// cluster-scoped one has no namespace.
func (e *env) reference(ctx context.Context, it *item) error {
	err := CheckCRD(ctx, it.u.DeepCopy())
	if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		return err
	}
	var obj client.Object
	if err == nil {
		obj, err = e.typed(it.u)
	}
	if err == nil {
		err = e.cl.Create(ctx, obj)
	}
	if err != nil {
		// one the API server would refuse (a version its CRD does not serve, a field of the wrong
		// type or one its schema lacks, a second of one name): not in the cluster, and said so
		e.notes = append(e.notes, fmt.Sprintf("%s %s: not created, as the API server refuses it: %v",
			gvkString(it.gvk), it.u.GetName(), err))
	}
	return nil
}

// typed reads an object as its kind's Go type, with the defaults the API server gives it (its
// CRD's, or the built-in kind's); fields the type does not have are dropped, as the API server
// prunes them, and noted.
func (e *env) typed(u *unstructured.Unstructured) (client.Object, error) {
	u = u.DeepCopy()
	if _, err := ApplyCRDDefaults(u); err != nil {
		return nil, err
	}
	ro, err := e.cl.Scheme().New(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	// What an API server sets on create (as objects.Reader does for the other kinds): an object read
	// back from a cluster (`kubectl get -o yaml`) carries its resourceVersion and managedFields.
	u.SetResourceVersion("")
	u.SetManagedFields(nil)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, ro, true); err != nil {
		if !runtime.IsStrictDecodingError(err) {
			return nil, err
		}
		e.notes = append(e.notes, fmt.Sprintf("%s %s/%s: %v (the API server prunes such fields)",
			gvkString(u.GroupVersionKind()), u.GetNamespace(), u.GetName(), err))
	}
	obj, ok := ro.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not an object", ro)
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	applyBuiltinDefaults(obj)
	return obj, nil
}

// admit runs obj through Kueue's webhooks: the mutated object, or Kueue's refusal.
func (e *env) admit(ctx context.Context, gvk schema.GroupVersionKind, obj client.Object) (client.Object, string, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, "", err
	}
	mapping, err := e.mgr.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, "", err
	}
	mutated, refusal, err := admit(ctx, e.mgr.server, gvk, mapping.Resource.Resource, obj, raw)
	if err != nil || refusal != "" {
		return nil, refusal, err
	}
	ro, err := e.cl.Scheme().New(gvk)
	if err != nil {
		return nil, "", err
	}
	if err := json.Unmarshal(mutated, ro); err != nil {
		return nil, "", fmt.Errorf("the webhooks' %s: %w", gvkString(gvk), err)
	}
	out := ro.(client.Object)
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, "", nil
}

// requests are the reconcile requests the items' create events make, in input order, each
// once: a pod of a Kueue pod group is reconciled with its group (namespace `group/<ns>`, as the
// pod integration's event handler keys it), a Deployment through its pods.
func (e *env) requests(items []*item) []*request {
	var out []*request
	byKey := map[string]*request{}
	add := func(framework string, key types.NamespacedName, it *item, obj client.Object) {
		ctrls := e.mgr.controllers[framework]
		if len(ctrls) == 0 {
			return
		}
		h, ok := handleOf(ctrls[0])
		if !ok {
			return
		}
		id := framework + "|" + key.String()
		r := byKey[id]
		if r == nil {
			r = &request{req: reconcile.Request{NamespacedName: key}, ctrl: h}
			byKey[id] = r
			out = append(out, r)
		}
		if !slices.Contains(r.items, it) {
			r.items = append(r.items, it)
		}
		if h.filter != nil && !h.filter.Create(event.CreateEvent{Object: obj}) {
			r.filtered = filterReason(framework)
		}
	}
	for _, it := range items {
		// a disabled Job's pods are the pod integration's, a disabled JobSet's Jobs the Job integration's
		if it.obj == nil || (it.skip != "" && len(it.pods) == 0 && len(it.children) == 0) {
			continue
		}
		switch {
		case it.framework == deploymentFramework:
			for _, p := range it.pods {
				add(podFramework, podRequest(p), it, p)
			}
		case it.framework == podFramework:
			add(podFramework, podRequest(it.obj.(*corev1.Pod)), it, it.obj)
		default:
			add(it.framework, client.ObjectKeyFromObject(it.obj), it, it.obj)
			for _, p := range it.pods { // a Job's or StatefulSet's, which Kueue left alone (startJob, startStatefulSet)
				add(podFramework, podRequest(p), it, p)
			}
			for _, c := range it.children { // a running JobSet's Jobs (startJobSet), a LeaderWorkerSet's leader StatefulSet
				framework := jobFramework
				if _, ok := c.(*appsv1.StatefulSet); ok {
					framework = statefulSetFramework
				}
				add(framework, client.ObjectKeyFromObject(c), it, c)
			}
		}
	}
	return out
}

// podRequest is the pod integration's reconcile key for a pod (reconcileRequestForPod).
func podRequest(p *corev1.Pod) types.NamespacedName {
	if group := p.Labels[podconstants.GroupNameLabel]; group != "" {
		return types.NamespacedName{Namespace: "group/" + p.Namespace, Name: group}
	}
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

func filterReason(framework string) string {
	return fmt.Sprintf("Kueue's %s controller filters it out (jobframework.WorkloadShouldBeSuspended is false: "+
		"it names no queue and manageJobsWithoutQueueName is off, or managedJobsNamespaceSelector does not "+
		"select its namespace)", framework)
}

// reconcileAll reconciles every request, round after round, until a round changes no Workload.
func (e *env) reconcileAll(ctx context.Context, reqs []*request) error {
	prev, err := workloadVersions(ctx, e.cl)
	if err != nil {
		return err
	}
	for round := 0; round < maxRounds; round++ {
		for _, r := range reqs {
			if r.filtered != "" {
				continue
			}
			log, lines := newLogCapture()
			_, r.err = r.ctrl.reconcile.Reconcile(ctrl.LoggerInto(ctx, log), r.req)
			r.lines = lines()
		}
		if err := e.stampCreated(ctx); err != nil {
			return err
		}
		now, err := workloadVersions(ctx, e.cl)
		if err != nil {
			return err
		}
		if round > 0 && mapsEqual(prev, now) {
			break
		}
		prev = now
	}
	return nil
}

// stampCreated gives each Workload a reconciler created in the round just run the creationTimestamp the API
// server stamps on create (the fake client leaves it zero): the clock's now, not before the input's latest object. Kueue's
// reconcilers read it before collect stamps its own: an elastic job's workload slices are ordered by it
// (workloadslicing.FindNotFinishedWorkloads), and a replacement slice left at zero would sort before the slice it
// replaces and be finished as out of sync in its place.
func (e *env) stampCreated(ctx context.Context) error {
	var wls kueue.WorkloadList
	if err := e.cl.List(ctx, &wls); err != nil {
		return err
	}
	now := e.clk.Now().Truncate(time.Second)
	if now.Before(e.latest) { // (convert's clock starts at a fixed date: the input's moment is its latest object)
		now = e.latest
	}
	for i := range wls.Items {
		wl := &wls.Items[i]
		if !wl.CreationTimestamp.IsZero() {
			continue
		}
		wl.CreationTimestamp = metav1.NewTime(now)
		if err := e.cl.Update(server.Stamping(ctx), wl); err != nil {
			return fmt.Errorf("workload %s/%s: %w", wl.Namespace, wl.Name, err)
		}
	}
	return nil
}

// collect gathers the Workloads the reconcilers created, who they stand for, and why the other
// objects made none. A created Workload gets what the API server would give it: a UID, and its
// owner's creation time (its controller creates it as soon as the owner exists; the API server
// keeps seconds).
func (e *env) collect(ctx context.Context, items []*item, reqs []*request, before map[string]types.UID) (Converted, error) {
	// Two input objects may carry one UID (a merged or hand-edited input; no cluster holds them):
	// Kueue's reconcilers still make a Workload for each (they find a job's Workloads by owner kind
	// and name), so an owner reference is matched by its UID and, among objects sharing it, its
	// kind and name.
	byUID := map[types.UID][]*item{}
	for _, it := range items {
		for _, uid := range it.uids {
			byUID[uid] = append(byUID[uid], it)
		}
	}
	owning := func(ref metav1.OwnerReference) *item {
		its := byUID[ref.UID]
		for _, it := range its {
			kind := ""
			if it.obj != nil {
				kind = it.obj.GetObjectKind().GroupVersionKind().Kind
			}
			if it.obj != nil && it.obj.GetName() == ref.Name && (kind == "" || kind == ref.Kind) {
				return it
			}
		}
		if len(its) > 0 {
			return its[0]
		}
		return nil
	}
	var wls kueue.WorkloadList
	if err := e.cl.List(ctx, &wls); err != nil {
		return Converted{}, err
	}
	out := Converted{Owners: map[string]Owner{}, Notes: e.notes}
	has := map[Owner]bool{}
	finished := map[Owner]string{} // why the reconciler finished the Workload it took
	type made struct {
		it        *item
		wl        *kueue.Workload
		recreated bool // in place of a Workload of the input its reconciler let go (being deleted, or out of step with it: replaces)
	}
	var created []made
	now := sets.New[string]()
	for i := range wls.Items {
		now.Insert(wls.Items[i].Namespace + "/" + wls.Items[i].Name)
	}
	for i := range wls.Items {
		wl := &wls.Items[i]
		var it *item
		for _, ref := range wl.OwnerReferences {
			if it = owning(ref); it != nil {
				break
			}
		}
		if it == nil {
			continue
		}
		key := wl.Namespace + "/" + wl.Name
		out.Owners[key] = it.stands
		// a job's prebuilt Workload its reconciler found out of sync and finished (ensurePrebuiltWorkloadInSync),
		// or a job's admitted Workload it could not start and finished (startJob, a permanent error): the job has
		// no Workload to queue, and says why, in the Finished condition's words
		if c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished); c != nil &&
			c.Status == metav1.ConditionTrue {
			switch c.Reason {
			case kueue.WorkloadFinishedReasonOutOfSync:
				finished[it.stands] = fmt.Sprintf("its prebuilt Workload %s is Finished (%s): %s", key, c.Reason, c.Message)
				continue
			case jobframework.FailedToStartFinishedReason:
				finished[it.stands] = fmt.Sprintf("its Workload %s is Finished (%s): %s", key, c.Reason, c.Message)
				continue
			}
		}
		has[it.stands] = true
		if uid, ok := before[key]; !ok || uid != wl.UID {
			// a workload slice replacing one of the job's (ElasticJobsViaWorkloadSlices) is made after the input's moment
			_, slice := wl.Annotations[workloadslicing.WorkloadSliceReplacementFor]
			created = append(created, made{it, wl, slice || e.replaces(it, now)})
		}
	}
	sort.SliceStable(created, func(a, b int) bool {
		if created[a].it.index != created[b].it.index {
			return created[a].it.index < created[b].it.index
		}
		return created[a].wl.Name < created[b].wl.Name
	})
	draw := uidDraw(e.uidSeed)
	for n, m := range created {
		wl := m.wl
		wl.CreationTimestamp = m.it.obj.GetCreationTimestamp()
		if m.recreated {
			// Made after the input's moment (the input shows its predecessor still being deleted): the
			// API server stamps it then, after everything the input shows created, as an untimed object
			// (identify), after those.
			e.untimed++
			wl.CreationTimestamp = metav1.NewTime(e.latest.Add(time.Duration(e.untimed) * time.Second))
		}
		if wl.UID == "" {
			wl.UID = makeUID(uidWorkload, n+1)
			if draw != nil {
				wl.UID = draw()
			}
		}
		// what the API server stamps on create, not a request its validation sees
		if err := e.cl.Update(server.Stamping(ctx), wl); err != nil {
			return Converted{}, fmt.Errorf("workload %s/%s: %w", wl.Namespace, wl.Name, err)
		}
		out.Workloads = append(out.Workloads, wl)
	}
	reasons := map[*item]string{}
	for _, r := range reqs {
		for _, it := range r.items {
			if _, seen := reasons[it]; !seen {
				reasons[it] = e.reason(ctx, r, it)
			}
		}
	}
	for _, it := range items {
		if has[it.stands] {
			continue
		}
		reason := it.skip
		if reason == "" {
			reason = finished[it.stands]
		}
		if reason == "" {
			reason = reasons[it]
		}
		if reason == "" {
			reason = "Kueue's reconciler made no Workload of it"
		}
		out.Skipped = append(out.Skipped, Skipped{Object: it.owner, Reason: reason})
	}
	return out, nil
}

// reason says why request r made no Workload for it: the controller's filter, the reconcile's
// error, a warning event on the object, or the last thing the reconciler logged.
func (e *env) reason(ctx context.Context, r *request, it *item) string {
	if r.filtered != "" {
		return r.filtered
	}
	if r.err != nil {
		return fmt.Sprintf("Kueue's reconciler failed: %v", r.err)
	}
	// The events on the item's own objects (itself, a Deployment's pods), found as collect
	// finds owners: by UID, kind and name, as objects may share a UID.
	objs := []client.Object{it.obj}
	for _, p := range it.pods {
		objs = append(objs, p)
	}
	for _, o := range objs {
		if o == nil {
			continue
		}
		evs := e.events.of(o.GetUID(), e.events.kindOf(o), o.GetNamespace(), o.GetName())
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].Type == corev1.EventTypeWarning {
				return evs[i].Message
			}
		}
	}
	if reason := lastReason(r.lines); reason != "" {
		return reason
	}
	return e.skips(ctx, it)
}

// skips says whether the integration's GenericJob skips the object without a word
// (jobframework.JobWithSkip: a RayJob on an existing cluster).
func (e *env) skips(ctx context.Context, it *item) string {
	cb, ok := jobframework.GetIntegration(it.framework)
	if !ok || cb.NewJob == nil || it.obj == nil {
		return ""
	}
	job := cb.NewJob()
	if err := e.cl.Get(ctx, client.ObjectKeyFromObject(it.obj), job.Object()); err != nil {
		return ""
	}
	if s, ok := job.(jobframework.JobWithSkip); ok && s.Skip(ctx) {
		return fmt.Sprintf("Kueue's %s integration skips it (its GenericJob's Skip)", it.framework)
	}
	return ""
}

// replaces says whether a Workload the item's reconciler made stands in for one of the input its
// reconciler let go: the item owns a Workload the input shows being deleted.
// replaces says whether the Workload the reconciler made for it stands in place of one of the input that it
// let go: one being deleted, or one of its own that is gone after reconciling (`now`: the Workloads' keys
// then; ensureOneWorkload deletes a Workload out of step with its job that holds quota, and the next
// reconcile makes the job a new one).
func (e *env) replaces(it *item, now sets.Set[string]) bool {
	for _, uid := range it.uids {
		if e.deletingOwners.Has(uid) {
			return true
		}
		for _, key := range e.owned[uid] {
			if !now.Has(key) {
				return true
			}
		}
	}
	return false
}

// inputOwners are the UIDs of the owners of the Workloads in cl being deleted, and the keys of the
// Workloads in cl by their owners' UIDs.
func inputOwners(ctx context.Context, cl client.Client) (sets.Set[types.UID], map[types.UID][]string, error) {
	var wls kueue.WorkloadList
	if err := cl.List(ctx, &wls); err != nil {
		return nil, nil, err
	}
	deleting, owned := sets.New[types.UID](), map[types.UID][]string{}
	for i := range wls.Items {
		key := wls.Items[i].Namespace + "/" + wls.Items[i].Name
		for _, ref := range wls.Items[i].OwnerReferences {
			owned[ref.UID] = append(owned[ref.UID], key)
			if !wls.Items[i].DeletionTimestamp.IsZero() {
				deleting.Insert(ref.UID)
			}
		}
	}
	return deleting, owned, nil
}

// workloadKeys are the Workloads in cl, by key, with their UIDs.
func workloadKeys(ctx context.Context, cl client.Client) (map[string]types.UID, error) {
	var wls kueue.WorkloadList
	if err := cl.List(ctx, &wls); err != nil {
		return nil, err
	}
	out := make(map[string]types.UID, len(wls.Items))
	for i := range wls.Items {
		out[wls.Items[i].Namespace+"/"+wls.Items[i].Name] = wls.Items[i].UID
	}
	return out, nil
}

func workloadVersions(ctx context.Context, cl client.Client) (map[string]string, error) {
	var wls kueue.WorkloadList
	if err := cl.List(ctx, &wls); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(wls.Items))
	for i := range wls.Items {
		out[wls.Items[i].Namespace+"/"+wls.Items[i].Name] = wls.Items[i].ResourceVersion
	}
	return out, nil
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func gvkString(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Version + " " + gvk.Kind
	}
	return gvk.Group + "/" + gvk.Version + " " + gvk.Kind
}
