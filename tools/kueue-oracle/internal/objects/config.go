package objects

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	"sigs.k8s.io/kueue/pkg/config"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
)

// As kadmit reads it (src/kadmit/manifests/config.py): a Configuration document of
// config.kueue.x-k8s.io, or the ConfigMap Kueue's installation ships it in.
const (
	configGroup     = "config.kueue.x-k8s.io"
	configMapName   = "kueue-manager-config"
	configMapKey    = "controller_manager_config.yaml"
	installedSource = "config/components/manager/controller_manager_config.yaml"
)

type configSource struct {
	data  []byte
	where string
}

// configDocument returns the Configuration text u holds, if it is one.
func configDocument(u *unstructured.Unstructured) ([]byte, bool) {
	gvk := u.GroupVersionKind()
	if gvk.Group == configGroup && gvk.Kind == "Configuration" {
		data, err := yaml.Marshal(u.Object)
		return data, err == nil
	}
	if gvk.Group == "" && gvk.Kind == "ConfigMap" && u.GetName() == configMapName {
		text, found, err := unstructured.NestedString(u.Object, "data", configMapKey)
		if found && err == nil {
			return []byte(text), true
		}
	}
	return nil, false
}

// LoadConfiguration reads a Configuration as Kueue's manager does (pkg/config.Load: decoded
// strictly, converted from v1beta1, defaulted, validated).
func LoadConfiguration(scheme *runtime.Scheme, data []byte) (*configapi.Configuration, error) {
	dir, err := os.MkdirTemp("", "kueue-oracle-config")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, configMapKey)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	_, cfg, err := config.Load(scheme, path)
	if err != nil {
		return nil, err
	}
	return &cfg, nil
}

// InstalledConfiguration is the Configuration Kueue's installation ships.
func InstalledConfiguration(scheme *runtime.Scheme) (*configapi.Configuration, error) {
	if KueueInstalledConfiguration == nil {
		return nil, fmt.Errorf("Kueue's installed Configuration (%s) was not given to the oracle", installedSource)
	}
	cfg, err := LoadConfiguration(scheme, KueueInstalledConfiguration)
	if err != nil {
		return nil, fmt.Errorf("Kueue's installed Configuration (%s): %w", installedSource, err)
	}
	return cfg, nil
}

// Frameworks are the integrations (`integrations.frameworks`) of the Configuration Kueue runs with for
// these documents, as Reader.Read finds it: the input's own, defaulted (an empty one: batch/job alone),
// else the installed one. Nil where Read refuses the Configurations (it says why).
func Frameworks(scheme *runtime.Scheme, docs []input.Document) []string {
	var found [][]byte
	for _, d := range docs {
		if data, ok := configDocument(d.Object); ok {
			found = append(found, data)
		}
	}
	var cfg *configapi.Configuration
	var err error
	switch len(found) {
	case 0:
		cfg, err = InstalledConfiguration(scheme)
	case 1:
		cfg, err = LoadConfiguration(scheme, found[0])
	}
	if cfg == nil || err != nil || cfg.Integrations == nil {
		return nil
	}
	return cfg.Integrations.Frameworks
}
