package jobs

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	jobsetapi "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

const jobSetFramework = "jobset.x-k8s.io/jobset"

var jobGVK = batchv1.SchemeGroupVersion.WithKind("Job")

// startJobSet creates what JobSet's controller would of a JobSet being submitted that Kueue's JobSet webhook
// left alone (it names no queue, its namespace has no LocalQueue `default` and manageJobsWithoutQueueName does
// not take it; or its integration is not enabled, a no-op webhook): its child Jobs, through Kueue's Job
// webhook, which decides them as any Job with an owner (FindAncestorJobManagedByKueue: the JobSet, naming no
// queue, is not a Kueue-managed ancestor), so a child Job whose template names a queue is suspended and gets
// its own Workload. JobSet v0.11.1's reconcileReplicatedJobs and constructJob: one Job
// `<jobset>-<replicated job>-<index>` per replica of each replicated job, the replicated job's template labels
// and annotations with the JobSet's own labels added (labelAndAnnotateObject: on the Job and its pod template),
// suspended as the JobSet is (`spec.suspend`: its Jobs are made suspended, and JobSet's controller keeps them so,
// suspendJobs, while Kueue starts those it admits: a fight over when they run, not over their Workloads), the
// JobSet as controller. A replicated job that dependsOn another is made once that one's Jobs reach the status
// (dependencyReachedStatus): none has one yet, so only where every one it depends on has no replicas. Under
// `startupPolicy: InOrder`, not suspended, the controller makes the first replicated job with replicas and waits
// for its Jobs to start (allReplicasStarted; one of no replicas has started) before the next: only that one's.
// Not for one another object controls (a TrainJob's). On a cluster JobSet's controller resumes the Jobs Kueue's
// webhook suspended (resumeJobsIfNecessary) and Kueue's reconciler suspends them again until their Workloads are
// admitted; the Workloads are what the scheduler decides, as here.
func (e *env) startJobSet(ctx context.Context, it *item) error {
	js, ok := it.obj.(*jobsetapi.JobSet)
	if !ok || metav1.GetControllerOf(js) != nil {
		return nil
	}
	suspended := ptr.Deref(js.Spec.Suspend, false)
	inOrder := !suspended && js.Spec.StartupPolicy != nil && js.Spec.StartupPolicy.StartupPolicyOrder == jobsetapi.InOrder
	replicas := map[string]int32{} // of the replicated jobs up to this one; those after it: 0 (none counted yet)
	for _, rj := range js.Spec.ReplicatedJobs {
		replicas[rj.Name] = 0
	}
	n := 0
	for r := range js.Spec.ReplicatedJobs {
		rj := &js.Spec.ReplicatedJobs[r]
		replicas[rj.Name] = rj.Replicas
		if !dependenciesReached(rj, replicas) || (inOrder && rj.Replicas == 0) {
			continue
		}
		for i := range int(rj.Replicas) {
			job := jobSetChild(js, rj, i)
			job.UID = makeUID(uidJob, (it.index+1)<<20|n)
			n++
			applyBuiltinDefaults(job)
			admitted, refusal, err := e.admit(ctx, jobGVK, job)
			if err != nil {
				return err
			}
			if refusal != "" {
				it.skip = "Kueue's Job webhook refuses its child Jobs: " + refusal
				return nil
			}
			if err := e.cl.Create(ctx, admitted); err != nil {
				return fmt.Errorf("job %s of JobSet %s/%s: %w", job.Name, js.Namespace, js.Name, err)
			}
			it.children = append(it.children, admitted)
			it.uids = append(it.uids, admitted.GetUID())
		}
		if inOrder {
			return nil
		}
	}
	return nil
}

// dependenciesReached is JobSet's dependencyReachedStatus for a JobSet none of whose Jobs has a status yet: every
// replicated job rj dependsOn is one of the JobSet's (else it has no status) and counts no replicas (0 of 0 Ready
// or Complete; one after rj is not counted yet).
func dependenciesReached(rj *jobsetapi.ReplicatedJob, replicas map[string]int32) bool {
	for _, d := range rj.DependsOn {
		if n, ok := replicas[d.Name]; !ok || n != 0 {
			return false
		}
	}
	return true
}

// jobSetChild is JobSet's constructJob (the labels Kueue reads: the template's, and JobSet's own).
func jobSetChild(js *jobsetapi.JobSet, rj *jobsetapi.ReplicatedJob, i int) *batchv1.Job {
	name := fmt.Sprintf("%s-%s-%d", js.Name, rj.Name, i)
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         js.Namespace,
			CreationTimestamp: js.CreationTimestamp,
			Labels:            maps.Clone(rj.Template.Labels),
			Annotations:       maps.Clone(rj.Template.Annotations),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(js, jobsetapi.SchemeGroupVersion.WithKind("JobSet"))},
		},
		Spec: *rj.Template.Spec.DeepCopy(),
	}
	own := map[string]string{
		jobsetapi.JobSetNameKey:        js.Name,
		jobsetapi.JobSetUIDKey:         string(js.UID),
		jobsetapi.ReplicatedJobNameKey: rj.Name,
		jobsetapi.JobIndexKey:          strconv.Itoa(i),
	}
	for _, m := range []*map[string]string{&job.Labels, &job.Spec.Template.Labels} {
		if *m == nil {
			*m = map[string]string{}
		}
		maps.Copy(*m, own)
	}
	job.Spec.Suspend = ptr.To(ptr.Deref(js.Spec.Suspend, false))
	return job
}
