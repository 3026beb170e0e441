package jobs

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

// managerName is the manager name cmd/kueue passes (jobframework.WithManagerName): event
// recorders are named "<framework>-<managerName>-controller".
const managerName = "kueue"

// stubManager is the ctrl.Manager jobframework.SetupControllers is given: it hands out the fake
// client, a webhook server that is never started (requests go through its mux), and keeps the
// controllers the reconcilers' SetupWithManager build, by integration, without starting them.
// Every method it does not define panics (the embedded interface is nil), so an integration
// needing more of a manager fails loudly.
type stubManager struct {
	manager.Manager
	client   client.Client
	mapper   meta.RESTMapper
	server   webhook.Server
	registry conversion.Registry
	events   *eventLog

	mu          sync.Mutex
	current     string                        // the integration SetupControllers is setting up
	controllers map[string][]manager.Runnable // integration -> its controllers, main one first
}

func newStubManager(cl client.Client, events *eventLog) *stubManager {
	return &stubManager{
		client:      cacheReads{cl},
		mapper:      mapperOf(cl.Scheme()),
		server:      webhook.NewServer(webhook.Options{}),
		registry:    conversion.NewRegistry(),
		events:      events,
		controllers: map[string][]manager.Runnable{},
	}
}

// cacheReads is the client the manager hands out: its reads return typed objects with their
// apiVersion and kind set, as the manager's client in Kueue does (controller-runtime's cache reader,
// pkg/cache/internal/cache_reader.go, sets them on every object Get or List copies out), where the
// fake client clears them (fake/client.go ensureTypeMeta). Kueue reads them: the pod integration,
// enabled only implicitly (by deployment, statefulset or leaderworkerset), skips a pod without a
// parent (Pod.Skip: HasImplicitlyEnabledFramework(p.pod.GroupVersionKind())); with the kind cleared
// it made that pod a Workload.
type cacheReads struct{ client.Client }

func (c cacheReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	return c.setKind(obj)
}

func (c cacheReads) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if _, ok := list.(runtime.Unstructured); ok {
		return nil
	}
	if _, ok := list.(*metav1.PartialObjectMetadataList); ok {
		return nil
	}
	return meta.EachListItem(list, c.setKind)
}

// setKind sets a typed object's apiVersion and kind from the scheme (unstructured and metadata-only
// objects keep theirs, as the fake client leaves them).
func (c cacheReads) setKind(obj runtime.Object) error {
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil
	}
	if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return nil
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}

func (m *stubManager) GetClient() client.Client                  { return m.client }
func (m *stubManager) GetScheme() *runtime.Scheme                { return m.client.Scheme() }
func (m *stubManager) GetRESTMapper() meta.RESTMapper            { return m.mapper }
func (m *stubManager) GetConfig() *rest.Config                   { return &rest.Config{} }
func (m *stubManager) GetCache() cache.Cache                     { return nil }
func (m *stubManager) GetFieldIndexer() client.FieldIndexer      { return lateIndexer{} }
func (m *stubManager) GetWebhookServer() webhook.Server          { return m.server }
func (m *stubManager) GetConverterRegistry() conversion.Registry { return m.registry }
func (m *stubManager) GetLogger() logr.Logger                    { return logr.Discard() }
func (m *stubManager) GetEventRecorder(string) events.EventRecorder {
	return nil
}

// GetControllerOptions skips controller-runtime's process-wide check that controller names are
// unique, so that Convert can set the controllers up again in one process.
func (m *stubManager) GetControllerOptions() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true)}
}

// GetEventRecorderFor is called by SetupControllers right before it builds an integration's
// reconcilers (named "<framework>-kueue-controller"): the controllers added next are that
// integration's.
func (m *stubManager) GetEventRecorderFor(name string) record.EventRecorder {
	if framework, ok := strings.CutSuffix(name, "-"+managerName+"-controller"); ok {
		m.mu.Lock()
		m.current = framework
		m.mu.Unlock()
	}
	return m.events.recorder()
}

func (m *stubManager) Add(r manager.Runnable) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.controllers[m.current] = append(m.controllers[m.current], r)
	return nil
}

// mapperOf maps every kind of the scheme (the fake client's own mapper knows none): SetupControllers
// defers an integration whose kind the API server does not serve. The last one is kept and given again
// for the same scheme knowing the same kinds (a mapper is only read), where building it for each run was
// a twentieth of a small cluster's time.
func mapperOf(s *runtime.Scheme) meta.RESTMapper {
	kinds := s.AllKnownTypes()
	lastMapper.mu.Lock()
	defer lastMapper.mu.Unlock()
	if lastMapper.scheme == s && lastMapper.kinds == len(kinds) {
		return lastMapper.mapper
	}
	m := newMapper(kinds)
	lastMapper.scheme, lastMapper.kinds, lastMapper.mapper = s, len(kinds), m
	return m
}

var lastMapper struct {
	mu     sync.Mutex
	scheme *runtime.Scheme
	kinds  int
	mapper meta.RESTMapper
}

func newMapper(kinds map[schema.GroupVersionKind]reflect.Type) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for gvk := range kinds {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		m.Add(gvk, meta.RESTScopeNamespace)
	}
	return m
}

// lateIndexer takes the indexes reconcilers register after the client is built (Kubeflow
// Trainer's runtime registry indexes TrainJobs and runtimes by RuntimeClass for its own
// controllers; Kueue's conversion never lists by them) and drops them.
type lateIndexer struct{}

func (lateIndexer) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

// reconcilerOf is what a controller built by SetupWithManager offers: Reconcile (the controller's
// own, which recovers panics) and the reconciler it wraps (the exported field Do of
// controller-runtime's internal controller), which LeaderWorkerSet's and StatefulSet's
// reconcilers use as their own event filter (predicate.Predicate).
type controllerHandle struct {
	reconcile reconcile.Reconciler
	filter    predicate.Predicate // nil: the controller's For() watch has no filter of the reconciler's
}

func handleOf(r manager.Runnable) (controllerHandle, bool) {
	rec, ok := r.(reconcile.Reconciler)
	if !ok {
		return controllerHandle{}, false
	}
	h := controllerHandle{reconcile: rec}
	v := reflect.ValueOf(r)
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if do := v.Elem().FieldByName("Do"); do.IsValid() && do.CanInterface() {
			if p, ok := do.Interface().(predicate.Predicate); ok {
				h.filter = p
			}
		}
	}
	return h, true
}

// eventLog collects the events every reconciler records, by object: its UID, kind, namespace
// and name (two input objects may share a UID; one's events are not the other's).
type eventLog struct {
	mu     sync.Mutex
	scheme *runtime.Scheme
	events map[eventKey][]recorded
}

type eventKey struct {
	uid             types.UID
	kind            string
	namespace, name string
}

type recorded struct{ Type, Reason, Message string }

func (l *eventLog) recorder() record.EventRecorder { return &eventRecorder{log: l} }

// of is the events recorded on the object of this UID, kind, namespace and name.
func (l *eventLog) of(uid types.UID, kind, namespace, name string) []recorded {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]recorded(nil), l.events[eventKey{uid, kind, namespace, name}]...)
}

// kindOf is the object's kind: its own, or its Go type's in the scheme (a typed object read
// from the client may carry none).
func (l *eventLog) kindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	if l.scheme != nil {
		if gvk, err := apiutil.GVKForObject(obj, l.scheme); err == nil {
			return gvk.Kind
		}
	}
	return ""
}

type eventRecorder struct{ log *eventLog }

func (r *eventRecorder) Event(object runtime.Object, eventType, reason, message string) {
	r.add(object, eventType, reason, message)
}

func (r *eventRecorder) Eventf(object runtime.Object, eventType, reason, messageFmt string, args ...any) {
	r.add(object, eventType, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *eventRecorder) AnnotatedEventf(object runtime.Object, _ map[string]string, eventType, reason, messageFmt string, args ...any) {
	r.add(object, eventType, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *eventRecorder) add(object runtime.Object, eventType, reason, message string) {
	obj, ok := object.(client.Object)
	if !ok {
		return
	}
	key := eventKey{obj.GetUID(), r.log.kindOf(obj), obj.GetNamespace(), obj.GetName()}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if r.log.events == nil {
		r.log.events = map[eventKey][]recorded{}
	}
	r.log.events[key] = append(r.log.events[key], recorded{eventType, reason, message})
}
