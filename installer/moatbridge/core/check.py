"""One readiness check's verdict (pure data): doctor's and setup's checks all return these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    status: str  # "pass" | "warn" | "fail" | "skip"
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "fix": self.fix,
        }
