package jobs

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyBuiltinDefaults applies, to the built-in kinds Kueue integrates, the part of the API
// server's defaulting (k8s.io/kubernetes v1.35 pkg/apis/{batch,apps,core}/v1/defaults.go) that
// Kueue's conversion reads. Kubernetes' own functions cannot run here: importing
// k8s.io/kubernetes registers its feature gates in the process-wide gate Kueue registers its own
// in, and the two disagree on DynamicResourceAllocation (a panic at start-up). Defaults that
// only shape fields Kueue copies without reading (dnsPolicy, terminationMessagePath, ...) are
// left out; so are admission plugins such as LimitRanger, which sets a new pod's container
// defaults from the namespace's LimitRanges (Kueue applies the same defaults to the Workload).
func applyBuiltinDefaults(obj client.Object) {
	switch o := obj.(type) {
	case *batchv1.Job:
		defaultJob(o)
	case *appsv1.Deployment:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr.To[int32](1)
		}
	case *appsv1.StatefulSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr.To[int32](1)
		}
	case *corev1.Pod:
		defaultPodRequests(&o.Spec)
	}
}

// defaultJob is SetDefaults_Job (JobPodReplacementPolicy is GA).
func defaultJob(j *batchv1.Job) {
	if j.Spec.Completions == nil && j.Spec.Parallelism == nil {
		j.Spec.Completions = ptr.To[int32](1)
		j.Spec.Parallelism = ptr.To[int32](1)
	}
	if j.Spec.Parallelism == nil {
		j.Spec.Parallelism = ptr.To[int32](1)
	}
	if j.Spec.BackoffLimit == nil {
		if j.Spec.BackoffLimitPerIndex != nil {
			j.Spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			j.Spec.BackoffLimit = ptr.To[int32](6)
		}
	}
	if labels := j.Spec.Template.Labels; labels != nil && len(j.Labels) == 0 {
		j.Labels = labels
	}
	if j.Spec.CompletionMode == nil {
		j.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if j.Spec.Suspend == nil {
		j.Spec.Suspend = ptr.To(false)
	}
	if j.Spec.PodReplacementPolicy == nil {
		if j.Spec.PodFailurePolicy != nil {
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if j.Spec.ManualSelector == nil {
		j.Spec.ManualSelector = ptr.To(false)
	}
}

// defaultPodRequests is SetDefaults_Pod's "requests default to limits" (on a Pod only, never on
// a pod template).
func defaultPodRequests(spec *corev1.PodSpec) {
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			res := &cs[i].Resources
			if res.Limits == nil {
				continue
			}
			if res.Requests == nil {
				res.Requests = corev1.ResourceList{}
			}
			for name, q := range res.Limits {
				if _, ok := res.Requests[name]; !ok {
					res.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
}
