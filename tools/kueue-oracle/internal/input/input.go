// Package input reads what kadmit reads: files and folders (walked as kadmit walks them),
// multi-document YAML or JSON, `kind: List` expanded into its items.
package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The suffixes kadmit reads in a folder (src/kadmit/workspace.py: MANIFEST_SUFFIXES, KAD_SUFFIXES,
// TEST_SUFFIXES). `.kad` files are kadmit's own language: the oracle reads manifests only and
// reports policy files as not read.
var (
	manifestSuffixes = []string{".yaml", ".yml", ".json"}
	kadSuffixes      = []string{".kad"}
	testSuffixes     = []string{".kadtest.yaml", ".kadtest.yml"}
)

// Document is one object of the input, where it was read.
type Document struct {
	File   string // the path as given or walked
	Index  int    // the document's index in its file (0-based; items of a List share it)
	Object *unstructured.Unstructured
}

// Problem is something of the input the oracle could not read; it is reported, never dropped.
type Problem struct {
	File    string `json:"file"`
	Index   int    `json:"document"`
	Message string `json:"message"`
}

func hasSuffix(name string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Files expands folders recursively into the files kadmit reads there, each folder's files
// sorted, as kadmit's collect_files (src/kadmit/workspace.py) does: names starting with "." (files and folders) are
// skipped, as are policy tests. Paths given as files are taken as they are; a path read twice
// is read once.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("no such file or folder: %s", p)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasPrefix(name, ".") || hasSuffix(name, testSuffixes) {
				return nil
			}
			if hasSuffix(name, manifestSuffixes) || hasSuffix(name, kadSuffixes) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		// Sorted as Python sorts paths (kadmit sorts pathlib.Paths): part by part, so that
		// "a/b" comes before "a-c/b".
		sort.Slice(found, func(i, j int) bool {
			return slices.Compare(strings.Split(found[i], string(filepath.Separator)), strings.Split(found[j], string(filepath.Separator))) < 0
		})
		out = append(out, found...)
	}
	seen := map[string]bool{}
	unique := out[:0]
	for _, f := range out {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		if !seen[abs] {
			seen[abs] = true
			unique = append(unique, f)
		}
	}
	return unique, nil
}

// Read reads every file's documents in order. Policy files (.kad) and documents that are not
// Kubernetes objects are problems.
func Read(files []string) ([]Document, []Problem) {
	var docs []Document
	var problems []Problem
	for _, f := range files {
		if hasSuffix(f, kadSuffixes) {
			problems = append(problems, Problem{File: f, Index: -1,
				Message: "kadmit's policy language is not Kueue's: the oracle reads manifests only"})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, Problem{File: f, Index: -1, Message: err.Error()})
			continue
		}
		d, p := readText(f, data)
		docs = append(docs, d...)
		problems = append(problems, p...)
	}
	return docs, problems
}

func readText(file string, data []byte) ([]Document, []Problem) {
	var docs []Document
	var problems []Problem
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for index := 0; ; index++ {
		chunk, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			problems = append(problems, Problem{File: file, Index: index, Message: err.Error()})
			break
		}
		js, err := yaml.YAMLToJSON(chunk)
		if err != nil {
			problems = append(problems, Problem{File: file, Index: index, Message: err.Error()})
			continue
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || bytes.Equal(js, []byte("null")) {
			index-- // an empty document (comments only) is no document
			continue
		}
		objs, err := objects(js)
		if err != nil {
			problems = append(problems, Problem{File: file, Index: index, Message: err.Error()})
			continue
		}
		for _, o := range objs {
			docs = append(docs, Document{File: file, Index: index, Object: o})
		}
	}
	return docs, problems
}

// objects decodes one document: an object, or a List's items.
func objects(js []byte) ([]*unstructured.Unstructured, error) {
	if js[0] != '{' {
		return nil, errors.New("a document must be a Kubernetes object (a mapping with apiVersion and kind)")
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return nil, err
	}
	return expand(u, "", "")
}

// expand gives an object, or the items of a list in it, as kadmit reads them (manifests._Reader.document):
// `kind: List`, and a typed list (`ClusterQueueList`, as `kubectl get -o yaml` may nest one) whose items
// carry no apiVersion and kind, the list's own; a list's item may be a list.
func expand(u *unstructured.Unstructured, apiVersion, kind string) ([]*unstructured.Unstructured, error) {
	if u.GetAPIVersion() == "" && apiVersion != "" {
		u.SetAPIVersion(apiVersion)
	}
	if u.GetKind() == "" && kind != "" {
		u.SetKind(kind)
	}
	k := u.GetKind()
	if k != "List" && !(strings.HasSuffix(k, "List") && u.IsList()) {
		return []*unstructured.Unstructured{u}, nil
	}
	var out []*unstructured.Unstructured
	if !u.IsList() {
		return out, nil // a List without items holds nothing
	}
	itemVersion, itemKind := "", ""
	if k != "List" {
		itemVersion, itemKind = u.GetAPIVersion(), strings.TrimSuffix(k, "List")
	}
	err := u.EachListItem(func(o runtime.Object) error {
		items, err := expand(o.(*unstructured.Unstructured), itemVersion, itemKind)
		out = append(out, items...)
		return err
	})
	return out, err
}

// Refusal says why an input is unusable, as kadmit refuses it (exit 2), or "" where it is not:
// folders holding no file kadmit reads (KAD004), a file or document that cannot be read (a binary
// file, KAD002; YAML that does not parse, KAD150; a document that is no object, KAD154), or files
// holding no object the oracle reads (KAD004: `read` counts the objects read, kinds not read left
// out). A policy file (.kad) is no refusal of its own: kadmit reads it, the oracle lists it.
func Refusal(paths, files []string, problems []Problem, read int) string {
	if len(files) == 0 {
		return fmt.Sprintf("no .kad, .yaml, .yml or .json files in %s", strings.Join(paths, ", "))
	}
	for _, p := range problems {
		if !hasSuffix(p.File, kadSuffixes) {
			return fmt.Sprintf("%s (document %d): %s", p.File, p.Index, p.Message)
		}
	}
	if read == 0 {
		return "nothing to decide: the inputs hold no Kueue or Kubernetes object the oracle reads"
	}
	return ""
}
