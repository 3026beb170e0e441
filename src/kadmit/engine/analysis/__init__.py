"""Symbolic analyses over a policy: what can ever be admitted, envelopes, and `check --deep`."""
