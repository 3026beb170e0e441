package main

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/jobs"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/report"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
)

// The jobs of the input are turned into Workloads by internal/jobs (Kueue's webhooks and job
// reconcilers), against the fake client holding every other object.

// jobKinds says which of these documents go to the job integrations: the kinds Kueue integrates, except
// pods bound to a node, which only use the node's capacity (Kueue's non-TAS usage cache counts them),
// unless the documents show their Workload being deleted and Kueue's pod reconciler takes them (podReconciled:
// with none, nothing stops the pod nor lets the Workload go). Kueue's pod reconciler meets such a pod as any other
// of its pods; the Workload being deleted, it stops the pod or the pod group (deletes the pods) and drops
// the Workload's finalizer (jobframework's "1.1 If the workload is pending deletion"), so the Workload
// goes with its quota. A pod's Workload is found as that reconciler finds it: a pod group's is named as
// the group (Pod.FindMatchingWorkloads), a single pod's names the pod among its owners.
func jobKinds(docs []input.Document, frameworks []string) func(schema.GroupVersionKind, *unstructured.Unstructured) bool {
	going := map[string]bool{} // "namespace/name" of Workloads being deleted, "owner:namespace/name" of the pods owning one
	for _, d := range docs {
		u := d.Object
		if u.GroupVersionKind().GroupKind() != (schema.GroupKind{Group: kueue.GroupVersion.Group, Kind: "Workload"}) ||
			u.GetDeletionTimestamp() == nil {
			continue
		}
		ns := u.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		going[ns+"/"+u.GetName()] = true
		for _, ref := range u.GetOwnerReferences() {
			if ref.Kind == "Pod" && ref.APIVersion == "v1" {
				going["owner:"+ns+"/"+ref.Name] = true
			}
		}
	}
	return func(gvk schema.GroupVersionKind, u *unstructured.Unstructured) bool {
		if gvk.Group == "" && gvk.Kind == "Pod" {
			node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName")
			if node != "" {
				ns := u.GetNamespace()
				if ns == "" {
					ns = "default"
				}
				group := u.GetLabels()[podconstants.GroupNameLabel]
				return podReconciled(frameworks, u) &&
					((group != "" && going[ns+"/"+group]) || (group == "" && going["owner:"+ns+"/"+u.GetName()]))
			}
		}
		return jobs.IsJobKind(gvk)
	}
}

// jobsRun is what the job integrations made of the input's jobs, for one run.
type jobsRun struct {
	in      *objects.Input
	seed    int64 // the run's: the created Workloads' UIDs are drawn from it (0: input order)
	owners  report.Owners
	skipped []objects.Skipped
	again   func(ctx context.Context) error // the job reconcilers over the run's jobs (convert made them)
}

func jobConverter(in *objects.Input, seed int64) *jobsRun {
	return &jobsRun{in: in, seed: seed, owners: report.Owners{}}
}

// convert is called with the fake client holding every other object of the input.
func (j *jobsRun) convert(ctx context.Context, cl client.Client, clk clock.Clock) ([]*kueue.Workload, error) {
	j.skipped = nil
	j.owners = report.Owners{}
	j.again = nil
	if len(j.in.Jobs) == 0 {
		return nil, nil
	}
	objs := make([]*unstructured.Unstructured, len(j.in.Jobs))
	for i, u := range j.in.Jobs {
		objs[i] = u.DeepCopy()
	}
	// Kueue keeps the integrations its job controllers enabled in a package variable: forget another
	// cluster's, decided before in this process (--each); a harness hook injected into the build copy
	// (_inject), so that internal/jobs builds, and its Go tests run, with the committed go.mod.
	jobframework.OracleResetEnabledIntegrations()
	converted, err := jobs.ConvertSeeded(ctx, cl, objs, j.in.Config, clk, j.seed)
	if err != nil {
		return nil, err
	}
	j.again = converted.Reconcile
	for key, o := range converted.Owners {
		j.owners[key] = objects.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	}
	for _, s := range converted.Skipped {
		o := s.Object
		j.skipped = append(j.skipped, objects.Skipped{
			Ref: objects.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}, Reason: s.Reason})
	}
	return converted.Workloads, nil
}

// clusterScheme is the scheme of one path's cluster (admit, convert): the kinds Kueue's manager registers and every
// integration's job kinds. One is built and used again while no cluster changed it, where building one for each
// --each path was a tenth of a small cluster's time. A cluster may: the fake client registers the kind of an
// unstructured object it holds that the scheme does not know (controller-runtime's
// addToSchemeIfUnknownAndUnstructuredOrPartial: a kind an external framework names), its only change to a scheme.
// A scheme that came back knowing more kinds is dropped, so each path is decided on the scheme a process of its
// own builds (with one shared across paths, a later path read such a kind as held in the cluster).
func clusterScheme() *runtime.Scheme {
	if s := lastScheme.scheme; s != nil && len(s.AllKnownTypes()) == lastScheme.kinds {
		return s
	}
	s := objects.NewScheme(jobs.AddToScheme)
	lastScheme.scheme, lastScheme.kinds = s, len(s.AllKnownTypes())
	return s
}

var lastScheme struct {
	scheme *runtime.Scheme
	kinds  int // how many kinds it knew when built
}

// jobIndexes registers the job integrations' field indexes.
func jobIndexes(ctx context.Context, ix client.FieldIndexer) error {
	return jobs.SetupIndexes(ctx, ix)
}

// reconcile runs the job reconcilers over the run's jobs again (admit --reconcile-jobs-every).
func (j *jobsRun) reconcile(ctx context.Context) error {
	if j.again == nil {
		return nil
	}
	return j.again(ctx)
}

// podParents are the integrations that turn Kueue's pod integration on where the Configuration does not
// list it (their ImplicitlyEnabledFrameworkNames).
var podParents = []string{"deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"}

// podReconciled says whether Kueue's pod reconciler takes the pod: the pod integration enabled, or turned on by
// a parent's and the pod marked by that parent's webhook (Pod.Skip skips the others). Kueue sets up no
// reconciler of an integration not enabled.
func podReconciled(frameworks []string, u *unstructured.Unstructured) bool {
	if slices.Contains(frameworks, "pod") {
		return true
	}
	return slices.ContainsFunc(podParents, func(p string) bool { return slices.Contains(frameworks, p) }) &&
		u.GetAnnotations()[podconstants.SuspendedByParentAnnotation] != ""
}
