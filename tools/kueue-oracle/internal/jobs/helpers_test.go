package jobs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
)

// documents splits multi-document YAML into objects.
func documents(t *testing.T, text string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(text)), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decoding the test's YAML: %v", err)
		}
		if m == nil {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

// convert runs Convert as the oracle's harness does: a fake client built as Kueue's unit tests
// build it, holding the input's other objects; the job kinds given to Convert.
func convert(t *testing.T, cfg *configapi.Configuration, text string) (Converted, client.Client) {
	t.Helper()
	// Integrations enabled by an earlier test stay enabled (a package variable): reset them.
	t.Cleanup(jobframework.EnableIntegrationsForTest(t))
	ctx := context.Background()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, kueue.AddToScheme, AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	builder := fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&kueue.Workload{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: utiltesting.TreatSSAAsStrategicMerge})
	ix := utiltesting.AsIndexer(builder)
	if err := indexer.Setup(ctx, ix); err != nil {
		t.Fatal(err)
	}
	if err := SetupIndexes(ctx, ix); err != nil {
		t.Fatal(err)
	}
	var jobs []*unstructured.Unstructured
	var others []client.Object
	for _, u := range documents(t, text) {
		if IsJobKind(u.GroupVersionKind()) {
			jobs = append(jobs, u)
			continue
		}
		others = append(others, u)
	}
	cl := builder.Build()
	for _, o := range others {
		if err := cl.Create(ctx, o); err != nil {
			t.Fatalf("creating %s %s: %v", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	got, err := Convert(ctx, cl, jobs, cfg, clk)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	return got, cl
}
