package scheduler

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can run one scheduling cycle
// synchronously, as Kueue's own in-package tests (scheduler_test.go) do. It holds no logic.

import (
	"context"

	"sigs.k8s.io/kueue/pkg/util/routine"
	"sigs.k8s.io/kueue/pkg/util/wait"
)

// OracleSchedule runs one scheduling cycle (the unexported schedule).
func (s *Scheduler) OracleSchedule(ctx context.Context) wait.SpeedSignal {
	return s.schedule(ctx)
}

// OracleSetAdmissionRoutineWrapper sets the wrapper of the goroutines that write admissions
// (the unexported setAdmissionRoutineWrapper), so that a cycle's writes can be waited for.
func (s *Scheduler) OracleSetAdmissionRoutineWrapper(w routine.Wrapper) {
	s.setAdmissionRoutineWrapper(w)
}
