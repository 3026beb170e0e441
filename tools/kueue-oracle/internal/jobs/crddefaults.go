package jobs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

// crdSchemas (zz_crd_schemas.go) holds, per "group/version/Kind", the CRD schema of the kinds Kueue
// integrates (and the training runtimes), as the API server has them installed (tools/kube-apiserver
// installs the same CRDs); crdgen writes it from the CRD YAMLs of the modules go.mod requires.

var (
	crdOnce sync.Once
	crdErr  error
	crdRaw  map[string]json.RawMessage // each read on first use (the whole is 1.8 MB of JSON)
	crdMu   sync.Mutex
	checks  = map[string]*objects.CRDCheck{}
)

func loadCRDSchemas() {
	z, err := base64.StdEncoding.DecodeString(crdSchemas)
	if err != nil {
		crdErr = err
		return
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		crdErr = err
		return
	}
	data, err := io.ReadAll(r)
	if err != nil {
		crdErr = err
		return
	}
	crdErr = json.Unmarshal(data, &crdRaw)
}

// crdCheck is the API server's handling of a create of gvk's objects, from its CRD; nil for a kind
// with none here (a built-in kind).
func crdCheck(gvk schema.GroupVersionKind) (*objects.CRDCheck, error) {
	crdOnce.Do(loadCRDSchemas)
	if crdErr != nil {
		return nil, crdErr
	}
	key := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
	crdMu.Lock()
	defer crdMu.Unlock()
	if c, ok := checks[key]; ok {
		return c, nil
	}
	raw, ok := crdRaw[key]
	if !ok {
		return nil, nil
	}
	var e struct {
		Source     string                           `json:"source"`
		Namespaced bool                             `json:"namespaced"`
		Status     bool                             `json:"status"`
		Schema     *apiextensionsv1.JSONSchemaProps `json:"schema"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	c, err := objects.NewCRDCheck(gvk, e.Namespaced, e.Status, e.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", key, e.Source, err)
	}
	checks[key] = c
	return c, nil
}

// ApplyCRDDefaults applies to u the defaults of its CRD (+kubebuilder:default), with the API
// server's structural defaulting, as the API server does when the object is created. It knows
// the CRDs of the job kinds and of TrainingRuntime and ClusterTrainingRuntime (objects a
// TrainJob reads: give them this before they go into the client); it reports false for any
// other kind (built-in kinds have no CRD).
func ApplyCRDDefaults(u *unstructured.Unstructured) (bool, error) {
	c, err := crdCheck(u.GroupVersionKind())
	if c == nil || err != nil {
		return false, err
	}
	c.Default(u.Object)
	return true, nil
}

// CheckCRD is what the API server does with a create of u where its kind has a CRD here: u decoded
// (non-nullable nulls dropped, defaults: in place), then validated against its CRD's schema and rules;
// the API server's refusal, word for word (`JobSet.jobset.x-k8s.io "j" is invalid: ...`), or nil.
func CheckCRD(ctx context.Context, u *unstructured.Unstructured) error {
	c, err := crdCheck(u.GroupVersionKind())
	if c == nil || err != nil {
		return err
	}
	return c.Create(ctx, u)
}
