"""Hypothesis profiles for the whole suite, chosen by HYPOTHESIS_PROFILE, else by KADMIT_CI.

- `ci` (under `KADMIT_CI`, which `.ci/run` sets): derandomized — every property draws the same examples
  on every run (seeded by a hash of the test), so CI passes or fails on the code, never on the draw; no
  example database (CI starts from a clean clone, and a saved failure would make two runs differ).
- `dev` (otherwise): random examples, so every local run explores new ones; a failure is saved in
  `.hypothesis/`, replayed first on the next runs until it passes, and printed with the blob for
  `@reproduce_failure`. Make a failure one run found a regression test: an `@example` or a named test.

Neither times anything: no deadline per example and no `too_slow` health check, so a busy machine
fails no property (a test's own `suppress_health_check` replaces the list: keep `too_slow` in it).
`HYPOTHESIS_PROFILE=ci` runs CI's examples locally. A test's own `@settings` override the profile's.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **UNTIMED)
settings.register_profile("dev", print_blob=True, **UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("KADMIT_CI") else "dev"))
