"""Diagnostic codes of the solver's limits: what a command needed decided and the solver left
`unknown` within `--rlimit` / `--timeout` (KAD410–KAD419). Each makes the command exit 3."""

from kadmit.diagnostics import register

KAD410 = register("KAD410", "analysis undecided", "error",
                  "`check --deep` could not finish an analysis within the solver's limits (`--rlimit`, "
                  "`--timeout`): the message names it (which flavor, workload or rule it was about). It is "
                  "neither reported as a finding nor passed as clean; the command exits 3. Raise the limits.")
KAD411 = register("KAD411", "test undecided", "error",
                  "`kadmit test`: an expectation of this test reads a decision the solver could not make "
                  "within its limits (`--rlimit`, `--timeout`), so the test neither passes nor fails; the "
                  "message names the workloads. The command exits 3. Raise the limits.")
KAD412 = register("KAD412", "change undecided", "error",
                  "`kadmit diff`: a decision or an envelope (largest gang) on one side could not be decided "
                  "within the solver's limits (`--rlimit`, `--timeout`), so whether it changed is unknown; "
                  "the message names it. The command exits 3. Raise the limits.")
KAD413 = register("KAD413", "replay undecided", "error",
                  "`kadmit simulate`: during the replay the solver could not decide some workloads within "
                  "its limits (`--rlimit`, `--timeout`), so they were left waiting at those instants and "
                  "the results may differ from Kueue's; the message names them (and, in a sweep or "
                  "`--compare`, the variant or policy). The command exits 3. Raise the limits.")
KAD414 = register("KAD414", "capacity undecided", "error",
                  "`kadmit why --with-capacity`: deciding the state again with a pool's new nodes stayed "
                  "unknown within the solver's limits, so how many nodes would admit the workload is not "
                  "known. The command exits 3. Raise the limits.")

UNDECIDED = frozenset({KAD410, KAD411, KAD412, KAD413, KAD414})
