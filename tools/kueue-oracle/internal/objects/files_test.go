package objects_test

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/jobs" // Kueue's integrations registered, as in the oracle
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

// TestMain gives the package Kueue's CRDs and installed Configuration as the oracle's main package
// does (kueuefiles.go), read from the directory of the module the committed go.mod pins.
func TestMain(m *testing.M) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		os.Stderr.WriteString("internal/objects tests: go list -m sigs.k8s.io/kueue gave no directory: " + err.Error() + "\n")
		os.Exit(2)
	}
	objects.KueueCRDs = os.DirFS(filepath.Join(dir, "config/components/crd/bases"))
	config, err := os.ReadFile(filepath.Join(dir, "config/components/manager/controller_manager_config.yaml"))
	if err != nil {
		os.Stderr.WriteString("internal/objects tests: " + err.Error() + "\n")
		os.Exit(2)
	}
	objects.KueueInstalledConfiguration = config
	os.Exit(m.Run())
}

// read reads YAML documents as the oracle's admit does (jobs.IsJobKind: the job kinds go to Jobs).
func read(t *testing.T, text string) *objects.Input {
	t.Helper()
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	docs, problems := input.Read([]string{file})
	if len(problems) != 0 {
		t.Fatalf("problems reading the test's YAML: %v", problems)
	}
	defaulter, err := objects.KueueDefaulter()
	if err != nil {
		t.Fatal(err)
	}
	in, err := (&objects.Reader{Scheme: objects.NewScheme(jobs.AddToScheme), Defaulter: defaulter,
		IsJobKind: func(gvk schema.GroupVersionKind, _ *unstructured.Unstructured) bool { return jobs.IsJobKind(gvk) }}).Read(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// skipped is the reason each skipped object was refused, by name.
func skipped(in *objects.Input) map[string]string {
	out := map[string]string{}
	for _, s := range in.Skipped {
		out[s.Name] = s.Reason
	}
	return out
}

func TestKueueFiles(t *testing.T) {
	in := read(t, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {topologyName: racks}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: plain, resources: [{name: cpu, nominalQuota: 1}]}]
`)
	if in.ConfigFrom != "installed" || in.Config == nil || in.Config.Integrations == nil {
		t.Fatalf("the installed Configuration was not read: from %q, %+v", in.ConfigFrom, in.Config)
	}
	// kube-apiserver's words (the CRD's CEL rule), as tests/oracle/features/tas-flavor-without-node-labels-refused.yaml has them
	want := `ResourceFlavor.kueue.x-k8s.io "tas" is invalid: spec: Invalid value: "object": no such key: nodeLabels evaluating rule: at least one nodeLabel is required when topology is set`
	if got := skipped(in)["tas"]; got != want {
		t.Errorf("the TAS ResourceFlavor without nodeLabels: got %q, want the CRD's refusal %q", got, want)
	}
	names := map[string]bool{}
	for _, o := range in.Objects {
		names[o.GetName()] = true
	}
	if !names["plain"] || !names["cq"] || names["tas"] {
		t.Errorf("objects read: %v, want plain and cq, not tas", names)
	}
}

// TestWorkloadCheckedInItsOwnVersion: a v1beta1 Workload is checked against v1beta1's schema and rules
// as written, before any conversion; a field its version's schema lacks refuses it (strict field
// validation, `kubectl apply`'s) (tests/oracle/features/workload-v1beta1-checked-in-its-own-version.yaml:
// kube-apiserver v1.35.3 with Kueue v0.17's CRDs refuses both in these words).
func TestWorkloadCheckedInItsOwnVersion(t *testing.T) {
	in := read(t, `
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: empty-class, namespace: default}
spec:
  queueName: lq
  priorityClassName: ""
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: classed, namespace: default}
spec:
  queueName: lq
  priorityClassName: high
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: unknown, namespace: default}
spec:
  queueName: lq
  bogus: 1
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: plain, namespace: default}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x}]}}}]
`)
	rule := `spec: Invalid value: priority should not be nil when priorityClassName is set`
	want := map[string]string{
		"empty-class": `Workload.kueue.x-k8s.io "empty-class" is invalid: [spec.priorityClassName: Invalid value: "": spec.priorityClassName in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', ` + rule + `]`,
		"classed":     `Workload.kueue.x-k8s.io "classed" is invalid: ` + rule,
		"unknown":     `Workload in version "v1beta2" cannot be handled as a Workload: strict decoding error: unknown field "spec.bogus"`,
	}
	if got := skipped(in); !maps.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	var workloads []string
	for _, o := range in.Objects {
		if gvk := o.GetObjectKind().GroupVersionKind(); gvk.Kind == "Workload" {
			workloads = append(workloads, o.GetName()+" "+gvk.Version)
		}
	}
	if len(workloads) != 1 || workloads[0] != "plain v1beta2" {
		t.Errorf("Workloads read: %q, want plain only, as v1beta2", workloads)
	}
}
