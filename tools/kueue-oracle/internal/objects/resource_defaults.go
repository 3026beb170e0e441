package objects

import (
	resourcev1 "k8s.io/api/resource/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// defaultDeviceRequests applies the API server's defaulting of resource.k8s.io/v1 device requests
// (k8s.io/kubernetes pkg/apis/resource/v1/defaults.go) to the claims and claim templates of the
// input: an exact request or a subrequest without an allocationMode is ExactCount, and then one
// without a count asks for 1 (a subrequest's count of 0 stays where it is the last of several).
// Kueue reads both (pkg/dra countDevicesPerClass): with the mode left empty it refused the request
// as an "unsupported allocation mode", which no claim from an API server has. Kubernetes' own
// function cannot run here (see internal/jobs/builtins.go).
func defaultDeviceRequests(obj client.Object) {
	var spec *resourcev1.ResourceClaimSpec
	switch o := obj.(type) {
	case *resourcev1.ResourceClaimTemplate:
		spec = &o.Spec.Spec
	case *resourcev1.ResourceClaim:
		spec = &o.Spec
	default:
		return
	}
	for i := range spec.Devices.Requests {
		req := &spec.Devices.Requests[i]
		if req.Exactly != nil {
			defaultMode(&req.Exactly.AllocationMode, &req.Exactly.Count, true)
		}
		n := len(req.FirstAvailable)
		for j := range req.FirstAvailable {
			sub := &req.FirstAvailable[j]
			defaultMode(&sub.AllocationMode, &sub.Count, n == 1 || j < n-1)
		}
	}
}

func defaultMode(mode *resourcev1.DeviceAllocationMode, count *int64, countToo bool) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if countToo && *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}
