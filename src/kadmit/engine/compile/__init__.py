"""Compiling one workload's admission question (quota, flavors, rules) into tracked terms."""
