"""Diagnostic codes for usage and output errors of the CLI and the Python API (KAD005–KAD019)."""

from kadmit.diagnostics import register

KAD005 = register("KAD005", "not a policy file", "error",
                  "`kadmit fmt` formats only the policy language; it was given a file that is not "
                  "a `.kad` file (manifests are left as they are).")
KAD006 = register("KAD006", "unwritable output", "error",
                  "A formatted file could not be written back. The original file is left intact: "
                  "kadmit writes a temporary file next to it and renames it over the original "
                  "only once it is complete.")
KAD007 = register("KAD007", "unknown diagnostic code", "error",
                  "`kadmit codes CODE` was asked about a code that no stage of kadmit registers.")
KAD008 = register("KAD008", "optimal mode unavailable", "error",
                  "`--mode optimal` solves with OR-tools CP-SAT, an optional extra that is not installed.")
KAD009 = register("KAD009", "unknown workload", "error",
                  "`kadmit why` was asked about a workload that none of the inputs define.")
