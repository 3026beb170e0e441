package objects

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// NewScheme holds what Kueue's manager registers (cmd/kueue/main.go): client-go's kinds, Kueue's
// in both versions, its Configuration in both versions, and more (the job kinds).
func NewScheme(more ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(kueue.AddToScheme(s))
	utilruntime.Must(kueuev1beta1.AddToScheme(s))
	utilruntime.Must(configv1beta1.AddToScheme(s))
	utilruntime.Must(configapi.AddToScheme(s))
	for _, add := range more {
		utilruntime.Must(add(s))
	}
	return s
}
