package jobs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOwnPods: a job Kueue's webhook leaves running (it names no queue) gets the pods its own controller makes
// (startOwnPods, startChildJobPods), which go through Kueue's pod webhook: refused where the template names a pod
// group without its total count, gated where the template names a queue (each a plain pod's Workload, standing for
// the job), left alone where it names none. A job Kueue suspends, or that suspends itself, starts none.
func TestOwnPods(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: grouped, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {labels: {kueue.x-k8s.io/pod-group-name: g}}
        spec:
          containers: [{name: pytorch, image: x}]
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: queued-pods, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
        spec:
          containers: [{name: pytorch, image: x}]
    Worker:
      replicas: 2
      template:
        metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
        spec:
          containers: [{name: pytorch, image: x}]
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: managed, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {labels: {kueue.x-k8s.io/pod-group-name: g}}
        spec:
          containers: [{name: pytorch, image: x}]
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: plain, namespace: ml}
spec:
  headGroupSpec:
    template:
      spec:
        containers: [{name: head, image: x}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: x}]
`)
	want := []string{
		// its Jobs name no queue and run; their pods, naming one, are each a plain pod's Workload
		"JobSet/ml/js pod-js-w-0-44444-38468 q=main p=0 - [main:1]",
		// Kueue's: suspended by its webhook, its pods are none yet
		"PyTorchJob/ml/managed pytorchjob-managed-27ca6 q=main p=0 - [master:1]",
		// one pod per replica, named <job>-<pod set>-<i>
		"PyTorchJob/ml/queued-pods pod-queued-pods-master-0-c616c q=main p=0 - [main:1]",
		"PyTorchJob/ml/queued-pods pod-queued-pods-worker-0-e1482 q=main p=0 - [main:1]",
		"PyTorchJob/ml/queued-pods pod-queued-pods-worker-1-90876 q=main p=0 - [main:1]",
		"SKIP PyTorchJob/ml/grouped: Kueue's pod webhook refuses its pods: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: " +
			"Required value: both the 'kueue.x-k8s.io/pod-group-total-count' annotation and the 'kueue.x-k8s.io/pod-group-name' label should be set",
		// its pods name no queue: the pod webhook leaves them alone
		"SKIP RayCluster/ml/plain: queue-name label is not set, ignoring the job",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}
