package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Kueue's own files, which the module carries but no package of its release embeds: the oracle's
// build copy gets them as packages (_inject/config/components/{crd/bases,manager}), which only the
// main package imports (kueuefiles.go sets these), so that this package builds and tests with the
// committed go.mod (its tests read them from the module's directory: files_test.go).
var (
	// KueueCRDs holds the CRD files of config/components/crd/bases.
	KueueCRDs fs.FS
	// KueueInstalledConfiguration is config/components/manager/controller_manager_config.yaml.
	KueueInstalledConfiguration []byte
)

// Defaulter applies the `+kubebuilder:default` values of Kueue's CRDs as an API server does:
// each version's structural schema, from the module's own CRD files
// (config/components/crd/bases), through apiextensions-apiserver's defaulting algorithm.
type Defaulter struct {
	schemas map[schema.GroupVersionKind]*structuralschema.Structural
	// versions validate objects as the API server does (validate.go), built on first use
	versions map[schema.GroupVersionKind]*crdVersion
}

// KueueDefaulter is NewDefaulter's, read once per process (the CRDs are the module's own, fixed):
// its schemas are only read (Default copies each default into the object), so one serves every
// cluster an --each run decides. Reading them was most of a small cluster's time.
var KueueDefaulter = sync.OnceValues(NewDefaulter)

// NewDefaulter reads every CRD the Kueue module ships.
func NewDefaulter() (*Defaulter, error) {
	d := &Defaulter{schemas: map[schema.GroupVersionKind]*structuralschema.Structural{},
		versions: map[schema.GroupVersionKind]*crdVersion{}}
	if KueueCRDs == nil {
		return nil, fmt.Errorf("Kueue's CRDs (config/components/crd/bases) were not given to the oracle")
	}
	files, err := fs.Glob(KueueCRDs, "*.yaml")
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		data, err := fs.ReadFile(KueueCRDs, name)
		if err != nil {
			return nil, err
		}
		crd, err := readCRD(data)
		if err != nil {
			return nil, fmt.Errorf("reading Kueue's CRD %s: %w", name, err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			var internal apiextensions.JSONSchemaProps
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				return nil, fmt.Errorf("CRD %s %s: %w", crd.Name, v.Name, err)
			}
			s, err := structuralschema.NewStructural(&internal)
			if err != nil {
				return nil, fmt.Errorf("CRD %s %s: %w", crd.Name, v.Name, err)
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			d.schemas[gvk] = s
			d.versions[gvk] = &crdVersion{kind: gvk, namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
				props: &internal, structural: s, status: v.Subresources != nil && v.Subresources.Status != nil}
		}
	}
	return d, nil
}

// Knows says whether gvk is one of Kueue's CRD versions.
func (d *Defaulter) Knows(gvk schema.GroupVersionKind) bool {
	_, ok := d.schemas[gvk]
	return ok
}

// Default fills the defaults of obj's version in place.
func (d *Defaulter) Default(gvk schema.GroupVersionKind, obj map[string]interface{}) {
	if s, ok := d.schemas[gvk]; ok {
		structuraldefaulting.Default(obj, s)
	}
}

// readCRD reads a CRD file. Its YAML takes most of a small run's CPU to parse (the Workload CRD is 1.4 MB),
// so the CRD read is kept as JSON beside the binary (crds/SHA-256 OF THE YAML.json), which later processes of
// the same binary decode in a fraction of the time; the JSON is the CRD's own encoding, which decodes back to
// the same CRD (TestCRDsReadBackFromJSON). Where that folder can't be written, each process parses the YAML.
func readCRD(data []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	sum := sha256.Sum256(data)
	kept := crdCacheDir()
	if kept != "" {
		kept = filepath.Join(kept, hex.EncodeToString(sum[:])+".json")
		if text, err := os.ReadFile(kept); err == nil && json.Unmarshal(text, &crd) == nil {
			return &crd, nil
		}
		crd = apiextensionsv1.CustomResourceDefinition{}
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	if kept != "" {
		if text, err := json.Marshal(&crd); err == nil && os.MkdirAll(filepath.Dir(kept), 0o755) == nil {
			if f, err := os.CreateTemp(filepath.Dir(kept), ".crd-*"); err == nil {
				_, werr := f.Write(text)
				if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), kept) != nil {
					os.Remove(f.Name())
				}
			}
		}
	}
	return &crd, nil
}

// crdCacheDir is where readCRD keeps CRDs read: crds/ beside the running binary (the wrapper's cache
// folder, one per build), "" where unknown.
func crdCacheDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), "crds")
}
