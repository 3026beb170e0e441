package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestCRDsReadBackFromJSON: every Kueue CRD read from the JSON readCRD keeps is the CRD its YAML gives, field for
// field, and readCRD gives that CRD whether it parses the YAML (the first process) or reads the JSON it kept.
func TestCRDsReadBackFromJSON(t *testing.T) {
	files, err := fs.Glob(KueueCRDs, "*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRD files: %v", err)
	}
	for _, name := range files {
		data, err := fs.ReadFile(KueueCRDs, name)
		if err != nil {
			t.Fatal(err)
		}
		var want apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		text, err := json.Marshal(&want)
		if err != nil {
			t.Fatal(err)
		}
		var back apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(text, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&want, &back) {
			t.Errorf("%s: the CRD read back from its JSON differs from its YAML's", name)
		}
		for i := 0; i < 2; i++ { // the YAML parsed and kept, then the JSON kept read
			got, err := readCRD(data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&want, got) {
				t.Errorf("%s: readCRD's CRD (call %d) differs from its YAML's", name, i+1)
			}
			if i == 0 {
				sum := sha256.Sum256(data)
				if _, err := os.Stat(filepath.Join(crdCacheDir(), hex.EncodeToString(sum[:])+".json")); err != nil {
					t.Errorf("%s: not kept: %v", name, err)
				}
			}
		}
	}
}
