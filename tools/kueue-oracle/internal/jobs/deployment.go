package jobs

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	deploymentFramework = "deployment"
	podFramework        = "pod"
)

// rollOut creates what Kubernetes' Deployment and ReplicaSet controllers would of a Deployment
// that has not rolled out yet (its status shows no replicas): one ReplicaSet named
// `<deployment>-<pod-template-hash>` (ComputeHash over the template as stored) and `replicas`
// pods from its template, named `<replicaset>-` plus five characters, created through Kueue's
// pod webhook. Kueue represents every pod of a Deployment as a plain pod with its own Workload
// (pkg/controller/jobs/deployment). A Deployment whose status shows replicas already has its
// pods: they are in the input, or not known.
func (e *env) rollOut(ctx context.Context, it *item) error {
	d := it.obj.(*appsv1.Deployment)
	if d.Status.Replicas > 0 || d.Status.ReadyReplicas > 0 {
		it.skip = "it has rolled out (status.replicas): its pods are Kueue's work, each with its own Workload " +
			"(give the pods, or their Workloads, in the input)"
		return nil
	}
	hash := templateHash(&d.Spec.Template, d.Status.CollisionCount)
	labels := map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: hash}
	for k, v := range d.Spec.Template.Labels {
		labels[k] = v
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:              d.Name + "-" + hash,
			Namespace:         d.Namespace,
			UID:               makeUID(uidReplicaSet, it.index+1),
			CreationTimestamp: d.CreationTimestamp,
			Labels:            labels,
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: d.Spec.Replicas,
			Selector: d.Spec.Selector,
			Template: *d.Spec.Template.DeepCopy(),
		},
	}
	rs.Spec.Template.Labels = labels
	if err := e.cl.Create(ctx, rs); err != nil {
		return fmt.Errorf("ReplicaSet of Deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	replicas := int(ptr.Deref(d.Spec.Replicas, 1))
	for i := range replicas {
		pod := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name:              rs.Name + "-" + utilrand.SafeEncodeString(fmt.Sprintf("%05d", i)),
				Namespace:         d.Namespace,
				UID:               makeUID(uidPod, (it.index+1)<<20|i),
				CreationTimestamp: d.CreationTimestamp,
				Labels:            copyMap(labels),
				Annotations:       copyMap(d.Spec.Template.Annotations),
				Finalizers:        append([]string(nil), d.Spec.Template.Finalizers...),
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
			},
			Spec: *d.Spec.Template.Spec.DeepCopy(),
		}
		applyBuiltinDefaults(pod)
		if made, err := e.createPod(ctx, it, pod, "Deployment "+d.Namespace+"/"+d.Name); err != nil || !made {
			return err
		}
	}
	return nil
}

// createPod sends a pod the item's controller makes through Kueue's pod webhook and creates it, as one of
// the item's: false, with it.skip saying why, where the webhook refuses it (a controller's pods share a
// template: the others are refused as well).
func (e *env) createPod(ctx context.Context, it *item, pod *corev1.Pod, of string) (bool, error) {
	admitted, refusal, err := e.admit(ctx, podGVK, pod)
	if err != nil {
		return false, err
	}
	if refusal != "" {
		it.skip = "Kueue's pod webhook refuses its pods: " + refusal
		return false, nil
	}
	if err := e.cl.Create(ctx, admitted); err != nil {
		return false, fmt.Errorf("pod %s of %s: %w", pod.Name, of, err)
	}
	p := admitted.(*corev1.Pod)
	it.pods = append(it.pods, p)
	it.uids = append(it.uids, p.UID)
	return true, nil
}

// templateHash is Kubernetes' controller.ComputeHash (pkg/controller/controller_utils.go):
// FNV-32a over the template's deep dump and the collision count.
func templateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return utilrand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

var _ client.Object = (*corev1.Pod)(nil)
