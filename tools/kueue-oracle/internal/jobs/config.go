package jobs

import (
	"github.com/go-logr/logr"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
)

// installedFrameworks are the integrations Kueue v0.17.0's release installs
// (config/components/manager/controller_manager_config.yaml; TestInstalledFrameworks reads it).
var installedFrameworks = []string{
	"batch/job",
	"kubeflow.org/mpijob",
	"ray.io/rayjob",
	"ray.io/raycluster",
	"ray.io/rayservice",
	"jobset.x-k8s.io/jobset",
	"kubeflow.org/paddlejob",
	"kubeflow.org/pytorchjob",
	"kubeflow.org/tfjob",
	"kubeflow.org/xgboostjob",
	"kubeflow.org/jaxjob",
	"workload.codeflare.dev/appwrapper",
	"trainer.kubeflow.org/trainjob",
	"pod",
	"deployment",
	"statefulset",
	"leaderworkerset.x-k8s.io/leaderworkerset",
}

// InstalledConfiguration is the Configuration Kueue v0.17.0's release installs, as far as the
// job integrations read it: its frameworks, everything else Kueue's defaults
// (SetDefaults_Configuration; manageJobsWithoutQueueName off, managedJobsNamespaceSelector
// `kubernetes.io/metadata.name NotIn [kube-system, <Kueue's namespace>]`).
func InstalledConfiguration() *configapi.Configuration {
	cfg := &configapi.Configuration{}
	cfg.Integrations = &configapi.Integrations{Frameworks: append([]string(nil), installedFrameworks...)}
	configapi.SetDefaults_Configuration(cfg)
	return cfg
}

func logDiscard() logr.Logger { return logr.Discard() }
