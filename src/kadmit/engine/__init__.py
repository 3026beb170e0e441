"""The engine: term layer, Z3 compile, sessions, decisions and explanations (the only importer of z3)."""
