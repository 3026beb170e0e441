package provisioning

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can run the provisioning
// controller's AdmissionCheck reconciler (which sets a check's Active condition) without a
// manager, as its own test does (admissioncheck_reconciler_test.go builds acReconciler). It holds
// no logic.

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// OracleACReconciler is the reconciler Controller.SetupWithManager builds for AdmissionChecks.
func OracleACReconciler(c client.Client) (reconcile.Reconciler, error) {
	helper, err := newProvisioningConfigHelper(c)
	if err != nil {
		return nil, err
	}
	return &acReconciler{client: c, helper: helper}, nil
}
