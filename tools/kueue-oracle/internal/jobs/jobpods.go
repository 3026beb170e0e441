package jobs

import (
	"context"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const jobFramework = "batch/job"

// startJob creates what Kubernetes' Job controller would of a Job being submitted that Kueue's Job
// webhook left unsuspended (it names no queue, or its integration is not enabled: WorkloadShouldBeSuspended
// is false): the pods it starts with, from the Job's template as stored, through Kueue's pod webhook.
// Kueue's pod integration then decides them as it decides any pod (Pod.IsTopLevel): where the pods carry
// a queue name (their template's label) and no ancestor is Kueue's (FindAncestorJobManagedByKueue), the
// webhook gates them and the pod reconciler makes each a Workload, or one for their pod group.
//
// The pods are those of the controller's first sync (pkg/controller/job, manageJob): wantActive =
// parallelism, lowered to completions where set; an Indexed Job's take the indexes 0.. (their
// completion-index label and annotation, hostname `<job>-<index>`, generateName `<job>-<index>-`);
// each gets the API server's selector labels (generateSelector: job-name and controller-uid, legacy
// and batch.kubernetes.io/), the job-tracking finalizer and the Job as controller. Not for a Job
// with a controller of its own (another controller's child: the harness runs none), nor one another
// controller manages (spec.managedBy).
func (e *env) startJob(ctx context.Context, it *item) error {
	j, ok := it.obj.(*batchv1.Job)
	if !ok || ptr.Deref(j.Spec.Suspend, false) || metav1.GetControllerOf(j) != nil {
		return nil
	}
	if m := ptr.Deref(j.Spec.ManagedBy, batchv1.JobControllerName); m != batchv1.JobControllerName {
		return nil
	}
	want := int(ptr.Deref(j.Spec.Parallelism, 1))
	if j.Spec.Completions != nil {
		want = min(want, int(*j.Spec.Completions))
	}
	indexed := ptr.Deref(j.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
	for i := range want {
		if made, err := e.createPod(ctx, it, jobPod(j, it.index, i, indexed), "Job "+j.Namespace+"/"+j.Name); err != nil || !made {
			return err
		}
	}
	return nil
}

// jobPod is the i-th pod the Job controller creates from j's template.
func jobPod(j *batchv1.Job, index, i int, indexed bool) *corev1.Pod {
	labels := copyMap(j.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range []string{"job-name", batchv1.JobNameLabel} {
		if _, ok := labels[k]; !ok {
			labels[k] = j.Name
		}
	}
	for _, k := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, ok := labels[k]; !ok {
			labels[k] = string(j.UID)
		}
	}
	annotations := copyMap(j.Spec.Template.Annotations)
	spec := j.Spec.Template.Spec.DeepCopy()
	prefix := j.Name + "-"
	if indexed {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		spec.Hostname = fmt.Sprintf("%s-%d", j.Name, i)
		prefix = fmt.Sprintf("%s-%d-", j.Name, i)
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              generatedName(prefix, i),
			Namespace:         j.Namespace,
			UID:               makeUID(uidPod, (index+1)<<20|i),
			CreationTimestamp: j.CreationTimestamp,
			Labels:            labels,
			Annotations:       annotations,
			Finalizers:        append(append([]string(nil), j.Spec.Template.Finalizers...), batchv1.JobTrackingFinalizer),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: *spec,
	}
	applyBuiltinDefaults(pod)
	return pod
}
