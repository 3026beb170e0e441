package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

// The built-in kinds of the input are checked with Kubernetes' own code before they are read: a
// second binary, kubevalidate (tools/kube-apiserver/cmd/kubevalidate), decodes, defaults and
// validates each as kube-apiserver v1.35.3 does on create. It cannot be linked into this one
// (k8s.io/kubernetes' feature gates collide with Kueue's: internal/jobs builtins.go), so it runs
// as a subprocess, once per invocation, over every built-in object of the input. The build
// wrapper (kueue-oracle) builds it and puts it beside this binary; KUEUE_ORACLE_KUBEVALIDATE
// names another. One process serves the whole invocation (every cluster of --each).

// builtinKinds are the kinds kubevalidate checks (its kinds table), with whether they are
// namespaced: a namespaced object naming none is in `default`, as kubectl creates it.
var builtinKinds = map[schema.GroupVersionKind]bool{
	{Version: "v1", Kind: "Pod"}:                                       true,
	{Version: "v1", Kind: "Namespace"}:                                 false,
	{Version: "v1", Kind: "Node"}:                                      false,
	{Version: "v1", Kind: "LimitRange"}:                                true,
	{Group: "batch", Version: "v1", Kind: "Job"}:                       true,
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                 true,
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:                true,
	{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"}: false,
	{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}:        false,
}

// validated is kubevalidate's answer on one object.
type validated struct {
	Object    json.RawMessage `json:"object"`
	Refused   string          `json:"refused"`
	Unchecked string          `json:"unchecked"`
}

// kubevalidatePath is the kubevalidate binary: $KUEUE_ORACLE_KUBEVALIDATE, else the one the build
// wrapper put beside this binary.
func kubevalidatePath() (string, error) {
	if p := os.Getenv("KUEUE_ORACLE_KUBEVALIDATE"); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(self), "kubevalidate")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no kubevalidate beside %s (the wrapper tools/kueue-oracle/kueue-oracle builds both; "+
			"or set KUEUE_ORACLE_KUBEVALIDATE to tools/kube-apiserver/kubevalidate)", self)
	}
	return p, nil
}

// checkBuiltins sends the input's built-in objects to kubevalidate. An object the API server refuses
// leaves the documents and is skipped with the server's message. An object being submitted (no UID,
// no status: what internal/jobs submits through Kueue's webhooks) and a kind Kueue only reads (Node,
// Namespace, LimitRange, PriorityClass, RuntimeClass) are replaced by their defaulted form, with the
// fields the API server's decoder drops kept (kubevalidate decodes strictly, as `kubectl apply` has
// the server do: an object with an unknown field is refused, so only null fields). A Pod, Job, Deployment or
// StatefulSet the input shows stored (a UID or a status) keeps its own fields: its Workloads in the
// input were made of it as it is written (internal/jobs applyBuiltinDefaults gives it the defaults
// Kueue reads).
func checkBuiltins(docs []input.Document) ([]input.Document, []objects.Skipped, error) {
	var send []int
	var lines [][]byte
	for i, d := range docs {
		if _, ok := builtinKinds[d.Object.GroupVersionKind()]; !ok {
			continue
		}
		raw, err := json.Marshal(d.Object.Object)
		if err != nil {
			return nil, nil, fmt.Errorf("%s#%d: %w", d.File, d.Index, err)
		}
		lines = append(lines, append(raw, '\n'))
		send = append(send, i)
	}
	if len(send) == 0 {
		return docs, nil, nil
	}
	answers, err := askKubevalidate(lines, len(send))
	if err != nil {
		return nil, nil, err
	}
	refused := map[int]bool{}
	var skipped []objects.Skipped
	for n, i := range send {
		d, v := docs[i], answers[n]
		switch {
		case v.Refused != "":
			refused[i] = true
			skipped = append(skipped, objects.Skipped{Ref: builtinRef(d.Object), Reason: v.Refused})
		case v.Unchecked != "":
			return nil, nil, fmt.Errorf("%s#%d: kubevalidate did not check it: %s", d.File, d.Index, v.Unchecked)
		case takesDefaults(d.Object):
			u := &unstructured.Unstructured{}
			// (apimachinery's JSON reading: integers as int64, as the input reader gives them)
			if err := utiljson.Unmarshal(v.Object, &u.Object); err != nil {
				return nil, nil, fmt.Errorf("kubevalidate's answer on %s#%d: %w", d.File, d.Index, err)
			}
			keepDropped(u.Object, d.Object.Object)
			docs[i].Object = u
		}
	}
	kept := make([]input.Document, 0, len(docs)-len(refused))
	for i, d := range docs {
		if !refused[i] {
			kept = append(kept, d)
		}
	}
	return kept, skipped, nil
}

// takesDefaults: the kinds Kueue only reads, and a job kind being submitted (checkBuiltins).
func takesDefaults(u *unstructured.Unstructured) bool {
	switch u.GetKind() {
	case "Pod", "Job", "Deployment", "StatefulSet":
		status, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status")
		m, _ := status.(map[string]any)
		return u.GetUID() == "" && (status == nil || len(m) == 0)
	}
	return true
}

// builtinRef names a refused object as objects.Reader names the objects it reads.
func builtinRef(u *unstructured.Unstructured) objects.Ref {
	ref := objects.RefOf(u)
	if builtinKinds[u.GroupVersionKind()] {
		if ref.Namespace == "" {
			ref.Namespace = "default"
		}
	} else {
		ref.Namespace = ""
	}
	return ref
}

// keepDropped puts back into the defaulted object the fields of the original its type does not
// have (a null field, which kubectl drops; an unknown one refuses the object): map keys the defaulted object lacks, in
// maps and in lists of the same length.
func keepDropped(defaulted, original map[string]any) {
	for k, o := range original {
		d, ok := defaulted[k]
		if !ok {
			defaulted[k] = o
			continue
		}
		keepDroppedIn(d, o)
	}
}

func keepDroppedIn(d, o any) {
	switch d := d.(type) {
	case map[string]any:
		if o, ok := o.(map[string]any); ok {
			keepDropped(d, o)
		}
	case []any:
		if o, ok := o.([]any); ok && len(o) == len(d) {
			for i := range d {
				keepDroppedIn(d[i], o[i])
			}
		}
	}
}

// kubevalidate is the process kept for the oracle's life (one however many clusters --each decides),
// started at the first question.
var kubevalidate struct {
	once sync.Once
	err  error
	in   io.Writer
	out  *bufio.Scanner
}

// askKubevalidate sends the lines (JSON objects) and reads an answer for each.
func askKubevalidate(lines [][]byte, n int) ([]validated, error) {
	kv := &kubevalidate
	kv.once.Do(func() {
		path, err := kubevalidatePath()
		if err != nil {
			kv.err = err
			return
		}
		cmd := exec.Command(path)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err == nil {
			var out io.Reader
			if out, err = cmd.StdoutPipe(); err == nil {
				kv.out = bufio.NewScanner(out)
				kv.out.Buffer(make([]byte, 1<<20), 1<<30)
				err = cmd.Start()
			}
		}
		kv.in, kv.err = in, err
		if err != nil {
			kv.err = fmt.Errorf("kubevalidate (%s): %w", path, err)
		}
	})
	if kv.err != nil {
		return nil, kv.err
	}
	written := make(chan error, 1)
	go func() { // written while answers are read: neither pipe fills up
		for _, l := range lines {
			if _, err := kv.in.Write(l); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	answers := make([]validated, 0, n)
	for len(answers) < n && kv.out.Scan() {
		var v validated
		if err := json.Unmarshal(kv.out.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("kubevalidate's answer %q: %w", kv.out.Text(), err)
		}
		answers = append(answers, v)
	}
	if err := <-written; err != nil {
		return nil, fmt.Errorf("kubevalidate: %w", err)
	}
	if len(answers) != n {
		return nil, fmt.Errorf("kubevalidate answered %d of %d objects (%v)", len(answers), n, kv.out.Err())
	}
	return answers, nil
}
