package multikueue

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can run MultiKueue's
// AdmissionCheck reconciler (which sets a check's Active condition) without a manager. It holds
// no logic.

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/kueue/pkg/util/admissioncheck"
)

// OracleACReconciler is the reconciler SetupControllers builds for AdmissionChecks.
func OracleACReconciler(c client.Client) (reconcile.Reconciler, error) {
	helper, err := admissioncheck.NewMultiKueueStoreHelper(c)
	if err != nil {
		return nil, err
	}
	return newACReconciler(c, helper, nil), nil
}
