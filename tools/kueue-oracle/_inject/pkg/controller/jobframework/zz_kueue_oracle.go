package jobframework

// This file is not part of Kueue. kadmit's kueue-oracle build (tools/kueue-oracle/kueue-oracle)
// adds it to a build-time copy of the module so that one oracle process can set Kueue's job
// controllers up for cluster after cluster (admit --each, convert). It holds no logic.

// OracleResetEnabledIntegrations forgets the integrations an earlier SetupControllers enabled in this
// process: the package-wide integration manager keeps them (enableIntegration), where Kueue's own
// process sets its controllers up once. Left over, they make GetEmptyOwnerObject (so
// FindAncestorJobManagedByKueue) take an owner of an integration the next cluster's Configuration does
// not enable as Kueue's. So are the external frameworks' kinds (registerExternal, from
// integrations.externalFrameworks): left over, the walk would pass an owner of a kind the next cluster's
// Configuration does not list.
func OracleResetEnabledIntegrations() {
	manager.mu.Lock()
	defer manager.mu.Unlock()
	manager.enabledIntegrations = nil
	manager.implicitlyEnabledIntegrations = nil
	manager.externalIntegrations = nil
}
