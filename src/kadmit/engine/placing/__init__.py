"""Topology-aware placement inside admission: the node capacity a run hands out."""
