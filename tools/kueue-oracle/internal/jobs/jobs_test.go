package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
)

// summary is one line per Workload (its owner, name, queue, priority and pod sets as
// name:count/minCount) and per skipped object, sorted.
func summary(c Converted) []string {
	var out []string
	for _, wl := range c.Workloads {
		o := c.Owners[wl.Namespace+"/"+wl.Name]
		var ps []string
		for _, p := range wl.Spec.PodSets {
			s := fmt.Sprintf("%s:%d", p.Name, p.Count)
			if p.MinCount != nil {
				s += fmt.Sprintf("/min%d", *p.MinCount)
			}
			ps = append(ps, s)
		}
		pc := "-"
		if wl.Spec.PriorityClassRef != nil {
			pc = string(wl.Spec.PriorityClassRef.Kind) + "/" + wl.Spec.PriorityClassRef.Name
		}
		out = append(out, fmt.Sprintf("%s %s q=%s p=%d %s [%s]", o, wl.Name, wl.Spec.QueueName,
			ptr.Deref(wl.Spec.Priority, 0), pc, strings.Join(ps, " ")))
	}
	for _, s := range c.Skipped {
		out = append(out, fmt.Sprintf("SKIP %s: %s", s.Object, s.Reason))
	}
	sort.Strings(out)
	return out
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKinds: one object of every kind Kueue integrates, as its users submit it, with what
// Kueue's own reconcilers make of it (read from pkg/controller/jobs/*: counts, pod set names
// and order, minCount, priority sources).
func TestKinds(t *testing.T) {
	got, _ := convert(t, nil, fixture(t, "kinds.yaml"))
	want := []string{
		// AppWrapper: pod sets <name>-<i> from the components' inferred pod sets.
		"AppWrapper/ml/aw appwrapper-aw-96c29 q=main p=0 - [aw-0:2]",
		// Deployment: every pod its own single-pod Workload (the pod integration).
		"Deployment/ml/deploy pod-deploy-5c4bf5bdf6-44444-64fde q=main p=0 - [main:1]",
		"Deployment/ml/deploy pod-deploy-5c4bf5bdf6-44445-ccd7e q=main p=0 - [main:1]",
		// Job: min(parallelism, completions); job-min-parallelism is minCount; the label's
		// WorkloadPriorityClass.
		"Job/ml/job job-job-0a13f q=main p=1000 WorkloadPriorityClass/high [main:3/min2]",
		// JobSet: replicas x pods per job; priority from the first template's priorityClassName.
		"JobSet/ml/jobset jobset-jobset-60462 q=main p=500 PriorityClass/pod-high [workers:8 driver:1]",
		// LeaderWorkerSet: one Workload per group, leader 1 + workers size-1.
		"LeaderWorkerSet/ml/lws leaderworkerset-lws-0-31ffc q=main p=0 - [leader:1 worker:2]",
		"LeaderWorkerSet/ml/lws leaderworkerset-lws-1-87c30 q=main p=0 - [leader:1 worker:2]",
		"MPIJob/ml/mpi mpijob-mpi-5b7f1 q=main p=0 - [launcher:1 worker:2]",
		// A pod group: one Workload named as the group, pod sets by role hash.
		"Pod/ml/grp grp q=main p=0 - [dc85db45:2]",
		"Pod/ml/pod pod-pod-b7b0f q=main p=0 - [main:1]",
		"PyTorchJob/ml/pytorch pytorchjob-pytorch-6db3a q=main p=0 - [master:1 worker:3]",
		// RayCluster: head 1, each worker group replicas x numOfHosts.
		"RayCluster/ml/raycluster raycluster-raycluster-5df1a q=main p=0 - [head:1 tpu:8]",
		// RayJob: Kueue's webhook wants the cluster deleted when the job ends.
		"SKIP RayJob/ml/rayjob: spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete the cluster after finishing",
		"StatefulSet/ml/sts statefulset-sts-657a3 q=main p=0 - [main:3]",
		// TrainJob: the runtime's JobSet; trainer.numNodes (3) over the runtime's mlPolicy (2).
		"TrainJob/ml/train trainjob-train-f60bf q=main p=0 - [node:3]",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestManagement: which jobs Kueue manages, refuses or ignores, and why (Kueue's own words).
func TestManagement(t *testing.T) {
	got, _ := convert(t, nil, fixture(t, "management.yaml"))
	want := []string{
		// LocalQueueDefaulting: the namespace's LocalQueue `default`.
		"Job/dflt/in-default-ns-queue job-in-default-ns-queue-a70b5 q=default p=0 - [main:1]",
		// generateName: named by the API server; the Owner keeps kadmit's names.
		"Job/ml/gen- job-gen-44445-f789c q=main p=0 - [main:1]",
		"Job/ml/gen-#2 job-gen-44446-8dc97 q=main p=0 - [main:1]",
		// JobSet's CRD defaults replicas to 1.
		"JobSet/ml/js-defaults jobset-js-defaults-65e53 q=main p=0 - [w:2]",
		// A ray.io/v1alpha1 RayCluster: KubeRay v1.6.0's CRD serves it, renamed to v1 (servedAs).
		"RayCluster/ml/old raycluster-old-5062a q=main p=0 - [head:1 w:2]",
		// KubeRay's CRD defaults a worker group's replicas to 0; K8sJobMode adds the submitter.
		"RayJob/ml/rayjob rayjob-rayjob-e71c5 q=main p=0 - [head:1 small:3 nocount:0 submitter:1]",
		"SKIP Job/kube-system/kube-sys: Namespace not opted in for Kueue management",
		`SKIP Job/ml/badq: metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "Bad_Queue": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		"SKIP Job/ml/done: The workload is already finished",
		"SKIP Job/ml/running: Job is suspended but still has active pods, waiting",
		"SKIP Pod/ml/bound: Skipping pod, not managed by Kueue",
		"SKIP Pod/ml/lone: 'g2' group has fewer runnable pods than expected",
		"SKIP Pod/ml/nototal: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value: both the 'kueue.x-k8s.io/pod-group-total-count' annotation and the 'kueue.x-k8s.io/pod-group-name' label should be set",
		// A RayJob on an existing cluster: the integration's Skip, without a word.
		"SKIP RayJob/ml/on-existing: Kueue's ray.io/rayjob integration skips it (its GenericJob's Skip)",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestConfiguration: the Configuration's frameworks and manageJobsWithoutQueueName.
func TestConfiguration(t *testing.T) {
	cfg := &configapi.Configuration{
		ManageJobsWithoutQueueName: true,
		Integrations:               &configapi.Integrations{Frameworks: []string{"batch/job"}},
	}
	got, _ := convert(t, cfg, `
apiVersion: batch/v1
kind: Job
metadata: {name: no-queue, namespace: ml}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
`)
	want := []string{
		"Job/ml/no-queue job-no-queue-0622e q= p=0 - [main:1]",
		// its integration not enabled, JobSet's controller still makes its Jobs (startJobSet), which Kueue's Job
		// integration manages without a queue name: a Workload of no queue
		"JobSet/ml/js job-js-w-0-1290f q= p=0 - [main:1]",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestJobPods: a Job being submitted that Kueue's Job webhook leaves unsuspended (it names no queue)
// starts its pods (startJob); Kueue's pod webhook gates those that carry a queue name, and each is a
// Workload standing for the Job, or one for the template's pod group. A Job suspended by its own spec
// starts none.
func TestJobPods(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml, labels: {app: j}}
spec:
  parallelism: 2
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: g, namespace: ml, labels: {app: g}}
spec:
  parallelism: 2
  completionMode: Indexed
  completions: 2
  template:
    metadata:
      labels: {kueue.x-k8s.io/queue-name: main, kueue.x-k8s.io/pod-group-name: grp}
      annotations: {kueue.x-k8s.io/pod-group-total-count: "2"}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: s, namespace: ml, labels: {app: s}}
spec:
  suspend: true
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: plain, namespace: ml, labels: {app: plain}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`)
	want := []string{
		// an Indexed Job's pods of one group: one Workload named as the group, their role a pod set of 2
		"Job/ml/g grp q=main p=0 - [7aa6c7b8:2]",
		// each pod its own Workload, standing for the Job
		"Job/ml/j pod-j-44444-a529b q=main p=0 - [main:1]",
		"Job/ml/j pod-j-44445-0172f q=main p=0 - [main:1]",
		// its pods name no queue: the pod webhook leaves them alone
		"SKIP Job/ml/plain: queue-name label is not set, ignoring the job",
		"SKIP Job/ml/s: queue-name label is not set, ignoring the job",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestStatefulSetPods: a StatefulSet being submitted whose template Kueue's webhook leaves unmarked (it names
// no queue) starts its pods (startStatefulSet): under OrderedReady the first alone (gated, it is never Ready),
// under Parallel every replica; Kueue's pod webhook gates those carrying a queue name.
func TestStatefulSetPods(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ordered, namespace: ml, labels: {app: o}}
spec:
  replicas: 3
  selector: {matchLabels: {app: o}}
  template:
    metadata: {labels: {app: o, kueue.x-k8s.io/queue-name: main}}
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: par, namespace: ml, labels: {app: p}}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: p}}
  template:
    metadata: {labels: {app: p, kueue.x-k8s.io/queue-name: main}}
    spec:
      containers: [{name: c, image: busybox}]
`)
	want := []string{
		"StatefulSet/ml/ordered pod-ordered-0-03843 q=main p=0 - [main:1]",
		"StatefulSet/ml/par pod-par-0-a8a03 q=main p=0 - [main:1]",
		"StatefulSet/ml/par pod-par-1-1c853 q=main p=0 - [main:1]",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestDeploymentPodsWithoutItsIntegration: a Deployment while `deployment` is not enabled still has its pods
// (rollOut): its webhook is a no-op, and Kueue's pod webhook walks past the ReplicaSet to a Deployment it does not
// manage, so the pods take the template's queue name; a Deployment naming a queue only itself leaves them none.
func TestDeploymentPodsWithoutItsIntegration(t *testing.T) {
	cfg := &configapi.Configuration{Integrations: &configapi.Integrations{Frameworks: []string{"pod"}}}
	got, _ := convert(t, cfg, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: own, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  selector: {matchLabels: {app: own}}
  template:
    metadata: {labels: {app: own}}
    spec:
      containers: [{name: c, image: busybox}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: tmpl, namespace: ml}
spec:
  replicas: 2
  selector: {matchLabels: {app: tmpl}}
  template:
    metadata: {labels: {app: tmpl, kueue.x-k8s.io/queue-name: main}}
    spec:
      containers: [{name: c, image: busybox}]
`)
	want := []string{
		"Deployment/ml/tmpl pod-tmpl-7848c7cfff-44444-98557 q=main p=0 - [main:1]",
		"Deployment/ml/tmpl pod-tmpl-7848c7cfff-44445-5a987 q=main p=0 - [main:1]",
		"SKIP Deployment/ml/own: integration `deployment` is not enabled in the Configuration's `integrations.frameworks`",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestJobSetChildJobs: a JobSet being submitted that names no queue (no LocalQueue `default` in ml) is left
// running by Kueue's JobSet webhook, and JobSet's controller makes its Jobs (startJobSet): a Job whose template
// names a queue is suspended by Kueue's Job webhook (its JobSet is no managed ancestor) and gets its own Workload;
// a replicated job that dependsOn another gets none yet; a JobSet suspended by its own spec makes its Jobs
// suspended, Kueue's alike; under `startupPolicy: InOrder` only the first replicated job with replicas has Jobs.
func TestJobSetChildJobs(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml}
spec:
  replicatedJobs:
  - name: w
    replicas: 2
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        parallelism: 2
        template:
          spec:
            containers: [{name: c, image: busybox}]
  - name: later
    dependsOn: [{name: w, status: Ready}]
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
  - name: plain
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: held, namespace: ml}
spec:
  suspend: true
  replicatedJobs:
  - name: w
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: ordered, namespace: ml}
spec:
  startupPolicy: {startupPolicyOrder: InOrder}
  replicatedJobs:
  - name: none
    replicas: 0
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
  - name: first
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
  - name: second
    template:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
`)
	want := []string{
		"JobSet/ml/held job-held-w-0-b6ac5 q=main p=0 - [main:1]",
		"JobSet/ml/js job-js-w-0-e9659 q=main p=0 - [main:2]",
		"JobSet/ml/js job-js-w-1-c3b4a q=main p=0 - [main:2]",
		"JobSet/ml/ordered job-ordered-first-0-e5956 q=main p=0 - [main:1]",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestLeaderWorkerSetPods: a LeaderWorkerSet being submitted that names no queue (no LocalQueue `default` in
// ml) is left unmarked, and its controllers make its StatefulSets and pods (startLeaderWorkerSet): a leader pod
// naming a queue is gated, a Workload of its own, and its workers, under it, are not; with a leader template
// naming none, the workers naming a queue are gated each.
func TestLeaderWorkerSetPods(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lead, namespace: ml}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        containers: [{name: c, image: busybox}]
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: work, namespace: ml}
spec:
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      spec:
        containers: [{name: c, image: busybox}]
    workerTemplate:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        containers: [{name: c, image: busybox}]
`)
	want := []string{
		"LeaderWorkerSet/ml/lead pod-lead-0-9892e q=main p=0 - [main:1]",
		"LeaderWorkerSet/ml/work pod-work-0-1-04a75 q=main p=0 - [main:1]",
		"LeaderWorkerSet/ml/work pod-work-0-2-bb910 q=main p=0 - [main:1]",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestLeaderWorkerSetPodsWithoutItsIntegration: with `leaderworkerset.x-k8s.io/leaderworkerset` not enabled its
// webhook is a no-op and LeaderWorkerSet's controllers still make the StatefulSets and pods (startLeaderWorkerSet):
// the leader naming a queue is gated, a plain pod's Workload, its worker left ungated, as with it enabled.
func TestLeaderWorkerSetPodsWithoutItsIntegration(t *testing.T) {
	cfg := &configapi.Configuration{Integrations: &configapi.Integrations{Frameworks: []string{"pod", "statefulset"}}}
	got, _ := convert(t, cfg, `
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lead, namespace: ml}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        containers: [{name: c, image: busybox}]
`)
	want := []string{"LeaderWorkerSet/ml/lead pod-lead-0-9892e q=main p=0 - [main:1]"}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestLeaderWorkerSetLeaderStatefulSet: with `statefulset` enabled and `leaderworkerset.x-k8s.io/leaderworkerset`
// not, in a namespace with a LocalQueue `default`, Kueue's StatefulSet webhook gives the leader StatefulSet
// LeaderWorkerSet's controller makes `default` (its owner is no enabled integration's) and marks it, and the
// StatefulSet reconciler makes its one Workload of the leaders, whatever queue the templates name; the workers
// (their walk finds the leader StatefulSet, Kueue's) and the leader pods (suspended by their parent) make none.
func TestLeaderWorkerSetLeaderStatefulSet(t *testing.T) {
	cfg := &configapi.Configuration{Integrations: &configapi.Integrations{Frameworks: []string{"pod", "statefulset"}}}
	got, _ := convert(t, cfg, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: ml}
spec: {clusterQueue: cq}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lead, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {labels: {kueue.x-k8s.io/queue-name: main}}
      spec:
        containers: [{name: c, image: busybox}]
`)
	want := []string{"LeaderWorkerSet/ml/lead statefulset-lead-cbd25 q=default p=0 - [main:2]"}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("workloads (-want +got):\n%s", diff)
	}
}

// TestPrunedFields: a field the kind's type lacks is dropped, as the API server prunes it, and
// noted.
func TestPrunedFields(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  parallelsm: 3
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`)
	want := []string{"batch/v1 Job ml/j: strict decoding error: unknown field \"spec.parallelsm\" (the API server prunes such fields)"}
	if diff := cmp.Diff(want, got.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if len(got.Workloads) != 1 || got.Workloads[0].Spec.PodSets[0].Count != 1 {
		t.Errorf("want one Workload of one pod, got %v", summary(got))
	}
}

// TestExistingWorkload: a job whose Workload the input already holds keeps it.
func TestExistingWorkload(t *testing.T) {
	got, cl := convert(t, nil, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-exported-1
  namespace: ml
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: exported, uid: u-1, controller: true}]
spec:
  queueName: main
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: exported, namespace: ml, uid: u-1, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`)
	if len(got.Workloads) != 0 || len(got.Skipped) != 0 {
		t.Errorf("want the exported Workload kept and nothing new, got %v", summary(got))
	}
	want := map[string]Owner{"ml/job-exported-1": {APIVersion: "batch/v1", Kind: "Job", Namespace: "ml", Name: "exported"}}
	if diff := cmp.Diff(want, got.Owners); diff != "" {
		t.Errorf("owners (-want +got):\n%s", diff)
	}
	var wls kueue.WorkloadList
	if err := cl.List(context.Background(), &wls); err != nil || len(wls.Items) != 1 {
		t.Errorf("want one Workload in the client, got %d (%v)", len(wls.Items), err)
	}
}

// TestOutOfStepWorkload: a job's own Workload whose pod sets no longer match the job (ensureOneWorkload):
// pending, Kueue's reconciler updates it to the job's spec and keeps it; holding quota, it deletes it and
// makes the job a new one, which the API server stamps after the input's objects (replaces), not at the
// job's creation.
func TestOutOfStepWorkload(t *testing.T) {
	workload := func(name, job, uid, status string) string {
		return `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: ` + name + `
  namespace: ml
  creationTimestamp: "2026-03-01T10:00:00Z"
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: ` + job + `, uid: ` + uid + `, controller: true}]
spec:
  queueName: main
  podSets: [{name: main, count: 3, template: {spec: {containers: [{name: c, image: busybox}]}}}]
` + status + `
---`
	}
	jobOf := func(name, uid string) string {
		return `
apiVersion: batch/v1
kind: Job
metadata: {name: ` + name + `, namespace: ml, uid: ` + uid + `, creationTimestamp: "2026-03-01T10:00:00Z", labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  suspend: true
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---`
	}
	held := `status:
  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 3, flavors: {cpu: f0}}]}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-03-01T10:01:00Z"}`
	got, cl := convert(t, nil, workload("job-pend-1", "pend", "u-1", "")+jobOf("pend", "u-1")+
		workload("job-held-2", "held", "u-2", held)+jobOf("held", "u-2")+
		strings.Replace(jobOf("late", "u-3"), `"2026-03-01T10:00:00Z"`, `"2026-03-01T11:00:00Z"`, 1))
	if len(got.Workloads) != 2 || len(got.Skipped) != 0 {
		t.Fatalf("want two new Workloads (held's, late's), got %v", summary(got))
	}
	made := got.Workloads[0]
	if o := got.Owners[made.Namespace+"/"+made.Name]; o.Name != "held" || made.Name == "job-held-2" || made.Spec.PodSets[0].Count != 2 {
		t.Errorf("the new Workload %s of %s: want held's, count 2, got %v", made.Name, o.Name, summary(got))
	}
	if !made.CreationTimestamp.Time.After(time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("held's new Workload created %s, want after the input's latest object (11:00)", made.CreationTimestamp)
	}
	var wls kueue.WorkloadList
	if err := cl.List(context.Background(), &wls); err != nil {
		t.Fatal(err)
	}
	names := map[string]int32{}
	for _, wl := range wls.Items {
		names[wl.Name] = wl.Spec.PodSets[0].Count
	}
	if c, ok := names["job-pend-1"]; !ok || c != 2 || len(names) != 3 {
		t.Errorf("want job-pend-1 updated to count 2 and job-held-2 gone, got %v", names)
	}
}

// TestCreatedWorkloads: what Kueue's reconciler writes beyond pod sets (owner reference, job
// UID label, queue, priority), and what the oracle adds as an API server would.
func TestCreatedWorkloads(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: ml
  creationTimestamp: "2026-03-01T10:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: main}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`)
	if len(got.Workloads) != 1 {
		t.Fatalf("want one Workload, got %v", summary(got))
	}
	wl := got.Workloads[0]
	owner := wl.OwnerReferences
	if len(owner) != 1 || owner[0].Kind != "Job" || owner[0].Name != "j" || !ptr.Deref(owner[0].Controller, false) {
		t.Errorf("owner references: %+v", owner)
	}
	if uid := wl.Labels["kueue.x-k8s.io/job-uid"]; uid != string(owner[0].UID) || uid == "" {
		t.Errorf("job-uid label %q, owner UID %q", uid, owner[0].UID)
	}
	if ts := wl.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z"); ts != "2026-03-01T10:00:00Z" {
		t.Errorf("creationTimestamp %s, want the job's", ts)
	}
	if wl.UID == "" {
		t.Error("the Workload has no UID")
	}
}

// TestDeterministic: the same input gives the same Workloads, byte for byte.
func TestDeterministic(t *testing.T) {
	a, _ := convert(t, nil, fixture(t, "kinds.yaml"))
	b, _ := convert(t, nil, fixture(t, "kinds.yaml"))
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("two conversions of one input differ")
	}
}

// TestInstalledFrameworks: installedFrameworks is the frameworks list of the Configuration the
// Kueue module ships.
func TestInstalledFrameworks(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue").Output()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "config", "components", "manager", "controller_manager_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg configapi.Configuration
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Integrations.Frameworks, installedFrameworks) {
		t.Errorf("installed frameworks %v, the module's %v", installedFrameworks, cfg.Integrations.Frameworks)
	}
}

// TestSharedUIDReasons: two objects sharing a UID (a merged or hand-edited input) each keep
// their own reason: the warning event Kueue records on one is not the other's.
func TestSharedUIDReasons(t *testing.T) {
	got, _ := convert(t, nil, `
apiVersion: v1
kind: Pod
metadata:
  name: lone
  namespace: ml
  uid: u-9
  labels: {kueue.x-k8s.io/queue-name: main, kueue.x-k8s.io/pod-group-name: g2, kueue.x-k8s.io/managed: "true"}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "3"}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/admission}]
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata:
  name: bound
  namespace: ml
  uid: u-9
spec:
  nodeName: n1
  containers: [{name: c, image: busybox}]
status: {phase: Running}
`)
	want := []string{
		"SKIP Pod/ml/bound: Skipping pod, not managed by Kueue",
		"SKIP Pod/ml/lone: 'g2' group has fewer runnable pods than expected",
	}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestReconcileAgain: Converted.Reconcile runs the same reconcilers again, as the oracle's
// --reconcile-jobs-every does between cycles. Once the job's Workload is admitted (here by hand, as the
// scheduler and the workload controller would), the job reconciler starts the job; the template's
// kueue.x-k8s.io/podset label conflicts with the one startJob merges, a permanent error, so it finishes
// the Workload (FailedToStart).
func TestReconcileAgain(t *testing.T) {
	got, cl := convert(t, nil, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: batch/v1
kind: Job
metadata: {name: bad, namespace: ml, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  suspend: true
  template:
    metadata: {labels: {kueue.x-k8s.io/podset: other}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
`)
	if len(got.Workloads) != 1 || got.Reconcile == nil {
		t.Fatalf("want one Workload and a Reconcile, got %v", summary(got))
	}
	ctx := context.Background()
	wl := got.Workloads[0].DeepCopy()
	if err := cl.Get(ctx, client.ObjectKeyFromObject(wl), wl); err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC))
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: wl.Spec.PodSets[0].Name, Count: ptr.To[int32](1),
		Flavors:       map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f0"},
		ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}
	for _, c := range []string{kueue.WorkloadQuotaReserved, kueue.WorkloadAdmitted} {
		apimeta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: c, Status: metav1.ConditionTrue,
			Reason: c, Message: "by the test", LastTransitionTime: now})
	}
	if err := cl.Status().Update(ctx, wl); err != nil {
		t.Fatal(err)
	}
	if err := got.Reconcile(ctx); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(wl), wl); err != nil {
		t.Fatal(err)
	}
	c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != jobframework.FailedToStartFinishedReason ||
		!strings.Contains(c.Message, "conflict for key=kueue.x-k8s.io/podset, value1=other") {
		t.Errorf("want the Workload Finished (FailedToStart, the podset label's conflict), got %+v", c)
	}
}
