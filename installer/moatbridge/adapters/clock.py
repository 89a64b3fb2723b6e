"""The time a record is stamped with: UTC, to the second, ISO 8601 (what state, consents,
image records and bundle manifests say)."""

from __future__ import annotations

from datetime import datetime, timezone


def now_stamp() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
