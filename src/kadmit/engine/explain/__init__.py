"""Explanations: unsat cores (blame) and verified fixes, for quota, rules and placement."""
