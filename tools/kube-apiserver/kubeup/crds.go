package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

const kueueModule = "sigs.k8s.io/kueue"

type crdFile struct {
	module, version, path string // path inside the module
	crd                   *apiextensionsv1.CustomResourceDefinition
}

func countModules(crds []crdFile) int {
	seen := map[string]bool{}
	for _, c := range crds {
		seen[c.module] = true
	}
	return len(seen)
}

// resolveCRDs downloads the modules of crds/go.mod (verified against crds/go.sum), checks that Kueue is
// the version tools/kueue-oracle/go.mod pins and that every other module Kueue requires is at Kueue's
// version, and reads the CRDs crds/crds.txt names.
func resolveCRDs(crdsDir, oracleGoMod string) ([]crdFile, error) {
	pinned, err := requirements(filepath.Join(crdsDir, "go.mod"))
	if err != nil {
		return nil, err
	}
	oracle, err := requirements(oracleGoMod)
	if err != nil {
		return nil, err
	}
	if oracle[kueueModule] == "" || pinned[kueueModule] != oracle[kueueModule] {
		return nil, fmt.Errorf("%s pins %s %s but crds/go.mod has %q: make them agree",
			oracleGoMod, kueueModule, oracle[kueueModule], pinned[kueueModule])
	}
	dirs, err := download(crdsDir, pinned)
	if err != nil {
		return nil, err
	}
	kueue, err := requirements(filepath.Join(dirs[kueueModule], "go.mod"))
	if err != nil {
		return nil, err
	}
	for _, mod := range sortedKeys(pinned) {
		switch want := kueue[mod]; {
		case mod == kueueModule:
		case want == "":
			fmt.Printf("up: %s %s: Kueue %s requires no version of it; crds/go.mod pins this one\n", mod, pinned[mod], pinned[kueueModule])
		case want != pinned[mod]:
			return nil, fmt.Errorf("crds/go.mod pins %s %s but Kueue %s requires %s: make them agree", mod, pinned[mod], pinned[kueueModule], want)
		}
	}
	entries, err := readList(filepath.Join(crdsDir, "crds.txt"))
	if err != nil {
		return nil, err
	}
	var out []crdFile
	for _, e := range entries {
		root, ok := dirs[e[0]]
		if !ok {
			return nil, fmt.Errorf("crds.txt names %s, which crds/go.mod does not require", e[0])
		}
		files, err := yamlFiles(filepath.Join(root, filepath.FromSlash(e[1])))
		if err != nil {
			return nil, fmt.Errorf("%s@%s: %w", e[0], pinned[e[0]], err)
		}
		for _, f := range files {
			crds, err := readCRDs(f)
			if err != nil {
				return nil, fmt.Errorf("%s@%s: %w", e[0], pinned[e[0]], err)
			}
			rel, _ := filepath.Rel(root, f)
			for _, c := range crds {
				out = append(out, crdFile{module: e[0], version: pinned[e[0]], path: filepath.ToSlash(rel), crd: c})
			}
		}
	}
	return out, nil
}

func requirements(goMod string) (map[string]string, error) {
	data, err := os.ReadFile(goMod)
	if err != nil {
		return nil, err
	}
	f, err := modfile.ParseLax(goMod, data, nil)
	if err != nil {
		return nil, err
	}
	req := map[string]string{}
	for _, r := range f.Require {
		req[r.Mod.Path] = r.Mod.Version
	}
	return req, nil
}

// download runs `go mod download -json` in the CRD module for each required module and returns their
// folders in the module cache.
func download(crdsDir string, pinned map[string]string) (map[string]string, error) {
	mods := sortedKeys(pinned)
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, mods...)...)
	cmd.Dir = crdsDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	dirs := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Dir, Error string }
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go mod download: %w: %s", err, stderr.String())
		}
		if m.Error != "" {
			return nil, fmt.Errorf("go mod download %s@%s: %s", m.Path, m.Version, m.Error)
		}
		if m.Version != pinned[m.Path] {
			return nil, fmt.Errorf("go mod download gave %s %s, crds/go.mod pins %s", m.Path, m.Version, pinned[m.Path])
		}
		dirs[m.Path] = m.Dir
	}
	if runErr != nil {
		return nil, fmt.Errorf("go mod download in %s: %v: %s", crdsDir, runErr, stderr.String())
	}
	for _, m := range mods {
		if dirs[m] == "" {
			return nil, fmt.Errorf("go mod download did not report %s", m)
		}
	}
	return dirs, nil
}

// readList reads crds.txt: "module path" lines, # comments.
func readList(path string) ([][2]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want `module path`, got %q", path, n, line)
		}
		out = append(out, [2]string{fields[0], fields[1]})
	}
	return out, sc.Err()
}

// yamlFiles is the file itself, or a folder's *.yaml files but its kustomization.yaml, sorted.
func yamlFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	all, err := filepath.Glob(filepath.Join(path, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range all {
		if filepath.Base(f) != "kustomization.yaml" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no CRD", path)
	}
	return files, nil
}

// readCRDs reads every YAML document of a file strictly: each must be an apiextensions.k8s.io/v1 CRD.
func readCRDs(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out []*apiextensionsv1.CustomResourceDefinition
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if crd.Kind != "CustomResourceDefinition" || crd.APIVersion != "apiextensions.k8s.io/v1" {
			return nil, fmt.Errorf("%s: a %s %s, not an apiextensions.k8s.io/v1 CustomResourceDefinition", path, crd.APIVersion, crd.Kind)
		}
		out = append(out, &crd)
	}
	return out, nil
}

// installCRDs creates the CRDs and waits until the server has accepted their names and serves them.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []crdFile) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	// The server spends seconds of CPU on each large CRD (its schemas, CEL rules, OpenAPI): create
	// them a few at a time so that both cores work.
	errs := make([]error, len(crds))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range crds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			crd := c.crd.DeepCopy()
			crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
			if _, err := api.Create(ctx, crd, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
				errs[i] = fmt.Errorf("CRD %s (%s@%s %s) is named twice", crd.Name, c.module, c.version, c.path)
			} else if err != nil {
				errs[i] = fmt.Errorf("create CRD %s (%s@%s %s): %w", crd.Name, c.module, c.version, c.path, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	pending := map[string]string{}
	for _, c := range crds {
		pending[c.crd.Name] = "not seen yet"
	}
	for len(pending) > 0 {
		for _, name := range sortedKeys(pending) {
			got, err := api.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				pending[name] = err.Error()
				continue
			}
			established, reason := crdState(got)
			if established {
				delete(pending, name)
			} else {
				pending[name] = reason
			}
		}
		if len(pending) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			var waiting []string
			for _, name := range sortedKeys(pending) {
				waiting = append(waiting, name+": "+pending[name])
			}
			return fmt.Errorf("CRDs not established in time: %s", strings.Join(waiting, "; "))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// crdState says whether a CRD is Established with its names accepted, or why not.
func crdState(crd *apiextensionsv1.CustomResourceDefinition) (bool, string) {
	established, accepted := false, false
	reason := "no conditions yet"
	for _, c := range crd.Status.Conditions {
		switch c.Type {
		case apiextensionsv1.Established:
			established = c.Status == apiextensionsv1.ConditionTrue
		case apiextensionsv1.NamesAccepted:
			accepted = c.Status == apiextensionsv1.ConditionTrue
			if !accepted && c.Message != "" {
				reason = "names not accepted: " + c.Message
			}
		}
	}
	return established && accepted, reason
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
