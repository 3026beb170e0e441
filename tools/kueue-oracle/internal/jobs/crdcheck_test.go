package jobs

import (
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
