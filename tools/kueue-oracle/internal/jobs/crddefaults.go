package jobs

import (
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// crdDefaults (zz_crd_defaults.go) holds, per "group/version/Kind", the CRD schema of the kinds
// Kueue integrates (and the training runtimes) pruned to the paths that lead to a default;
// crdgen writes it from the CRD YAMLs of the modules go.mod requires.

var (
	crdOnce    sync.Once
	crdErr     error
	structural map[string]*structuralschema.Structural
)

func loadCRDDefaults() {
	var entries map[string]struct {
		Source string                           `json:"source"`
		Schema *apiextensionsv1.JSONSchemaProps `json:"schema"`
	}
	if crdErr = json.Unmarshal(crdDefaults, &entries); crdErr != nil {
		return
	}
	structural = make(map[string]*structuralschema.Structural, len(entries))
	for key, e := range entries {
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(e.Schema, &internal, nil); err != nil {
			crdErr = fmt.Errorf("%s (%s): %w", key, e.Source, err)
			return
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			crdErr = fmt.Errorf("%s (%s): %w", key, e.Source, err)
			return
		}
		structural[key] = s
	}
}

// ApplyCRDDefaults applies to u the defaults of its CRD (+kubebuilder:default), with the API
// server's structural defaulting, as the API server does when the object is created. It knows
// the CRDs of the job kinds and of TrainingRuntime and ClusterTrainingRuntime (objects a
// TrainJob reads: give them this before they go into the client); it reports false for any
// other kind (built-in kinds have no CRD).
func ApplyCRDDefaults(u *unstructured.Unstructured) (bool, error) {
	crdOnce.Do(loadCRDDefaults)
	if crdErr != nil {
		return false, crdErr
	}
	gvk := u.GroupVersionKind()
	s, ok := structural[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
	if !ok {
		return false, nil
	}
	structuraldefaulting.Default(u.Object, s)
	return true, nil
}
