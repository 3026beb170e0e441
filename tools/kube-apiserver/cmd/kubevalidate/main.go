// Command kubevalidate checks built-in Kubernetes objects as kube-apiserver v1.35 does on create, with
// Kubernetes' own code: each object is decoded into its versioned type with the API server's scheme
// (k8s.io/kubernetes pkg/api/legacyscheme), strictly as `kubectl apply` has it decoded, defaulted (SetObjectDefaults_*), converted to the internal
// type and passed through its registry's create strategy (rest.BeforeCreate: PrepareForCreate, the
// strategy's Validate, ObjectMeta's validation), which is what the API server's create handler does
// between decoding a request and storing it. Admission plugins (LimitRanger, Priority,
// ServiceAccount, ...) and webhooks are not run.
//
// The Kueue oracle (tools/kueue-oracle) cannot link these packages: k8s.io/kubernetes registers its
// feature gates in the process-wide gate Kueue registers its own in, and the two disagree (a panic at
// start-up). It runs this binary once per invocation instead, through the `kubevalidate` script beside
// this folder, which builds it on first use.
//
// Input: one JSON object per line on stdin. Output: one JSON line per input line, in order, each
// written as soon as its line is read (a caller may keep the process for many questions):
//
//	{"object": {...}}      accepted: the object as the API server decodes and defaults it
//	                       (not the strategy's PrepareForCreate changes: no generated selector, status cleared)
//	{"refused": "message"} refused, with the API server's message
//	{"unchecked": "why"}   a kind (or a line) this does not check
//
// Exit codes: 0 (whatever the objects), 2 on a usage error or when stdin cannot be read.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	"k8s.io/kubernetes/pkg/capabilities"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

// kind is a built-in kind checked here: its create strategy and its resource (the request's).
type kind struct {
	strategy rest.RESTCreateStrategy
	resource string
}

var kinds = map[schema.GroupVersionKind]kind{
	{Version: "v1", Kind: "Pod"}:                                       {pod.Strategy, "pods"},
	{Version: "v1", Kind: "Namespace"}:                                 {namespace.Strategy, "namespaces"},
	{Version: "v1", Kind: "Node"}:                                      {node.Strategy, "nodes"},
	{Version: "v1", Kind: "LimitRange"}:                                {limitrange.Strategy, "limitranges"},
	{Group: "batch", Version: "v1", Kind: "Job"}:                       {job.Strategy, "jobs"},
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                 {deployment.Strategy, "deployments"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:                {statefulset.Strategy, "statefulsets"},
	{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"}: {priorityclass.Strategy, "priorityclasses"},
	{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}:        {runtimeclass.Strategy, "runtimeclasses"},
}

// init allows privileged containers, as the API server of tools/kube-apiserver (kubeup/procs.go
// --allow-privileged=true) and those of kubeadm, kind and the managed clusters do: without it
// pkg/capabilities' zero value makes the pod validation refuse `securityContext.privileged: true`
// ("Forbidden: disallowed by cluster policy"), which no such cluster says.
func init() {
	capabilities.Setup(true, 0)
}

// result is one output line.
type result struct {
	Object    json.RawMessage `json:"object,omitempty"`
	Refused   string          `json:"refused,omitempty"`
	Unchecked string          `json:"unchecked,omitempty"`
}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: kubevalidate < OBJECTS (one JSON object per line; one JSON result per line out)")
		os.Exit(2)
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kubevalidate:", err)
		os.Exit(2)
	}
}

func run(in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			// each answer as soon as it is made: a caller may keep this process for many questions
			if err := enc.Encode(check(line)); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return err
		}
	}
}

// check is what the API server does with a create of the object in data.
func check(data []byte) result {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return result{Unchecked: fmt.Sprintf("not a JSON object: %v", err)}
	}
	gvk := tm.GroupVersionKind()
	k, ok := kinds[gvk]
	if !ok {
		return result{Unchecked: fmt.Sprintf("%s is not a kind kubevalidate checks", gvk)}
	}
	versioned, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return result{Unchecked: err.Error()}
	}
	// The API server's strict decoder, as `kubectl apply` asks for it (fieldValidation=Strict, its
	// default): a field the type lacks refuses the object ("strict decoding error: unknown field"), in
	// the create handler's words (transformDecodeError). kubectl drops the null fields of an object
	// before it sends it: they are dropped here too.
	sent, err := withoutNulls(data)
	if err != nil {
		return result{Unchecked: fmt.Sprintf("not a JSON object: %v", err)}
	}
	if _, _, err := strictCodecs.UniversalDeserializer().Decode(sent, &gvk, versioned); err != nil {
		return result{Refused: apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			gvk.Kind, gvk.Version, gvk.Kind, err)).Error()}
	}
	legacyscheme.Scheme.Default(versioned)
	if refused := create(k, gvk, versioned.DeepCopyObject()); refused != "" {
		return result{Refused: refused}
	}
	raw, err := json.Marshal(versioned)
	if err != nil {
		return result{Unchecked: err.Error()}
	}
	return result{Object: raw}
}

// strictCodecs decode as the API server does under fieldValidation=Strict.
var strictCodecs = serializer.NewCodecFactory(legacyscheme.Scheme, serializer.EnableStrict)

// withoutNulls is data without the null fields of its objects (maps, at any depth; a null item of a
// list stays), numbers kept as written.
func withoutNulls(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(dropNulls(v))
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
			} else {
				v[k] = dropNulls(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = dropNulls(x)
		}
	}
	return v
}

// create runs the kind's create strategy on a copy of the defaulted object: the API server's message
// where it refuses it.
func create(k kind, gvk schema.GroupVersionKind, versioned runtime.Object) string {
	internal, err := legacyscheme.Scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return apierrors.NewBadRequest(err.Error()).Error()
	}
	m, err := meta.Accessor(internal)
	if err != nil {
		return err.Error()
	}
	ns := ""
	if k.strategy.NamespaceScoped() {
		ns = m.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault // kubectl's namespace where the object names none
		}
	} else {
		m.SetNamespace("") // the API server clears a cluster-scoped object's namespace
	}
	// The store's part of a create (genericregistry.Store.Create): system fields, then a generated
	// name. Both are fixed here so that messages are the same from run to run (the API server's
	// are random: a UUID, five random characters). An object that carries its UID (read back from a
	// cluster) keeps it: it was created with it, and a Job's generated selector names it.
	uid := m.GetUID()
	if uid == "" {
		uid = types.UID("00000000-0000-0000-0000-000000000000")
	}
	rest.FillObjectMetaSystemFields(m)
	m.SetUID(uid)
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(m.GetGenerateName() + "xxxxx")
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: ns, Resource: k.resource, Name: m.GetName(),
	})
	if err := rest.BeforeCreate(k.strategy, ctx, internal); err != nil {
		return err.Error()
	}
	return ""
}
