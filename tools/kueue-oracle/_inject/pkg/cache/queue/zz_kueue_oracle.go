package queue

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can see whether a scheduling
// cycle is coming for a workload waiting for its second pass. It holds no logic.

// OracleSecondPassQueued says whether a workload is queued for its second pass of scheduling
// (its backoff elapsed: the next Heads takes it, secondPassQueue.takeAllReady).
func (m *Manager) OracleSecondPassQueued() bool {
	m.secondPassQueue.RLock()
	defer m.secondPassQueue.RUnlock()
	return len(m.secondPassQueue.queued) > 0
}

// OracleSecondPassWaiting says whether a workload waits for its second pass of scheduling, queued
// or still in its backoff (secondPassQueue.prequeued: its timer has not fired yet).
func (m *Manager) OracleSecondPassWaiting() bool {
	m.secondPassQueue.RLock()
	defer m.secondPassQueue.RUnlock()
	return len(m.secondPassQueue.queued) > 0 || len(m.secondPassQueue.prequeued) > 0
}
