"""Domain exceptions. The API maps them once (api.py) to {"error": {"code", "message", "details"}}."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    status = 400
    code = "bad_request"
    retry_after: int | None = None  # seconds, sent as the Retry-After header when set

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


class ReleaseInvalid(DomainError):
    """A release that is not a supported one, or kube-scheduler --feature-gates that do not read or
    that the release refuses: 400 naming the field and each problem."""

    code = "release_invalid"

    def __init__(self, field: str, problems: list[str], release: str | None = None) -> None:
        where = f" ({release})" if release else ""
        label = "release" if field == "release" else f"feature gates{where}"
        super().__init__(f"{label}: {'; '.join(problems)}", {"field": field, "problems": problems, "release": release})


class AccountInvalid(DomainError):
    """A sign-up refused (the name taken or not allowed, the password too weak), a new password refused,
    or a wrong current password (400). The message names the field; ``details``: {field, problems}."""

    code = "account_invalid"

    def __init__(self, field: str, problems: list[str]) -> None:
        super().__init__(f"{field}: {' '.join(problems)}", {"field": field, "problems": problems})
        self.field = field
        self.problems = problems


class SignInFailed(DomainError):
    """A name and password that match no account (401); we do not say which of the two was wrong."""

    status = 401
    code = "sign_in_failed"

    def __init__(self) -> None:
        super().__init__("that name and password do not match an account")


class NotSignedIn(DomainError):
    """An account's own action (changing its password, deleting it) asked without signing in (401, the
    code an API call that needs authentication answers with)."""

    status = 401
    code = "unauthenticated"

    def __init__(self, what: str) -> None:
        super().__init__(f"sign in first: {what} is for a signed-in person's own account")


class SingleUserMode(Forbidden):
    """An account action that does not exist in single-user mode (settings.SCHEDLAB_SINGLE_USER): there,
    everything made on the machine is everyone's, so no account holds anything of its own (403)."""

    code = "single_user_mode"

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} is not available in single-user mode: everything made on this machine is shared, not any account's"
        )


class LimitExceeded(DomainError):
    code = "limit_exceeded"

    def __init__(
        self, limit: str, value: int | None, message: str, status: int = 413, retry_after: int | None = None
    ) -> None:
        super().__init__(message, {"limit": limit, "max": value})
        self.status = status
        self.retry_after = retry_after


class Unavailable(DomainError):
    """The database is out of connections or unreachable: retry shortly (503 with Retry-After)."""

    status = 503
    code = "service_unavailable"

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"the server is overloaded or its database is unreachable; retry in {retry_after} s",
            {"retryAfter": retry_after},
        )
        self.retry_after = retry_after
