package objects

import (
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// removedAPI is what k8s.io/api generates for a pre-release version of a built-in kind
// (zz_generated.prerelease-lifecycle.go): the release whose API server no longer serves it, and
// the kind to use instead. The API server stops serving it by the same data.
type removedAPI interface {
	APILifecycleRemoved() (major, minor int)
}

type replacedAPI interface {
	APILifecycleReplacement() schema.GroupVersionKind
}

// kubernetesVersion is the Kubernetes release whose API this binary is built with (k8s.io/api
// v0.X.Y is Kubernetes 1.X), as major and minor; 0, 0 when the build doesn't say.
func kubernetesVersion() (int, int) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return 0, 0
	}
	for _, dep := range info.Deps {
		if dep.Path != "k8s.io/api" {
			continue
		}
		v := dep.Version
		if dep.Replace != nil {
			v = dep.Replace.Version
		}
		parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
		if len(parts) < 2 || parts[0] != "0" {
			return 0, 0
		}
		minor, err := strconv.Atoi(parts[1])
		if err != nil {
			return 0, 0
		}
		return 1, minor
	}
	return 0, 0
}

// unserved says why an API server of the Kubernetes release this binary is built with refuses
// an object of this version ("" when it serves it, or when the version is not a built-in one):
// a pre-release version removed in that release or before (extensions/v1beta1 Deployment,
// removed in Kubernetes v1.16).
func unserved(scheme *runtime.Scheme, gvk schema.GroupVersionKind) string {
	if !scheme.Recognizes(gvk) {
		return ""
	}
	obj, err := scheme.New(gvk)
	if err != nil {
		return ""
	}
	gone, ok := obj.(removedAPI)
	if !ok {
		return ""
	}
	major, minor := gone.APILifecycleRemoved()
	kMajor, kMinor := kubernetesVersion()
	if kMajor == 0 || major > kMajor || (major == kMajor && minor > kMinor) {
		return ""
	}
	served := ""
	if r, ok := obj.(replacedAPI); ok {
		if to := r.APILifecycleReplacement(); to.Kind != "" {
			served = fmt.Sprintf("; served: %s", to.GroupVersion())
		}
	}
	return fmt.Sprintf("the API server does not serve %s in %s (removed in Kubernetes v%d.%d%s; Kubernetes v%d.%d, whose API Kueue's build uses)",
		gvk.Kind, gvk.GroupVersion(), major, minor, served, kMajor, kMinor)
}

// unservedKueueVersion says why the API server refuses a Kueue kind in a version Kueue's CRDs do
// not serve (kueue.x-k8s.io/v1alpha2, an early release's, as Kueue's KEPs write it): the versions
// Kueue's scheme holds the kind in are those its CRDs serve. "" for a version it serves, or a kind
// it holds in no version (another kind, listed as not read).
func unservedKueueVersion(scheme *runtime.Scheme, gvk schema.GroupVersionKind) string {
	if gvk.Group != kueueGroup || scheme.Recognizes(gvk) {
		return ""
	}
	var served []string
	for known := range scheme.AllKnownTypes() {
		if known.Group == gvk.Group && known.Kind == gvk.Kind && known.Version != runtime.APIVersionInternal {
			served = append(served, known.GroupVersion().String())
		}
	}
	if len(served) == 0 {
		return ""
	}
	sort.Strings(served)
	return fmt.Sprintf("the API server does not serve %s in %s (served: %s, by Kueue's CRDs)",
		gvk.Kind, gvk.GroupVersion(), strings.Join(served, ", "))
}
