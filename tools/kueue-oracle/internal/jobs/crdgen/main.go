// Command crdgen writes ../zz_crd_schemas.go: for every CRD of the kinds Kueue v0.17 integrates
// (and the training runtimes a TrainJob names), each served version's OpenAPI schema (its
// descriptions dropped) and the CRD's scope, read from the CRD YAMLs of the modules this module
// requires (the CRDs tools/kube-apiserver installs). The oracle applies their defaults with the API
// server's own structural defaulting and validates the objects as the API server's custom resource
// handler does (package jobs, crddefaults.go). Run it from tools/kueue-oracle after a module
// version changes:
//
//	go run ./internal/jobs/crdgen
//
// TestGenerated (main_test.go) fails while the committed file is stale.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crds are the CRD files, by module, relative to the module's root.
var crds = []struct{ module, file string }{
	{"sigs.k8s.io/jobset", "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"},
	{"sigs.k8s.io/lws", "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml"},
	{"github.com/ray-project/kuberay/ray-operator", "config/crd/bases/ray.io_rayclusters.yaml"},
	{"github.com/ray-project/kuberay/ray-operator", "config/crd/bases/ray.io_rayjobs.yaml"},
	{"github.com/ray-project/kuberay/ray-operator", "config/crd/bases/ray.io_rayservices.yaml"},
	{"github.com/kubeflow/training-operator", "manifests/base/crds/kubeflow.org_jaxjobs.yaml"},
	{"github.com/kubeflow/training-operator", "manifests/base/crds/kubeflow.org_paddlejobs.yaml"},
	{"github.com/kubeflow/training-operator", "manifests/base/crds/kubeflow.org_pytorchjobs.yaml"},
	{"github.com/kubeflow/training-operator", "manifests/base/crds/kubeflow.org_tfjobs.yaml"},
	{"github.com/kubeflow/training-operator", "manifests/base/crds/kubeflow.org_xgboostjobs.yaml"},
	{"github.com/kubeflow/mpi-operator", "manifests/base/kubeflow.org_mpijobs.yaml"},
	{"github.com/kubeflow/trainer/v2", "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml"},
	{"github.com/kubeflow/trainer/v2", "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml"},
	{"github.com/kubeflow/trainer/v2", "manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml"},
	{"github.com/project-codeflare/appwrapper", "config/crd/bases/workload.codeflare.dev_appwrappers.yaml"},
	{"github.com/kubeflow/spark-operator/v2", "config/crd/bases/sparkoperator.k8s.io_sparkapplications.yaml"},
}

// Entry is one served version of one kind: its source, whether its kind is namespaced and the version
// has the status subresource, its schema.
type Entry struct {
	Source     string                           `json:"source"`
	Namespaced bool                             `json:"namespaced"`
	Status     bool                             `json:"status"`
	Schema     *apiextensionsv1.JSONSchemaProps `json:"schema"`
}

// File is the generated Go file.
const File = "zz_crd_schemas.go"

func main() {
	out, err := Generate()
	if err == nil {
		err = os.WriteFile(filepath.Join("internal", "jobs", File), out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crdgen:", err)
		os.Exit(1)
	}
}

// Entries reads the CRDs: "group/version/Kind" -> Entry, as JSON.
func Entries() ([]byte, error) {
	dirs := map[string]string{}
	entries := map[string]Entry{}
	for _, c := range crds {
		mod, ok := dirs[c.module]
		if !ok {
			var err error
			if mod, err = moduleDir(c.module); err != nil {
				return nil, err
			}
			dirs[c.module] = mod
		}
		dir, version, _ := strings.Cut(mod, "\n")
		raw, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", c.file, err)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			schema := v.Schema.OpenAPIV3Schema.DeepCopy()
			undescribe(schema)
			key := crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Kind
			entries[key] = Entry{Source: version + "/" + c.file,
				Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
				Status:     v.Subresources != nil && v.Subresources.Status != nil, Schema: schema}
		}
	}
	return json.Marshal(entries) // (a map's keys in order)
}

// Generate returns the Go file that holds the entries (a Go file, so that the build wrapper's cache
// key, which hashes the module's Go sources, covers it): their JSON (1.8 MB, mostly pod templates
// written again and again) gzipped (0.11 MB), in base64.
func Generate() ([]byte, error) {
	data, err := Entries()
	if err != nil {
		return nil, err
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by crdgen (go run ./internal/jobs/crdgen); DO NOT EDIT.\n\n")
	b.WriteString("package jobs\n\n")
	b.WriteString("// crdSchemas: base64 of the gzipped JSON \"group/version/Kind\" -> {source, namespaced, status, schema}.\n")
	fmt.Fprintf(&b, "const crdSchemas = %q\n", base64.StdEncoding.EncodeToString(z.Bytes()))
	return b.Bytes(), nil
}

// undescribe drops the descriptions of a schema and of every schema in it: documentation, which
// neither defaulting nor validation reads.
func undescribe(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	s.Description = ""
	for _, m := range []map[string]apiextensionsv1.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for name, p := range m {
			undescribe(&p)
			m[name] = p
		}
	}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range list {
			undescribe(&list[i])
		}
	}
	undescribe(s.Not)
	if s.Items != nil {
		undescribe(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			undescribe(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		undescribe(s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		undescribe(s.AdditionalItems.Schema)
	}
}

// moduleDir is where the module this module requires is, and its path@version (go list -m).
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}\n{{.Path}}@{{.Version}}", module)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %v: %s", module, err, strings.TrimSpace(stderr.String()))
	}
	dir := strings.TrimSpace(string(out))
	if strings.HasPrefix(dir, "\n") {
		return "", fmt.Errorf("go list -m %s: module not downloaded", module)
	}
	return dir, nil
}
