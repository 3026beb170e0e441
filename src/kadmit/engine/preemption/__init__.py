"""Kueue's preemption: the victim search, classical and fair-sharing targets."""
