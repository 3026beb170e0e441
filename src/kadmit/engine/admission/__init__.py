"""Kueue's admission rules: the quota tree, flavor assignment in an incremental session, the
scheduling cycle (`ordered` mode) and Kueue's reasons for a pending workload."""
