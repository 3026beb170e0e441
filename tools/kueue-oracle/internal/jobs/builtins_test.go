package jobs

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The images of kadmit's tests/jobs/test_prebuilt.py test_the_pull_policy_is_the_api_servers, with the
// policy SetDefaults_Container gives each (the real API server agrees: tests/kube/test_prebuilt_defaults.py).
func TestApplyContainerDefaults(t *testing.T) {
	digest := "@sha256:" + strings.Repeat("ab", 32)
	for image, want := range map[string]corev1.PullPolicy{
		"busybox": corev1.PullAlways, "busybox:latest": corev1.PullAlways, "busybox:1.36": corev1.PullIfNotPresent,
		"localhost:5000/img": corev1.PullAlways, "registry.example.com:5000/ml/trainer:2.4": corev1.PullIfNotPresent,
		"busybox" + digest: corev1.PullIfNotPresent, "busybox:latest" + digest: corev1.PullAlways,
		"busybox@sha256:" + strings.Repeat("AB", 32): corev1.PullIfNotPresent, "Busybox": corev1.PullIfNotPresent,
		"": corev1.PullIfNotPresent, strings.Repeat("a", 64): corev1.PullIfNotPresent,
		"UPPER.example/x": corev1.PullAlways, "host.example/UP/x": corev1.PullIfNotPresent,
	} {
		job := &batchv1.Job{}
		job.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "i", Image: image}}
		job.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: image},
			{Name: "set", Image: image, ImagePullPolicy: corev1.PullNever, TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError}}
		applyContainerDefaults(job)
		spec := job.Spec.Template.Spec
		for _, c := range []corev1.Container{spec.InitContainers[0], spec.Containers[0]} {
			if c.ImagePullPolicy != want || c.TerminationMessagePath != "/dev/termination-log" || c.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
				t.Errorf("%q: container %s defaulted to %q, %q, %q; want %q", image, c.Name, c.ImagePullPolicy, c.TerminationMessagePath, c.TerminationMessagePolicy, want)
			}
		}
		if c := spec.Containers[1]; c.ImagePullPolicy != corev1.PullNever || c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
			t.Errorf("%q: fields set were changed: %+v", image, c)
		}
	}
}
