"""The Kueue oracle for the tests of this folder: built once per session (or given by
$KADMIT_KUEUE_ORACLE). Without Go the tests skip, saying why; under CI (.ci/run sets KADMIT_CI)
they fail instead."""

from __future__ import annotations

import pytest

from oracle.harness import OracleUnavailable, in_ci, oracle_binary


@pytest.fixture(scope="session")
def kueue_oracle() -> str:
    try:
        return oracle_binary()
    except OracleUnavailable as e:
        if in_ci():
            pytest.fail(str(e))
        pytest.skip(str(e))
