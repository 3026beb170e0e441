"""Times written by export and import: whole seconds as the API server writes them, and a fraction of a
second kept where the model has one (a Workload kadmit makes after the input's moment is the input's latest
time plus a millisecond), so that the order read back is the order decided."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kadmit.export.state import timestamp
from kadmit.manifests.fields import _RFC3339


def test_whole_seconds_as_the_api_server_writes_them() -> None:
    assert timestamp(datetime(2026, 11, 1, 0, 4, tzinfo=timezone.utc)) == "2026-11-01T00:04:00Z"
    assert timestamp(datetime(2026, 11, 1, 1, 4, tzinfo=timezone(timedelta(hours=1)))) == "2026-11-01T00:04:00Z"


def test_a_fraction_is_kept_and_reads_back_in_order() -> None:
    base = datetime(2026, 11, 1, 0, 4, tzinfo=timezone.utc)
    times = [base, base + timedelta(milliseconds=1), base + timedelta(milliseconds=2),
             base + timedelta(microseconds=1500500)]
    written = [timestamp(t) for t in times]
    assert written[1] == "2026-11-01T00:04:00.001Z"
    assert written[3] == "2026-11-01T00:04:01.5005Z"
    for w, t in zip(written, times):
        assert _RFC3339.fullmatch(w)  # as the manifests' reader (Go's RFC 3339) takes it
        assert datetime.fromisoformat(w) == t  # as the `.kad` reader takes it
