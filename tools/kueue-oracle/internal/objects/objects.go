// Package objects turns the input's documents into the typed objects a Kueue cluster holds, as an
// API server would store them: Kueue's kinds defaulted from their CRD schemas, v1beta1 converted
// to v1beta2 with Kueue's own conversion functions, Kueue's webhooks (Default, ValidateCreate)
// applied; Kubernetes' kinds as they are. Kueue's Configuration comes from the input (a
// Configuration document or the kueue-manager-config ConfigMap) or, without one, is the one Kueue
// installs.
package objects

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/webhooks"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
)

// Ref names an object of the input.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

// RefOf is the Ref of an unstructured object.
func RefOf(u *unstructured.Unstructured) Ref {
	name := u.GetName()
	if name == "" {
		name = u.GetGenerateName() // an object about to be created is named by its prefix, as kadmit names it
	}
	return Ref{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: name}
}

// Skipped is an object of the input that takes no part in deciding, with the reason.
type Skipped struct {
	Ref
	Reason string `json:"reason"`
}

// Input is the cluster the input describes.
type Input struct {
	Config     *configapi.Configuration
	ConfigFrom string // the file of the Configuration, or "installed"
	// ManagerFeatureGates is the --feature-gates flag of the first Deployment running Kueue's manager
	// (ManagerFrom: where), which Kueue's main sets in place of the Configuration's featureGates.
	ManagerFeatureGates, ManagerFrom string

	// Objects are the typed objects the cluster holds (Kueue's kinds in v1beta2), in input order.
	Objects []client.Object
	// Jobs are the objects Kueue's job integrations turn into Workloads, for the jobs package.
	Jobs []*unstructured.Unstructured
	// Skipped objects: refused by Kueue's webhooks or the API server's schema, duplicates.
	Skipped []Skipped
	// NotRead: kinds that are neither Kueue's, a job's, nor the Kubernetes kinds Kueue reads; also
	// the objects of other kinds the scheme recognises (a Service, a ReplicaSet, a ConfigMap other
	// than Kueue's), which the cluster holds as it is but which take no part in a decision: every
	// object of the input is in Objects, Jobs, Skipped or NotRead.
	NotRead []Skipped
	// Notes on what was read: fields the API server would prune, defaults.
	Notes []string
	// Where each object was read ("file#document").
	Where map[Ref]string
}

const kueueGroup = "kueue.x-k8s.io"
const hubVersion = "v1beta2"

// The Kubernetes kinds Kueue reads (apart from jobs).
var coreKinds = map[schema.GroupVersionKind]func() client.Object{
	corev1.SchemeGroupVersion.WithKind("Namespace"):           func() client.Object { return &corev1.Namespace{} },
	corev1.SchemeGroupVersion.WithKind("Node"):                func() client.Object { return &corev1.Node{} },
	corev1.SchemeGroupVersion.WithKind("Pod"):                 func() client.Object { return &corev1.Pod{} },
	corev1.SchemeGroupVersion.WithKind("LimitRange"):          func() client.Object { return &corev1.LimitRange{} },
	schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"): func() client.Object { return &schedulingv1.PriorityClass{} },
	nodev1.SchemeGroupVersion.WithKind("RuntimeClass"):        func() client.Object { return &nodev1.RuntimeClass{} },
}

// The objects of other kinds Kueue reads to decide (pkg/dra: the templates of a pod's resource
// claims, and the DeviceClasses naming an extended resource, which the DRAExtendedResources gate
// reads); the scheme's other kinds are held in the cluster but listed in NotRead.
var decidesWith = map[schema.GroupKind]bool{
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: true,
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:           true,
}

// Reader reads documents into an Input.
type Reader struct {
	Scheme    *runtime.Scheme
	Defaulter *Defaulter
	// IsJobKind says which objects go to the job integrations.
	IsJobKind func(gvk schema.GroupVersionKind, u *unstructured.Unstructured) bool
}

// Read reads the documents in order.
func (r *Reader) Read(ctx context.Context, docs []input.Document) (*Input, error) {
	in := &Input{Where: map[Ref]string{}}
	var configs []configSource
	var unknown []pending
	seen := map[string]string{}
	for _, d := range docs {
		u := d.Object
		defaultNamespace(u)
		ref := RefOf(u)
		where := fmt.Sprintf("%s#%d", d.File, d.Index)
		gvk := u.GroupVersionKind()
		if cfg, ok := configDocument(u); ok {
			configs = append(configs, configSource{data: cfg, where: where})
			continue
		}
		if gates, ok := managerFeatureGates(u); ok && in.ManagerFrom == "" {
			in.ManagerFeatureGates, in.ManagerFrom = gates, where // and the Deployment is read as a job, too
		}
		if r.IsJobKind != nil && r.IsJobKind(gvk, u) {
			// a job kind in any version: the job integrations say which they take
			in.Jobs = append(in.Jobs, u)
			in.Where[ref] = where
			continue
		}
		if why := unserved(r.Scheme, gvk) + unservedKueueVersion(r.Scheme, gvk); why != "" {
			// never read as if it were current: the API server refuses it
			in.Skipped = append(in.Skipped, Skipped{Ref: ref, Reason: why})
			continue
		}
		var obj client.Object
		var err error
		held := "" // the reason a held object of another kind is listed in NotRead
		switch {
		case gvk.Group == kueueGroup && r.Defaulter.Knows(gvk):
			obj, err = r.kueueObject(ctx, u, in)
		case coreKinds[gvk] != nil:
			obj = coreKinds[gvk]()
			err = r.typed(u, obj, in)
			if ns, ok := obj.(*corev1.Namespace); ok && err == nil {
				labelNamespace(ns)
			}
			if lr, ok := obj.(*corev1.LimitRange); ok && err == nil {
				defaultLimitRange(lr)
			}
		case gvk.Group != kueueGroup && r.Scheme.Recognizes(gvk):
			// Another kind Kueue's code may read (a training runtime a TrainJob names): in the
			// cluster as it is.
			raw, _ := r.Scheme.New(gvk)
			var ok bool
			if obj, ok = raw.(client.Object); !ok {
				in.NotRead = append(in.NotRead, Skipped{Ref: ref, Reason: fmt.Sprintf("%s is not a kind Kueue reads", gvk.Kind)})
				continue
			}
			if err = r.typed(u, obj, in); err == nil {
				defaultDeviceRequests(obj)
			}
			if !decidesWith[gvk.GroupKind()] {
				held = fmt.Sprintf("%s is not a kind Kueue decides with (held in the cluster as it is)", gvk.Kind)
			}
		default:
			// held in the cluster instead where the Configuration lists its kind as an external framework's
			// (known only once every document is read): see external
			unknown = append(unknown, pending{u: u, ref: ref, where: where, at: len(in.NotRead)})
			in.NotRead = append(in.NotRead, Skipped{Ref: ref, Reason: fmt.Sprintf("%s is not a kind Kueue reads", gvk.Kind)})
			continue
		}
		if err != nil {
			in.Skipped = append(in.Skipped, Skipped{Ref: ref, Reason: err.Error()})
			continue
		}
		key := gvk.GroupKind().String() + " " + u.GetNamespace() + "/" + u.GetName()
		if first, dup := seen[key]; dup {
			in.Skipped = append(in.Skipped, Skipped{Ref: ref, Reason: "a second object of this kind and name (the first is at " + first + ")"})
			continue
		}
		seen[key] = where
		// What an API server sets on create: no resourceVersion or managedFields from elsewhere.
		obj.SetResourceVersion("")
		obj.SetManagedFields(nil)
		in.Objects = append(in.Objects, obj)
		in.Where[ref] = where
		if held != "" {
			in.NotRead = append(in.NotRead, Skipped{Ref: ref, Reason: held})
		}
	}
	if len(configs) > 1 {
		return nil, fmt.Errorf("two Kueue Configurations in the input: %s and %s", configs[0].where, configs[1].where)
	}
	var err error
	if len(configs) == 1 {
		in.Config, err = LoadConfiguration(r.Scheme, configs[0].data)
		in.ConfigFrom = configs[0].where
		if err != nil {
			return nil, fmt.Errorf("Kueue's Configuration at %s: %w", configs[0].where, err)
		}
	} else {
		in.Config, err = InstalledConfiguration(r.Scheme)
		in.ConfigFrom = "installed"
		if err != nil {
			return nil, err
		}
	}
	assignUIDs(in.Objects)
	in.Objects = append(in.Objects, builtinPriorityClasses(seen)...)
	in.Objects = append(in.Objects, external(in, unknown, seen)...)
	return in, nil
}

// pending is an object of a kind the reader does not know, listed in NotRead (at) until the Configuration is read.
type pending struct {
	u     *unstructured.Unstructured
	ref   Ref
	where string
	at    int
}

// external holds the objects of the kinds the Configuration's integrations.externalFrameworks lists
// (`Kind.version.group`) in the cluster as they are: Kueue registers those kinds
// (jobframework.RegisterExternalJobType) so that its walk up a job's controllers
// (FindAncestorJobManagedByKueue) reads such an owner from the cluster (its metadata: queue label) and
// takes it as the job's top-level ancestor; they leave NotRead. The objects held get UIDs of their own, after
// every other object's, so that no other object's UID moves.
func external(in *Input, unknown []pending, seen map[string]string) []client.Object {
	kinds := map[schema.GroupVersionKind]bool{}
	var listed []string
	if in.Config.Integrations != nil {
		listed = in.Config.Integrations.ExternalFrameworks
	}
	for _, k := range listed {
		if gvk, _ := schema.ParseKindArg(k); gvk != nil {
			kinds[*gvk] = true
		}
	}
	var out []client.Object
	if len(kinds) == 0 {
		return nil
	}
	read := map[int]bool{} // the places in NotRead of the objects held
	for _, p := range unknown {
		gvk := p.u.GroupVersionKind()
		if !kinds[gvk] {
			continue
		}
		read[p.at] = true
		key := gvk.GroupKind().String() + " " + p.u.GetNamespace() + "/" + p.u.GetName()
		if first, dup := seen[key]; dup {
			in.Skipped = append(in.Skipped, Skipped{Ref: p.ref, Reason: "a second object of this kind and name (the first is at " + first + ")"})
			continue
		}
		seen[key] = p.where
		o := p.u.DeepCopy()
		o.SetResourceVersion("")
		o.SetManagedFields(nil)
		if o.GetUID() == "" {
			o.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0002-%012d", len(out)+1)))
		}
		out = append(out, o)
		in.Where[p.ref] = p.where
	}
	kept := in.NotRead[:0]
	for i, s := range in.NotRead {
		if !read[i] {
			kept = append(kept, s)
		}
	}
	in.NotRead = kept
	return out
}

// builtinPriorityClasses are the PriorityClasses every API server creates at start-up
// (k8s.io/kubernetes pkg/apis/scheduling/v1 SystemPriorityClasses, made by the scheduling REST storage's
// post-start hook), where the input does not hold them: a job naming system-cluster-critical resolves its
// priority in a real cluster. Their UIDs are their own, after the input's, so that no object's UID moves.
func builtinPriorityClasses(seen map[string]string) []client.Object {
	var out []client.Object
	for _, pc := range []struct {
		name  string
		value int32
	}{{"system-node-critical", 2000001000}, {"system-cluster-critical", 2000000000}} {
		if _, held := seen["PriorityClass.scheduling.k8s.io /"+pc.name]; held {
			continue
		}
		obj := &schedulingv1.PriorityClass{Value: pc.value}
		obj.SetGroupVersionKind(schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"))
		obj.SetName(pc.name)
		obj.SetUID(types.UID("00000000-0000-0000-0001-" + fmt.Sprintf("%012d", pc.value%1000+1)))
		out = append(out, obj)
	}
	return out
}

// typed converts u into obj; fields obj's type does not have are noted (an API server prunes
// them from custom resources).
func (r *Reader) typed(u *unstructured.Unstructured, obj client.Object, in *Input) error {
	err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true)
	if err != nil && runtime.IsStrictDecodingError(err) {
		in.Notes = append(in.Notes, fmt.Sprintf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err))
		err = nil
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return err
}

// kueueObject reads one of Kueue's kinds as the API server takes a create of it: decoded in the
// version it is written in (strict field validation; that version's defaults), Kueue's mutating webhook (on its v1beta2 form,
// the answer converted back), that version's CRD schema and rules (a v1beta1 Workload is refused
// in v1beta1's words: `priorityClassName` and its pattern), then Kueue's validating webhook on the
// v1beta2 form; kept as v1beta2 (and defaulted there, as an API server reading its storage version).
func (r *Reader) kueueObject(ctx context.Context, u *unstructured.Unstructured, in *Input) (client.Object, error) {
	gvk := u.GroupVersionKind()
	// the decoding's strict field validation first, as `kubectl apply` asks for it (CRDCheck.Create)
	if err := r.Defaulter.Strict(u); err != nil {
		return nil, err
	}
	u = u.DeepCopy()
	r.Defaulter.Default(gvk, u.Object)
	raw, err := r.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj := raw.(client.Object)
	if err := r.typed(u, obj, in); err != nil {
		return nil, err
	}
	if gvk.Version == hubVersion {
		if err := r.mutate(ctx, obj); err != nil {
			return nil, err
		}
		if err := r.Defaulter.Write(ctx, r.Scheme, obj, nil, false); err != nil {
			return nil, err
		}
		return obj, r.validate(ctx, obj)
	}
	hub, err := r.toHub(obj, gvk)
	if err != nil {
		return nil, err
	}
	before := hub.DeepCopyObject()
	if err := r.mutate(ctx, hub); err != nil {
		return nil, err
	}
	if equality.Semantic.DeepEqual(before, hub) {
		// no patch: the API server checks the object as it was sent
		err = r.Defaulter.Check(ctx, u)
	} else if err = r.fromHub(hub, obj); err == nil {
		// the patched v1beta2 object converted back (Kueue's conversion webhook: its Go types)
		err = r.Defaulter.Write(ctx, r.Scheme, obj, nil, false)
	}
	if err != nil {
		return nil, err
	}
	if hub, err = r.toHub(obj, gvk); err != nil {
		return nil, err
	}
	return hub, r.validate(ctx, hub)
}

// toHub converts obj (of gvk, not v1beta2) to v1beta2, defaulted as the API server defaults its
// storage version on reading it.
func (r *Reader) toHub(obj client.Object, gvk schema.GroupVersionKind) (client.Object, error) {
	hubGVK := gvk.GroupKind().WithVersion(hubVersion)
	rawHub, err := r.Scheme.New(hubGVK)
	if err != nil {
		return nil, fmt.Errorf("%s has no %s version: %w", gvk.Kind, hubVersion, err)
	}
	if c, ok := obj.(conversion.Convertible); ok {
		err = c.ConvertTo(rawHub.(conversion.Hub))
	} else {
		err = r.Scheme.Convert(obj, rawHub, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("converting %s to %s: %w", gvk.GroupVersion(), hubVersion, err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(rawHub)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = hubGVK.GroupVersion().String(), hubGVK.Kind
	r.Defaulter.Default(hubGVK, m)
	fresh, _ := r.Scheme.New(hubGVK)
	hub := fresh.(client.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, hub); err != nil {
		return nil, err
	}
	hub.GetObjectKind().SetGroupVersionKind(hubGVK)
	return hub, nil
}

// fromHub converts a v1beta2 object back into obj's version (the mutating webhook's answer, which
// the API server converts to the version it was sent in).
func (r *Reader) fromHub(hub, obj client.Object) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	var err error
	if c, ok := obj.(conversion.Convertible); ok {
		err = c.ConvertFrom(hub.(conversion.Hub))
	} else {
		err = r.Scheme.Convert(hub, obj, nil)
	}
	if err != nil {
		return fmt.Errorf("converting %s back to %s: %w", hubVersion, gvk.GroupVersion(), err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}

// mutate is Kueue's mutating webhook (Default) on one of its v1beta2 objects.
func (r *Reader) mutate(ctx context.Context, obj client.Object) error {
	var err error
	switch o := obj.(type) {
	case *kueue.Workload:
		err = (&webhooks.WorkloadWebhook{}).Default(ctx, o)
	case *kueue.ClusterQueue:
		err = (&webhooks.ClusterQueueWebhook{}).Default(ctx, o)
	case *kueue.ResourceFlavor:
		err = (&webhooks.ResourceFlavorWebhook{}).Default(ctx, o)
	}
	if err != nil {
		return fmt.Errorf("Kueue's admission webhook denied the request: %v", err)
	}
	return nil
}

// validate is Kueue's validating webhook (ValidateCreate) on one of its v1beta2 objects, which the
// API server calls after the CRD's schema and rules (the custom resource strategy's Validate).
func (r *Reader) validate(ctx context.Context, obj client.Object) error {
	var err error
	switch o := obj.(type) {
	case *kueue.Workload:
		_, err = (&webhooks.WorkloadWebhook{}).ValidateCreate(ctx, o)
	case *kueue.ClusterQueue:
		_, err = (&webhooks.ClusterQueueWebhook{}).ValidateCreate(ctx, o)
	case *kueue.ResourceFlavor:
		_, err = (&webhooks.ResourceFlavorWebhook{}).ValidateCreate(ctx, o)
	case *kueue.Cohort:
		_, err = (&webhooks.CohortWebhook{}).ValidateCreate(ctx, o)
	}
	if err != nil {
		return fmt.Errorf("Kueue's admission webhook denied the request: %v", err)
	}
	return nil
}

// assignUIDs gives objects without a UID one, as an API server does: deterministic, in the
// order of kind, namespace and name (so that Kueue's last tie-break, the UID, orders such
// workloads by name, as kadmit does).
func assignUIDs(objs []client.Object) {
	var missing []client.Object
	for _, o := range objs {
		if o.GetUID() == "" {
			missing = append(missing, o)
		}
	}
	sort.SliceStable(missing, func(i, j int) bool {
		a, b := missing[i], missing[j]
		ka, kb := a.GetObjectKind().GroupVersionKind().Kind, b.GetObjectKind().GroupVersionKind().Kind
		if ka != kb {
			return ka < kb
		}
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
	for i, o := range missing {
		o.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1)))
	}
}

// Key names an object as "Kind namespace/name".
func Key(o client.Object) string {
	return o.GetObjectKind().GroupVersionKind().Kind + " " + strings.TrimPrefix(o.GetNamespace()+"/"+o.GetName(), "/")
}

// clusterScoped are the kinds the oracle reads that have no namespace; every other object
// without one is in `default`, where kubectl creates it with a default context.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PriorityClass": true, "RuntimeClass": true,
	"ResourceFlavor": true, "ClusterQueue": true, "Cohort": true, "WorkloadPriorityClass": true,
	"Topology": true, "AdmissionCheck": true, "MultiKueueCluster": true, "MultiKueueConfig": true,
	"ProvisioningRequestConfig": true, "ClusterTrainingRuntime": true, "Configuration": true,
}

// labelNamespace gives a Namespace the `kubernetes.io/metadata.name` label the API server sets
// on every namespace, over any value given (k8s.io/kubernetes pkg/registry/core/namespace
// strategy.go Canonicalize): a ClusterQueue's namespaceSelector may match on it.
func labelNamespace(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// A cluster-scoped object given a namespace is stored without one: the API server clears it on create
// (k8s.io/apiserver pkg/registry/rest meta.go EnsureObjectNamespaceMatchesRequestNamespace, "cluster-scoped,
// clear namespace"), so Kueue finds a ClusterQueue's AdmissionCheck `kueue-system/x` as `x`.
func defaultNamespace(u *unstructured.Unstructured) {
	if clusterScoped[u.GetKind()] {
		u.SetNamespace("")
	} else if u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
}

// defaultLimitRange fills a LimitRange's Container items as the API server stores them (its
// SetDefaults_LimitRangeItem, k8s.io/kubernetes pkg/apis/core/v1/defaults.go, which cannot be
// imported here: builtins.go says why): a resource with a max and no default limit takes the max
// as its default limit; one with a default limit and no default request takes the default limit
// as its request, else the min. Kueue fills a pod set's containers from these stored values.
func defaultLimitRange(lr *corev1.LimitRange) {
	fill := func(into corev1.ResourceList, from corev1.ResourceList) corev1.ResourceList {
		for name, q := range from {
			if _, set := into[name]; !set {
				if into == nil {
					into = corev1.ResourceList{}
				}
				into[name] = q.DeepCopy()
			}
		}
		return into
	}
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		item.Default = fill(item.Default, item.Max)
		item.DefaultRequest = fill(item.DefaultRequest, item.Default)
		item.DefaultRequest = fill(item.DefaultRequest, item.Min)
	}
}
