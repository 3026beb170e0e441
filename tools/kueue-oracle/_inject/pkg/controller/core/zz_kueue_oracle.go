package core

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can give the workload
// controller its fake clock, as Kueue's own in-package tests do (workload_controller_test.go
// sets reconciler.clock). It holds no logic.

import "k8s.io/utils/clock"

// OracleSetClock sets the clock the workload controller stamps conditions with.
func (r *WorkloadReconciler) OracleSetClock(c clock.Clock) {
	r.clock = c
}
