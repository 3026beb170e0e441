// Package bases is not part of Kueue: kadmit's kueue-oracle build adds this file to a build-time
// copy of the module so that the oracle carries Kueue's CRDs (their structural schemas give the
// +kubebuilder:default values an API server applies).
package bases

import "embed"

//go:embed *.yaml
var FS embed.FS
