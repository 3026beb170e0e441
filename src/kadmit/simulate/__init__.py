"""`kadmit simulate`: replay a cluster's workload over time with the engine's decisions."""
