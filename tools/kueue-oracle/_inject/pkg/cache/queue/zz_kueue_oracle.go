package queue

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that the oracle can see whether a scheduling
// cycle is coming for a workload waiting for its second pass, and give the queues' ClusterQueues
// its fake clock. It holds no logic.

import "k8s.io/utils/clock"

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

// OracleSetClusterQueueClock gives every ClusterQueue of the queue manager the clock its
// backoffWaitingTimeExpired compares a workload's requeueAt with, as Kueue's own in-package tests
// do (cluster_queue_test.go: newClusterQueueImpl with a fake clock); newClusterQueue takes the real
// clock, which in the oracle is not the run's "now" that the workload controller and the manager
// are given. Call it once the ClusterQueues are added.
func (m *Manager) OracleSetClusterQueueClock(c clock.Clock) {
	m.Lock()
	defer m.Unlock()
	for _, cq := range m.hm.ClusterQueues() {
		cq.rwm.Lock()
		cq.clock = c
		cq.rwm.Unlock()
	}
}
