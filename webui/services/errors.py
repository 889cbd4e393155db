"""Domain exceptions. The API maps them once (api.py) to {"error": {"code", "message", "details"}}."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Forbidden(DomainError):
    status = 403
    code = "forbidden"


class ReadOnlyShare(Forbidden):
    code = "share_read_only"

    def __init__(self) -> None:
        super().__init__("share links are read-only")


class Conflict(DomainError):
    status = 409
    code = "conflict"


class InvalidScenario(DomainError):
    code = "scenario_invalid"

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"the scenario has {len(errors)} problem(s)", {"errors": errors})


class LimitExceeded(DomainError):
    code = "limit_exceeded"

    def __init__(self, limit: str, value: int, message: str, status: int = 413) -> None:
        super().__init__(message, {"limit": limit, "max": value})
        self.status = status
