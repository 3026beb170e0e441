"""The solver layer: a solver-neutral term layer and its lowerings to Z3 and CP-SAT."""
