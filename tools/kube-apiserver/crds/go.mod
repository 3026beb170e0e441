// The modules whose CRDs `up` installs, at the versions Kueue requires (checked by `up`).
// Nothing imports them: `go mod download` fetches and verifies them against go.sum. Don't run
// `go mod tidy` here (it would drop every line).
module github.com/kadmit/kadmit/tools/kube-apiserver/crds

go 1.25.6

require (
	github.com/kubeflow/mpi-operator v0.8.0
	github.com/kubeflow/trainer/v2 v2.2.0
	github.com/kubeflow/training-operator v1.9.3
	github.com/project-codeflare/appwrapper v1.2.0
	github.com/ray-project/kuberay/ray-operator v1.6.0
	sigs.k8s.io/jobset v0.11.1
	sigs.k8s.io/karpenter v1.9.0
	sigs.k8s.io/kueue v0.17.0
	sigs.k8s.io/lws v0.8.0
)
