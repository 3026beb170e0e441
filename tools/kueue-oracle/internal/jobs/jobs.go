// Package jobs turns the jobs users submit into the Workloads Kueue v0.17 creates of them, with
// Kueue's own code and nothing of ours in between: each object goes through Kueue's admission
// webhooks (Default, then ValidateCreate) over a webhook server's mux, is created in the
// controller-runtime fake client, and is reconciled by Kueue's own job reconcilers, which
// jobframework.SetupControllers builds on a stub ctrl.Manager exactly as cmd/kueue/main.go does.
//
// What the package does itself, because an API server or another controller would (see
// docs/INTEGRATIONS.md of kadmit, "The Kueue oracle"):
//   - identity: a missing namespace is `default`; an object named by generateName gets the
//     prefix and a five-character suffix; objects without a UID or a creationTimestamp get them
//     in input order (identity.go);
//   - namespaces a job names are created if the input lacks them, and every namespace carries
//     `kubernetes.io/metadata.name`, as the API server sets it;
//   - CRD defaults (+kubebuilder:default) of the job kinds' CRDs, with the API server's
//     structural defaulting (crddefaults.go);
//   - a Deployment's pods, as its ReplicaSet would create them (deployment.go);
//   - an unsuspended Job's pods, as Kubernetes' Job controller would start them (jobpods.go);
//   - the creationTimestamp and UID of each Workload the reconcilers create (the owner's time).
package jobs

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	_ "sigs.k8s.io/kueue/pkg/controller/jobs" // every integration registers itself in init()
)

// Owner names the input object a Workload stands for. For an object named by generateName, Name
// is the prefix (then prefix#2, prefix#3 in input order), as kadmit names it; for a Kueue pod
// group it is the group's name (Kind Pod); for a Deployment's pods, the Deployment.
type Owner struct{ APIVersion, Kind, Namespace, Name string }

// Skipped is an input object Kueue makes no Workload of, and why: Kueue's webhook message, the
// reconciler's own log line or event, or why Kueue never looks at it.
type Skipped struct {
	Object Owner
	Reason string
}

// Converted is what Convert returns.
type Converted struct {
	Workloads []*kueue.Workload // as Kueue's reconcilers create them, in input order
	Owners    map[string]Owner  // "ns/workload-name" -> the job it stands for (created or already in cl)
	Skipped   []Skipped
	Notes     []string // what the API server would have changed on the way: fields it prunes
	// Reconcile runs the same job reconcilers over the same jobs again, round after round until no Workload
	// changes, as their controllers do when a job's Workload changes (startJob once it is admitted, which
	// may fail and finish it: FailedToStart). Nil where there were no jobs.
	Reconcile func(ctx context.Context) error
}

func (o Owner) String() string {
	return fmt.Sprintf("%s/%s/%s", o.Kind, o.Namespace, o.Name)
}

// AddToScheme adds the job kinds' API types (each integration's AddToScheme, as cmd/kueue does),
// and RuntimeClass, which Kueue's resource adjustment reads.
func AddToScheme(s *runtime.Scheme) error {
	if err := corev1.AddToScheme(s); err != nil {
		return err
	}
	if err := nodev1.AddToScheme(s); err != nil {
		return err
	}
	return jobframework.ForEachIntegration(func(_ string, cb jobframework.IntegrationCallbacks) error {
		if cb.AddToScheme != nil {
			return cb.AddToScheme(s)
		}
		return nil
	})
}

// SetupIndexes registers every integration's indexes (all of them: which are enabled is known
// only to Convert) on a client builder's indexer (utiltesting.AsIndexer), after Kueue's own
// indexer.Setup (which cmd/kueue runs first, and which registers the LimitRange index
// workload.AdjustResources lists by). A second index of one name panics in the fake client: do
// not build on utiltesting.NewClientBuilder, which registers four of indexer.Setup's.
func SetupIndexes(ctx context.Context, ix client.FieldIndexer) error {
	return jobframework.ForEachIntegration(func(name string, cb jobframework.IntegrationCallbacks) error {
		if cb.SetupIndexes == nil {
			return nil
		}
		if err := cb.SetupIndexes(ctx, ix); err != nil {
			return fmt.Errorf("indexes of %s: %w", name, err)
		}
		return nil
	})
}

// IsJobKind reports whether Convert takes objects of this kind: the kinds Kueue integrates, in
// any version (one their CRD serves renamed, such as ray.io v1alpha1, is read as the version
// Kueue's integration reads: servedAs; Convert reports any other version in Skipped), and the
// objects jobs refer to that only the job kinds' modules define
// (Kubeflow Trainer's TrainingRuntime and ClusterTrainingRuntime: Convert creates them, with
// their CRD's defaults, before the jobs, and reports nothing about them).
func IsJobKind(gvk schema.GroupVersionKind) bool {
	integrationOf(gvk)
	return jobGroupKinds.Has(gvk.GroupKind()) || referenced.Has(gvk.GroupKind())
}

// referenced are the kinds of objects jobs read, which Convert creates as they are.
var referenced = sets.New(
	schema.GroupKind{Group: "trainer.kubeflow.org", Kind: "TrainingRuntime"},
	schema.GroupKind{Group: "trainer.kubeflow.org", Kind: "ClusterTrainingRuntime"},
)

var (
	integrationsOnce sync.Once
	integrationByGVK map[schema.GroupVersionKind]string
	jobGroupKinds    = sets.New[schema.GroupKind]()
)

// integrationOf gives the name of the integration (framework) that handles gvk.
func integrationOf(gvk schema.GroupVersionKind) (string, bool) {
	integrationsOnce.Do(func() {
		integrationByGVK = map[schema.GroupVersionKind]string{}
		_ = jobframework.ForEachIntegration(func(name string, cb jobframework.IntegrationCallbacks) error {
			gvk := cb.GVK
			if cb.NewJob != nil {
				gvk = cb.NewJob().GVK()
			}
			integrationByGVK[gvk] = name
			jobGroupKinds.Insert(gvk.GroupKind())
			return nil
		})
	})
	name, ok := integrationByGVK[gvk]
	return name, ok
}
