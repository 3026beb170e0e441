package jobs

import (
	"context"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/workloadslicing"
)

// TestElasticJobScaledUp: with ElasticJobsViaWorkloadSlices on, a running elastic Job scaled up while its Workload
// holds quota gets a new Workload slice replacing it (workloadslicing.EnsureWorkloadSlices), stamped after the input's
// moment, and neither slice is finished. Before stampCreated the new slice kept a zero creationTimestamp through the
// reconciler's rounds, sorted before the old one in FindNotFinishedWorkloads, and was finished as out of sync.
func TestElasticJobScaledUp(t *testing.T) {
	features.SetFeatureGateDuringTest(t, features.ElasticJobsViaWorkloadSlices, true)
	got, cl := convert(t, nil, `
apiVersion: batch/v1
kind: Job
metadata:
  name: e
  namespace: ml
  uid: u-1
  creationTimestamp: "2026-03-01T10:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: main}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  suspend: false
  parallelism: 4
  completions: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
status: {active: 2, startTime: "2026-03-01T10:01:00Z"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-e-1
  namespace: ml
  creationTimestamp: "2026-03-01T10:00:00Z"
  labels: {kueue.x-k8s.io/job-uid: u-1}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: e, uid: u-1, controller: true}]
spec:
  queueName: main
  podSets: [{name: main, count: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}]
status:
  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 2, flavors: {cpu: f0}}]}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-03-01T10:01:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: x, lastTransitionTime: "2026-03-01T10:01:00Z"}
`)
	if len(got.Workloads) != 1 {
		t.Fatalf("want the job's new slice, got %v", summary(got))
	}
	made := got.Workloads[0]
	if key := made.Annotations[workloadslicing.WorkloadSliceReplacementFor]; key != "ml/job-e-1" || made.Spec.PodSets[0].Count != 4 {
		t.Errorf("the new slice %s: want 4 pods replacing ml/job-e-1, got %q, %v", made.Name, key, summary(got))
	}
	if !made.CreationTimestamp.Time.After(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("the new slice created %s, want after the input's latest object", made.CreationTimestamp)
	}
	var wls kueue.WorkloadList
	if err := cl.List(context.Background(), &wls); err != nil {
		t.Fatal(err)
	}
	for _, wl := range wls.Items {
		if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			t.Errorf("Workload %s finished: %v", wl.Name, apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished))
		}
	}
	if len(wls.Items) != 2 {
		t.Errorf("want both slices, got %d Workloads", len(wls.Items))
	}
}
