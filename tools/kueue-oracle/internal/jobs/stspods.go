package jobs

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

const statefulSetFramework = "statefulset"

// startStatefulSet creates what Kubernetes' StatefulSet controller would of a StatefulSet being submitted
// whose pod template Kueue's StatefulSet webhook left unmarked (no `kueue.x-k8s.io/pod-suspending-parent`:
// WorkloadShouldBeSuspended is false, it names no queue; or its integration is not enabled): its pods, from
// the template as stored, through Kueue's pod webhook, which decides them as any pod (Pod.IsTopLevel: the walk
// finds the StatefulSet not Kueue's). The controller's first syncs (pkg/controller/statefulset,
// processReplica): under OrderedReady (the default) it creates pod `<set>-<start>` and waits for it to be
// Running and Ready, which a pod Kueue gates never is, so that one alone; under Parallel, every replica.
// Each pod has the set's identity (name `<set>-<ordinal>`, hostname, subdomain the serviceName, labels
// statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index) and the set as controller. Not for a
// set another object controls (a LeaderWorkerSet's).
func (e *env) startStatefulSet(ctx context.Context, it *item) error {
	s, ok := it.obj.(*appsv1.StatefulSet)
	if !ok || metav1.GetControllerOf(s) != nil {
		return nil
	}
	if _, marked := s.Spec.Template.Annotations[podconstants.SuspendedByParentAnnotation]; marked {
		return nil
	}
	n := int(ptr.Deref(s.Spec.Replicas, 1))
	if s.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		n = min(n, 1)
	}
	start := 0
	if s.Spec.Ordinals != nil {
		start = int(s.Spec.Ordinals.Start)
	}
	for i := range n {
		ordinal := start + i
		pod := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name:              fmt.Sprintf("%s-%d", s.Name, ordinal),
				Namespace:         s.Namespace,
				UID:               makeUID(uidPod, (it.index+1)<<20|i),
				CreationTimestamp: s.CreationTimestamp,
				Labels:            copyMap(s.Spec.Template.Labels),
				Annotations:       copyMap(s.Spec.Template.Annotations),
				Finalizers:        append([]string(nil), s.Spec.Template.Finalizers...),
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(s, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))},
			},
			Spec: *s.Spec.Template.Spec.DeepCopy(),
		}
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
		pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
		pod.Spec.Hostname = pod.Name
		pod.Spec.Subdomain = s.Spec.ServiceName
		applyBuiltinDefaults(pod)
		if made, err := e.createPod(ctx, it, pod, "StatefulSet "+s.Namespace+"/"+s.Name); err != nil || !made {
			return err
		}
	}
	return nil
}
