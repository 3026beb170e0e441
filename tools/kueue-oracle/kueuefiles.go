package main

import (
	crdbases "sigs.k8s.io/kueue/config/components/crd/bases"
	installed "sigs.k8s.io/kueue/config/components/manager"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

// Kueue's CRDs and installed Configuration, which the build copy of the module embeds as packages
// (_inject/config/components): given to internal/objects here, so that internal/objects imports
// nothing of _inject/ and its tests run with the committed go.mod.
func init() {
	objects.KueueCRDs = crdbases.FS
	objects.KueueInstalledConfiguration = installed.Configuration
}
