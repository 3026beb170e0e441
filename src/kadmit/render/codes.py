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
KAD010 = register("KAD010", "ambiguous name", "error",
                  "`kadmit why` was given a `namespace/name` that objects of two kinds (or several "
                  "workloads of one object) share. Name one as `Kind/namespace/name`, or by its "
                  "Workload name; the message lists the candidates.")
KAD011 = register("KAD011", "not pending work", "error",
                  "`kadmit why` was asked about an object that the inputs hold but that is not work "
                  "Kueue decides: a kind kadmit does not read, or a job Kueue would not manage "
                  "(no queue name, its integration not enabled, its namespace not selected), one "
                  "that has finished, or one running without its Workload. The message says which.")
