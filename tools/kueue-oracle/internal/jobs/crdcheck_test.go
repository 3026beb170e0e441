package jobs

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCRDRefusals: a job the API server refuses against its CRD (the schema's types and enums, as
// tools/kube-apiserver installs the CRDs) is never created: skipped with the server's words (checked with
// `kubectl create --dry-run=server` on v1.35.3), and a valid one beside it still gets its Workload.
func TestCRDRefusals(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  successPolicy: {operator: Some}
  replicatedJobs:
  - name: w
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]
---
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: x, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: xgboost, image: busybox, resources: {requests: {cpu: 0.5}}}]
---
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: ok, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: xgboost, image: busybox, resources: {requests: {cpu: "0.5"}}}]
`)
	cpu := "spec.xgbReplicaSpecs.Master.template.spec.containers[0].resources.requests.cpu"
	want := []string{
		`SKIP JobSet/ml/js: JobSet.jobset.x-k8s.io "js" is invalid: [spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
		`SKIP XGBoostJob/ml/x: XGBoostJob.kubeflow.org "x" is invalid: [` + cpu + `: Invalid value: "number": ` + cpu +
			` in body must be of type integer,string: "number", <nil>: Invalid value: "": "` + cpu + `" must validate at least one schema (anyOf), ` +
			cpu + `: Invalid value: "number": ` + cpu + ` in body must be of type integer: "number", <nil>: Invalid value: "": Checked value must be of type integer (default format) in ` +
			cpu + `, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
		"XGBoostJob/ml/ok xgboostjob-ok-3bcbe q=main p=0 - [master:1]",
	}
	if got := summary(got); !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCRDUnknownFields: a field the schema of the version an object is written in lacks refuses it, as
// `kubectl apply` (strict field validation) has kube-apiserver v1.35.3 answer: a ray.io/v1alpha1
// RayCluster with v1's `numOfHosts` (checked in v1alpha1, not in the v1 it is stored as), and a
// ClusterTrainingRuntime with `mlPolicy.torch.numProcPerNode` (never created: its TrainJob finds no runtime).
func TestCRDUnknownFields(t *testing.T) {
	worker := `
  headGroupSpec:
    rayStartParams: {}
    template: {spec: {containers: [{name: head, image: ray, resources: {requests: {cpu: "1"}}}]}}
  workerGroupSpecs:
  - groupName: w
    replicas: 1
    numOfHosts: 4
    rayStartParams: {}
    template: {spec: {containers: [{name: w, image: ray, resources: {requests: {cpu: "1"}}}]}}
`
	runtime := `
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: %s}
spec:
  mlPolicy: {numNodes: 2, torch: {%s}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: torch, resources: {requests: {cpu: "2"}}}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: on-%s, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec: {runtimeRef: {name: %s}}
`
	got, _ := convert(t, nil, `
apiVersion: ray.io/v1alpha1
kind: RayCluster
metadata: {name: hosts, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:`+worker+`---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: v1-hosts, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:`+worker+`---
apiVersion: ray.io/v1alpha1
kind: RayCluster
metadata: {name: null-hosts, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:`+strings.Replace(worker, "numOfHosts: 4", "numOfHosts: null", 1)+`---`+
		fmt.Sprintf(runtime, "procs", "numProcPerNode: 4", "procs", "procs")+`---`+
		fmt.Sprintf(runtime, "plain", "", "plain", "plain"))
	want := []string{
		// a null field the schema lacks is taken, as `kubectl apply` drops it (objects.withoutNullFields)
		`RayCluster/ml/null-hosts raycluster-null-hosts-c0f6f q=main p=0 - [head:1 w:1]`,
		`RayCluster/ml/v1-hosts raycluster-v1-hosts-2f96e q=main p=0 - [head:1 w:4]`,
		`SKIP RayCluster/ml/hosts: RayCluster in version "v1alpha1" cannot be handled as a RayCluster: strict decoding error: unknown field "spec.workerGroupSpecs[0].numOfHosts"`,
		`SKIP TrainJob/ml/on-procs: runtime 'procs' not found`,
		`TrainJob/ml/on-plain trainjob-on-plain-988b0 q=main p=0 - [node:2]`,
	}
	if s := summary(got); !slices.Equal(s, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
	if !slices.ContainsFunc(got.Notes, func(n string) bool {
		return strings.Contains(n, `ClusterTrainingRuntime in version "v1alpha1" cannot be handled as a ClusterTrainingRuntime: strict decoding error: unknown field "spec.mlPolicy.torch.numProcPerNode"`)
	}) {
		t.Errorf("no note of the refused runtime: %q", got.Notes)
	}
}
