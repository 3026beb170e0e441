package jobs

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	lwsapi "sigs.k8s.io/lws/api/leaderworkerset/v1"

	podconstants "sigs.k8s.io/kueue/pkg/controller/jobs/pod/constants"
)

const leaderWorkerSetFramework = "leaderworkerset.x-k8s.io/leaderworkerset"

var statefulSetGVK = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

// startLeaderWorkerSet creates what LeaderWorkerSet v0.8.0's controllers would of a LeaderWorkerSet being
// submitted that Kueue's webhook left unmarked (no `kueue.x-k8s.io/pod-suspending-parent` on its templates: it
// names no queue, its namespace has no LocalQueue `default`, manageJobsWithoutQueueName does not take it), its
// integration enabled: the leader StatefulSet `<lws>` (constructLeaderStatefulSetApplyConfiguration: the leader
// template, else the worker template, Parallel, `replicas`), its leader pods `<lws>-<i>`, and, where the group has
// workers (`size` above 1) and the startup policy is not LeaderReady (a gated leader is never Ready), each
// leader's worker StatefulSet `<lws>-<i>` (owned by the leader pod; constructWorkerStatefulSetApplyConfiguration)
// and its pods `<lws>-<i>-<j>`, j from 1. StatefulSets through Kueue's StatefulSet webhook, pods through its pod
// webhook, which decides them as any pod: a leader naming a queue is gated (its ancestors name none); a worker's
// walk finds its leader pod, a Kueue-managed ancestor where the leader names a queue, which leaves the worker
// ungated. Where Kueue's StatefulSet webhook marks the leader StatefulSet (`statefulset` enabled, the
// LeaderWorkerSet's integration not: `default`, or manageJobsWithoutQueueName), the StatefulSet is the item's child,
// for Kueue's StatefulSet reconciler to make its Workload; its pods are gated as suspended by their parent, and the
// workers' walk finds it, Kueue's. Only the labels Kueue reads are kept (the templates', LeaderWorkerSet's name and
// worker index).
func (e *env) startLeaderWorkerSet(ctx context.Context, it *item) error {
	lws, ok := it.obj.(*lwsapi.LeaderWorkerSet)
	if !ok || metav1.GetControllerOf(lws) != nil {
		return nil
	}
	lwt := &lws.Spec.LeaderWorkerTemplate
	if _, marked := lwt.WorkerTemplate.Annotations[podconstants.SuspendedByParentAnnotation]; marked {
		return nil
	}
	leaderTemplate := lwt.WorkerTemplate
	if lwt.LeaderTemplate != nil {
		leaderTemplate = *lwt.LeaderTemplate
	}
	replicas := int(ptr.Deref(lws.Spec.Replicas, 1))
	size := int(ptr.Deref(lwt.Size, 1))
	name := lws.Name
	leaders, err := e.makeStatefulSet(ctx, it, name, lws, lwsapi.GroupVersion.WithKind("LeaderWorkerSet"),
		leaderTemplate, replicas, map[string]string{lwsapi.SetNameLabelKey: name, lwsapi.WorkerIndexLabelKey: "0"})
	if err != nil || leaders == nil {
		return err
	}
	if leaders.Spec.Template.Annotations[podconstants.SuspendedByParentAnnotation] == statefulSetFramework {
		// Kueue's StatefulSet webhook took the leader StatefulSet (its integration disabled, the LeaderWorkerSet's
		// is no managed owner: ApplyDefaultLocalQueue gave it `default`, or manageJobsWithoutQueueName takes it):
		// Kueue's StatefulSet reconciler makes its Workload (createPrebuiltWorkload: `replicas` leaders, pod set
		// `main`), and the leader pods are that Workload's (gated by the pod webhook: suspended by their parent)
		it.children = append(it.children, leaders)
		it.uids = append(it.uids, leaders.UID)
	}
	n := 0
	for i := range replicas {
		leader, err := e.statefulSetPod(ctx, it, leaders, fmt.Sprintf("%s-%d", name, i), i, n)
		n++
		if err != nil || leader == nil {
			return err
		}
		if size <= 1 || lws.Spec.StartupPolicy == lwsapi.LeaderReadyStartupPolicy {
			continue
		}
		workers, err := e.makeStatefulSet(ctx, it, leader.Name, leader, podGVK, lwt.WorkerTemplate, size-1,
			map[string]string{lwsapi.SetNameLabelKey: name, lwsapi.GroupIndexLabelKey: strconv.Itoa(i)})
		if err != nil || workers == nil {
			return err
		}
		for j := 1; j < size; j++ {
			if p, err := e.statefulSetPod(ctx, it, workers, fmt.Sprintf("%s-%d-%d", name, i, j), j, n); err != nil || p == nil {
				return err
			}
			n++
		}
	}
	return nil
}

// makeStatefulSet creates, through Kueue's StatefulSet webhook, a Parallel StatefulSet of `replicas` pods of
// template (its labels and `labels`), controlled by owner; nil, with it.skip saying why, where the webhook refuses it.
func (e *env) makeStatefulSet(ctx context.Context, it *item, name string, owner client.Object, ownerGVK schema.GroupVersionKind,
	template corev1.PodTemplateSpec, replicas int, labels map[string]string) (*appsv1.StatefulSet, error) {
	t := *template.DeepCopy()
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	maps.Copy(t.Labels, labels)
	s := &appsv1.StatefulSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         owner.GetNamespace(),
			UID:               makeUID(uidStatefulSet, (it.index+1)<<20|len(it.uids)),
			CreationTimestamp: owner.GetCreationTimestamp(),
			Labels:            map[string]string{lwsapi.SetNameLabelKey: labels[lwsapi.SetNameLabelKey]},
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(owner, ownerGVK)},
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(int32(replicas)),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			Template:            t,
		},
	}
	applyBuiltinDefaults(s)
	admitted, refusal, err := e.admit(ctx, statefulSetGVK, s)
	if err != nil {
		return nil, err
	}
	if refusal != "" {
		it.skip = "Kueue's StatefulSet webhook refuses the StatefulSet its controller makes: " + refusal
		return nil, nil
	}
	if err := e.cl.Create(ctx, admitted); err != nil {
		return nil, fmt.Errorf("StatefulSet %s of %s: %w", name, it.owner, err)
	}
	return admitted.(*appsv1.StatefulSet), nil
}

// statefulSetPod creates pod `name` (ordinal `ordinal`) of s through Kueue's pod webhook (createPod); nil where the
// webhook refuses it.
func (e *env) statefulSetPod(ctx context.Context, it *item, s *appsv1.StatefulSet, name string, ordinal, n int) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         s.Namespace,
			UID:               makeUID(uidPod, (it.index+1)<<20|n),
			CreationTimestamp: s.CreationTimestamp,
			Labels:            copyMap(s.Spec.Template.Labels),
			Annotations:       copyMap(s.Spec.Template.Annotations),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(s, statefulSetGVK)},
		},
		Spec: *s.Spec.Template.Spec.DeepCopy(),
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
	applyBuiltinDefaults(pod)
	if made, err := e.createPod(ctx, it, pod, "StatefulSet "+s.Namespace+"/"+s.Name); err != nil || !made {
		return nil, err
	}
	return it.pods[len(it.pods)-1], nil
}
