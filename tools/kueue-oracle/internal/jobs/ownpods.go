package jobs

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/kueue/pkg/controller/jobframework"
)

// ownPodsFramework says whether the job controller of a framework's kind makes pods of its own where Kueue's
// webhook leaves the job running (it names no queue, or its integration is not enabled: a no-op webhook): a
// Kubeflow job's training operator, KubeRay's controllers, the AppWrapper controller (through its components'
// controllers) and Kubeflow Trainer (through the JobSet of its runtime). Each pod goes through Kueue's pod webhook
// as any pod does, which refuses it where its template does (a pod group named without its total count) and
// gates it where it is Kueue's on its own (FindAncestorJobManagedByKueue finds its job not Kueue's).
func ownPodsFramework(framework string) bool {
	return strings.HasPrefix(framework, "kubeflow.org/") || strings.HasPrefix(framework, "ray.io/") ||
		framework == "workload.codeflare.dev/appwrapper" || framework == "trainer.kubeflow.org/trainjob"
}

// startOwnPods creates the pods the job's controller makes of a job being submitted that Kueue's webhook left
// running (ownPodsFramework): for each of the pod sets Kueue's own integration reads of it (its GenericJob's
// PodSets: a Kubeflow job's replicas, a Ray cluster's head and worker groups, an AppWrapper's components' pod
// sets, a TrainJob's replicated jobs of its runtime), that many pods of the pod set's template, the job as their
// controller. Not for a job another object controls (a RayJob's RayCluster: the RayJob's), one Kueue suspended or
// that is suspended itself, nor one whose pod sets Kueue cannot read (the job's own reason says why). The pods'
// names are `<job>-<pod set>-<i>`: the controllers' own names differ, and no Workload of Kueue's names them.
func (e *env) startOwnPods(ctx context.Context, it *item) error {
	if metav1.GetControllerOf(it.obj) != nil {
		return nil
	}
	cb, ok := jobframework.GetIntegration(it.framework)
	if !ok || cb.NewJob == nil {
		return nil
	}
	job := cb.NewJob()
	if err := e.cl.Get(ctx, client.ObjectKeyFromObject(it.obj), job.Object()); err != nil {
		return nil
	}
	if job.IsSuspended() {
		return nil
	}
	if s, ok := job.(jobframework.JobWithSkip); ok && s.Skip(ctx) {
		return nil // a RayJob on an existing cluster: that cluster's pods are its own
	}
	sets, err := job.PodSets(ctx)
	if err != nil {
		return nil
	}
	gvk := job.GVK()
	n := 0
	for _, ps := range sets {
		for i := range int(ps.Count) {
			pod := &corev1.Pod{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{
					Name:              fmt.Sprintf("%s-%s-%d", it.obj.GetName(), ps.Name, i),
					Namespace:         it.obj.GetNamespace(),
					UID:               makeUID(uidPod, (it.index+1)<<20|n),
					CreationTimestamp: it.obj.GetCreationTimestamp(),
					Labels:            copyMap(ps.Template.Labels),
					Annotations:       copyMap(ps.Template.Annotations),
					OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(it.obj, gvk)},
				},
				Spec: *ps.Template.Spec.DeepCopy(),
			}
			n++
			applyBuiltinDefaults(pod)
			if made, err := e.createPod(ctx, it, pod, fmt.Sprintf("%s %s/%s", gvk.Kind, it.obj.GetNamespace(), it.obj.GetName())); err != nil || !made {
				return err
			}
		}
	}
	return nil
}

// startChildJobPods creates the pods Kubernetes' Job controller makes of a running JobSet's child Jobs that Kueue
// left running (startJobSet: Kueue's Job webhook suspended none of them, as it does a child Job whose template
// names a queue), as startJob makes an unsuspended Job's, numbered across the JobSet's Jobs.
func (e *env) startChildJobPods(ctx context.Context, it *item) error {
	n := 0
	for _, c := range it.children {
		j, ok := c.(*batchv1.Job)
		if !ok || ptr.Deref(j.Spec.Suspend, false) {
			continue
		}
		want := int(ptr.Deref(j.Spec.Parallelism, 1))
		if j.Spec.Completions != nil {
			want = min(want, int(*j.Spec.Completions))
		}
		indexed := ptr.Deref(j.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
		for i := range want {
			pod := jobPod(j, it.index, i, indexed)
			pod.UID = makeUID(uidPod, (it.index+1)<<20|n)
			n++
			if made, err := e.createPod(ctx, it, pod, "Job "+j.Namespace+"/"+j.Name); err != nil || !made {
				return err
			}
		}
	}
	return nil
}
