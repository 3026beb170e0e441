// Package manager is not part of Kueue: kadmit's kueue-oracle build adds this file to a
// build-time copy of the module so that the oracle carries the Configuration Kueue installs
// (controller_manager_config.yaml), used when the input has none.
package manager

import _ "embed"

//go:embed controller_manager_config.yaml
var Configuration []byte
