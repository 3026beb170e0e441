"""The `policy` fixture of the simulate tests."""

import pytest
from sim_helpers import POLICY


@pytest.fixture
def policy(tmp_path):
    p = tmp_path / "policy.kad"
    p.write_text(POLICY)
    return str(p)
