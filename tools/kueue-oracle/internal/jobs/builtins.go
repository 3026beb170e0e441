package jobs

import (
	_ "crypto/sha256" // the digests an image reference may name (k8s.io/kubernetes pkg/util/parsers)
	_ "crypto/sha512"
	"math"
	"strings"

	"github.com/distribution/reference"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyBuiltinDefaults applies, to the built-in kinds Kueue integrates, the part of the API
// server's defaulting (k8s.io/kubernetes v1.35 pkg/apis/{batch,apps,core}/v1/defaults.go) that
// Kueue's conversion reads. Kubernetes' own functions cannot run here: importing
// k8s.io/kubernetes registers its feature gates in the process-wide gate Kueue registers its own
// in, and the two disagree on DynamicResourceAllocation (a panic at start-up). Defaults that
// only shape fields Kueue copies without reading or comparing (dnsPolicy, schedulerName, ...) are
// left out (the containers' imagePullPolicy and terminationMessage* Kueue compares with a prebuilt
// Workload's: applyContainerDefaults, for an object being submitted); so are admission plugins
// such as LimitRanger, which sets a new pod's container defaults from the namespace's LimitRanges
// (Kueue applies the same defaults to the Workload).
func applyBuiltinDefaults(obj client.Object) {
	switch o := obj.(type) {
	case *batchv1.Job:
		defaultJob(o)
		defaultContainerFields(&o.Spec.Template.Spec)
	case *appsv1.Deployment:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr.To[int32](1)
		}
		defaultContainerFields(&o.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr.To[int32](1)
		}
		defaultContainerFields(&o.Spec.Template.Spec)
	case *corev1.Pod:
		defaultPodRequests(&o.Spec)
		defaultContainerFields(&o.Spec)
	}
}

// defaultContainerFields is the part of SetObjectDefaults_{Pod,PodTemplate} (core/v1
// zz_generated.defaults.go) that the Workload CRD's schema carries as `default`s too, which the
// harness applies to a Workload (crddefaults.go): SetDefaults_ContainerPort (protocol TCP), an env
// var's fileKeyRef without `optional` (false), a probe's gRPC action without `service` (""). Kueue
// compares a job's containers with a prebuilt Workload's (EquivalentToWorkload, Semantic.DeepEqual),
// and on a cluster both sides carry these: left out of the job alone, a Job whose ports leave out
// `protocol` was out of sync with its Workload here and in sync on a cluster (INTEGRATIONS J11).
// The core/v1 defaults a Workload does not get (imagePullPolicy, terminationMessagePath, ...) are
// applyContainerDefaults', for an object being submitted.
func defaultContainerFields(spec *corev1.PodSpec) {
	each := func(ports []corev1.ContainerPort, env []corev1.EnvVar, probes ...*corev1.Probe) {
		for i := range ports {
			if ports[i].Protocol == "" {
				ports[i].Protocol = corev1.ProtocolTCP
			}
		}
		for i := range env {
			if f := env[i].ValueFrom; f != nil && f.FileKeyRef != nil && f.FileKeyRef.Optional == nil {
				f.FileKeyRef.Optional = ptr.To(false)
			}
		}
		for _, p := range probes {
			if p != nil && p.GRPC != nil && p.GRPC.Service == nil {
				p.GRPC.Service = ptr.To("")
			}
		}
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			c := &cs[i]
			each(c.Ports, c.Env, c.LivenessProbe, c.ReadinessProbe, c.StartupProbe)
		}
	}
	for i := range spec.EphemeralContainers {
		c := &spec.EphemeralContainers[i].EphemeralContainerCommon
		each(c.Ports, c.Env, c.LivenessProbe, c.ReadinessProbe, c.StartupProbe)
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
// a pod template), then, for a pod that sets its own limits (PodLevelResources, on by default since
// v1.34), defaultHugePagePodLimits and defaultPodRequests.
func defaultPodRequests(spec *corev1.PodSpec) {
	defaultContainerRequests(spec)
	pod := &corev1.Pod{Spec: *spec}
	defaultHugePagePodLimits(pod)
	defaultPodLevelRequests(pod)
	spec.Resources = pod.Spec.Resources
}

// defaultHugePagePodLimits: a pod with its own requests or limits gets, for each hugepages
// resource its containers limit and it does not, their aggregate limit.
func defaultHugePagePodLimits(pod *corev1.Pod) {
	res := pod.Spec.Resources
	if res == nil || (len(res.Limits) == 0 && len(res.Requests) == 0) {
		return
	}
	limits := res.Limits
	if limits == nil {
		limits = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{}) {
		if !resourcehelper.IsSupportedPodLevelResource(name) || !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			continue
		}
		if _, ok := limits[name]; !ok {
			limits[name] = q.DeepCopy()
		}
	}
	if len(limits) > 0 {
		res.Limits = limits
	}
}

// defaultPodLevelRequests (k8s defaultPodRequests): a pod with its own limits gets its own
// requests of cpu and memory its containers request (their aggregate), then of each supported
// resource it limits, the limit.
func defaultPodLevelRequests(pod *corev1.Pod) {
	res := pod.Spec.Resources
	if res == nil || len(res.Limits) == 0 {
		return
	}
	reqs := res.Requests
	if reqs == nil {
		reqs = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{}) {
		// IsOvercommitAllowed: a native resource other than hugepages
		overcommit := !strings.Contains(string(name), "/") && !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && overcommit {
			reqs[name] = q.DeepCopy()
		}
	}
	for name, q := range res.Limits {
		if _, ok := reqs[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		res.Requests = reqs
	}
}

// defaultContainerRequests: each container's missing requests default to its limits.
func defaultContainerRequests(spec *corev1.PodSpec) {
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

// applyContainerDefaults applies SetDefaults_Container (k8s.io/kubernetes v1.35 pkg/apis/core/v1/
// defaults.go) to the containers and init containers of a built-in kind being submitted, as the API
// server does on create: imagePullPolicy (Always for an image whose tag is `latest`, or that names
// neither tag nor digest; else IfNotPresent, an image that does not parse included),
// terminationMessagePath and terminationMessagePolicy. The Workload CRD has no such defaults, so a
// prebuilt Workload that leaves them unset is out of sync with the job (EquivalentToWorkload,
// Semantic.DeepEqual of the containers; kadmit's KAD193). An object the input shows stored (a UID or
// a status) is read as the server holds it: its containers carry what they carry, as do the
// Workloads Kueue made of it.
func applyContainerDefaults(obj client.Object) {
	var spec *corev1.PodSpec
	switch o := obj.(type) {
	case *batchv1.Job:
		spec = &o.Spec.Template.Spec
	case *appsv1.Deployment:
		spec = &o.Spec.Template.Spec
	case *appsv1.StatefulSet:
		spec = &o.Spec.Template.Spec
	case *corev1.Pod:
		spec = &o.Spec
	default:
		return
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			c := &cs[i]
			setContainerDefaults(c.Image, &c.ImagePullPolicy, &c.TerminationMessagePath, &c.TerminationMessagePolicy)
		}
	}
	for i := range spec.EphemeralContainers { // SetDefaults_EphemeralContainer
		c := &spec.EphemeralContainers[i].EphemeralContainerCommon
		setContainerDefaults(c.Image, &c.ImagePullPolicy, &c.TerminationMessagePath, &c.TerminationMessagePolicy)
	}
}

// setContainerDefaults is SetDefaults_Container on one container's fields.
func setContainerDefaults(image string, pull *corev1.PullPolicy, path *string, policy *corev1.TerminationMessagePolicy) {
	if *pull == "" {
		*pull = corev1.PullIfNotPresent
		if imageTag(image) == "latest" {
			*pull = corev1.PullAlways
		}
	}
	if *path == "" {
		*path = corev1.TerminationMessagePathDefault
	}
	if *policy == "" {
		*policy = corev1.TerminationMessageReadFile
	}
}

// imageTag is the tag k8s.io/kubernetes pkg/util/parsers.ParseImageName gives an image: its own,
// `latest` where it names neither tag nor digest, "" where it names only a digest or does not parse.
func imageTag(image string) string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return ""
	}
	var tag, digest string
	if tagged, ok := named.(reference.Tagged); ok {
		tag = tagged.Tag()
	}
	if digested, ok := named.(reference.Digested); ok {
		digest = digested.Digest().String()
	}
	if tag == "" && digest == "" {
		return "latest"
	}
	return tag
}
