package jobs

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

var podGVK = corev1.SchemeGroupVersion.WithKind("Pod")

// UIDs the oracle gives objects that have none, by kind of object and position: they sort in
// input order (Kueue breaks ties between equal creation times by UID), and never collide with
// each other.
const (
	uidJob = iota + 1
	uidPod
	uidReplicaSet
	uidNamespace
	uidWorkload
	uidStatefulSet
)

func makeUID(tag, n int) types.UID {
	return types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", tag, n))
}

// uidDraw draws random version-4 UUIDs from seed, as the API server gives a created object one
// (uuid.New); nil for seed 0 (makeUID's input order).
func uidDraw(seed int64) func() types.UID {
	if seed == 0 {
		return nil
	}
	rng := rand.New(rand.NewSource(seed))
	return func() types.UID {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Intn(256))
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
	}
}

// generatedName is what the API server makes of a generateName prefix (five characters of
// utilrand's alphabet; here from a counter, so that runs are reproducible).
func generatedName(prefix string, n int) string {
	return prefix + utilrand.SafeEncodeString(fmt.Sprintf("%05d", n%100000))
}

// servedAs are the older versions a job kind's CRD (Kueue v0.17's go.mod pins) still serves
// beside the version Kueue's integration reads, converted by renaming (no conversion webhook):
// KubeRay ray-operator v1.6.0's CRDs serve ray.io/v1alpha1 RayCluster, RayJob and RayService
// (storage: ray.io/v1), so Kueue's v1 client reads such an object as a v1 one.
var servedAs = map[schema.GroupVersionKind]schema.GroupVersionKind{
	{Group: "ray.io", Version: "v1alpha1", Kind: "RayCluster"}: {Group: "ray.io", Version: "v1", Kind: "RayCluster"},
	{Group: "ray.io", Version: "v1alpha1", Kind: "RayJob"}:     {Group: "ray.io", Version: "v1", Kind: "RayJob"},
	{Group: "ray.io", Version: "v1alpha1", Kind: "RayService"}: {Group: "ray.io", Version: "v1", Kind: "RayService"},
}

// epoch is the creation time of the first untimed object when nothing in the input has one
// (kadmit's default creation time).
var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// identify fills in what the API server would give each object on create, in input order, and
// names it as kadmit does (Owner): a missing namespace is `default`; a generateName object gets
// a generated name (its Owner keeps the prefix: prefix, prefix#2, ...); an object without a UID
// gets one; an object without a creationTimestamp is created after everything that has one, a
// second apart in input order (the API server keeps seconds), as kadmit queues untimed jobs.
func identify(ctx context.Context, cl client.Client, objs []*unstructured.Unstructured) ([]*item, error) {
	latest, err := latestCreation(ctx, cl, objs)
	if err != nil {
		return nil, err
	}
	prefixes := map[string]int{}
	var generated, untimed int
	items := make([]*item, 0, len(objs))
	for i, in := range objs {
		u := in.DeepCopy()
		gvk := u.GroupVersionKind()
		if u.GetNamespace() == "" && gvk.Kind != "ClusterTrainingRuntime" {
			u.SetNamespace(metav1.NamespaceDefault)
		}
		name := u.GetName()
		if name == "" && u.GetGenerateName() != "" {
			prefix := u.GetGenerateName()
			key := gvk.GroupKind().String() + "/" + u.GetNamespace() + "/" + prefix
			prefixes[key]++
			name = prefix
			if n := prefixes[key]; n > 1 {
				name = fmt.Sprintf("%s#%d", prefix, n)
			}
			generated++
			u.SetName(generatedName(prefix, generated))
		}
		status, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status")
		it := &item{
			index:     i,
			u:         u,
			gvk:       gvk,
			owner:     Owner{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: name},
			submitted: u.GetUID() == "" && isEmpty(status),
		}
		it.stands = it.owner
		if to, ok := servedAs[gvk]; ok {
			// The API server takes the object in the version it was sent in (that version's CRD
			// defaults and schema: submit checks it against it), stores it in the storage version by renaming it (the CRD has no conversion
			// webhook: strategy None) and serves it to Kueue's client, which reads only that one.
			if _, err := ApplyCRDDefaults(u); err != nil {
				return nil, err
			}
			u.SetAPIVersion(to.GroupVersion().String())
			it.gvk, it.sentIn = to, gvk
		}
		if group := u.GetLabels()[podconstants.GroupNameLabel]; group != "" && gvk == podGVK {
			it.stands = Owner{APIVersion: "v1", Kind: "Pod", Namespace: u.GetNamespace(), Name: group}
		}
		if u.GetUID() == "" {
			u.SetUID(makeUID(uidJob, i+1))
		}
		if ts := u.GetCreationTimestamp(); ts.IsZero() {
			untimed++
			u.SetCreationTimestamp(metav1.NewTime(latest.Add(time.Duration(untimed) * time.Second)))
		}
		items = append(items, it)
	}
	return items, nil
}

// latestCreation is the latest creation time among the Workloads already in cl and the objects.
func latestCreation(ctx context.Context, cl client.Client, objs []*unstructured.Unstructured) (time.Time, error) {
	latest := epoch
	var wls kueue.WorkloadList
	if err := cl.List(ctx, &wls); err != nil {
		return latest, err
	}
	for i := range wls.Items {
		if t := wls.Items[i].CreationTimestamp.Time; t.After(latest) {
			latest = t
		}
	}
	for _, u := range objs {
		if t := u.GetCreationTimestamp().Time; t.After(latest) {
			latest = t
		}
	}
	return latest.Truncate(time.Second), nil
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range v {
			if !isEmpty(x) {
				return false
			}
		}
		return true
	case []any:
		return len(v) == 0
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	}
	return false
}

// ensureNamespace makes sure namespace ns exists, carrying `kubernetes.io/metadata.name` as the
// API server sets it on every namespace (managedJobsNamespaceSelector's default matches on it).
// A namespace the input lacks is created with that label alone (kadmit reads it the same way).
func ensureNamespace(ctx context.Context, cl client.Client, ns string, n int) error {
	var got corev1.Namespace
	err := cl.Get(ctx, client.ObjectKey{Name: ns}, &got)
	if apierrors.IsNotFound(err) {
		return cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:              ns,
			UID:               makeUID(uidNamespace, n),
			CreationTimestamp: metav1.NewTime(epoch),
			Labels:            map[string]string{corev1.LabelMetadataName: ns},
		}})
	}
	if err != nil {
		return err
	}
	if got.Labels[corev1.LabelMetadataName] == ns {
		return nil
	}
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	got.Labels[corev1.LabelMetadataName] = ns
	return cl.Update(ctx, &got)
}
