package jobs

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

// replaceStopped does what Kubernetes' ReplicaSet controller does for a pod of its that Kueue's pod
// reconciler deleted: it makes another from its template. The pods of a Deployment's ReplicaSet are
// Kueue's one by one, each with its Workload; one whose Workload the input shows being deleted is
// stopped (Pod.Stop deletes it) as the Workload goes ("1.1 If the workload is pending deletion"), and
// its ReplicaSet, still wanting the pod, makes a new one, which Kueue's pod webhook gates and its
// reconciler gives a new Workload, queued afresh. The template is the deleted pod's own (a ReplicaSet's
// pods are its template); the new pod is named as the controller names one (`<replicaset>-` and five
// characters), created after everything the input shows (as recreated Workloads are, collect), and
// given to the deleted pod's item, so that its Workload stands for the same object. Only single pods
// with a ReplicaSet as controller whose Workload was being deleted and that are gone after reconciling.
func (e *env) replaceStopped(ctx context.Context, items []*item) ([]*item, error) {
	var out []*item
	for _, it := range items {
		old, ok := it.obj.(*corev1.Pod)
		if !ok || it.framework != podFramework || old.Labels[podconstants.GroupNameLabel] != "" || !e.deletingOwners.Has(old.UID) {
			continue
		}
		owner := metav1.GetControllerOf(old)
		if owner == nil || owner.Kind != "ReplicaSet" {
			continue
		}
		if err := e.cl.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			continue // not deleted (or still being deleted): nothing to replace yet
		}
		// the ReplicaSet exists in a cluster where its pod does: Kueue's pod webhook reads it
		// (FindAncestorJobManagedByKueue) for a pod no parent's webhook marked
		if err := e.ensureReplicaSet(ctx, old.Namespace, owner); err != nil {
			return nil, err
		}
		e.untimed++
		pod := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name:              owner.Name + "-" + utilrand.SafeEncodeString(fmt.Sprintf("r%04d", it.index)),
				Namespace:         old.Namespace,
				UID:               makeUID(uidPod, 1<<30|it.index),
				CreationTimestamp: metav1.NewTime(e.latest.Add(time.Duration(e.untimed) * time.Second)),
				Labels:            copyMap(old.Labels),
				Annotations:       copyMap(old.Annotations),
				OwnerReferences:   []metav1.OwnerReference{*owner},
			},
			Spec: *old.Spec.DeepCopy(),
		}
		pod.Spec.NodeName = ""
		pod.Spec.SchedulingGates = nil
		admitted, refusal, err := e.admit(ctx, corev1.SchemeGroupVersion.WithKind("Pod"), pod)
		if err != nil {
			return nil, err
		}
		if refusal != "" {
			it.skip = "Kueue's pod webhook refuses the pod its ReplicaSet makes in its place: " + refusal
			continue
		}
		if err := e.cl.Create(ctx, admitted); err != nil {
			return nil, fmt.Errorf("the pod replacing %s/%s: %w", old.Namespace, old.Name, err)
		}
		p := admitted.(*corev1.Pod)
		it.pods = append(it.pods, p)
		it.uids = append(it.uids, p.UID)
		out = append(out, &item{index: it.index, u: it.u, gvk: it.gvk, owner: it.owner, stands: it.stands,
			framework: podFramework, obj: p, uids: it.uids})
	}
	return out, nil
}

// ensureReplicaSet creates the ReplicaSet a pod of the input names as its controller, as the cluster holds
// it, where the input does not give it: with no owner of its own (the input does not say its Deployment).
func (e *env) ensureReplicaSet(ctx context.Context, namespace string, owner *metav1.OwnerReference) error {
	key := client.ObjectKey{Namespace: namespace, Name: owner.Name}
	if err := e.cl.Get(ctx, key, &appsv1.ReplicaSet{}); !apierrors.IsNotFound(err) {
		return err
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: owner.Name, Namespace: namespace, UID: owner.UID,
		CreationTimestamp: metav1.NewTime(e.latest)}}
	if err := e.cl.Create(ctx, rs); err != nil {
		return fmt.Errorf("the ReplicaSet %s/%s of a pod of the input: %w", namespace, owner.Name, err)
	}
	return nil
}
