"""webui/services/errors.py: each domain error carries the HTTP status, the code and the details
the API answers with ({"error": {"code", "message", "details"}})."""

from webui.services.errors import (
    AccountInvalid,
    Conflict,
    DomainError,
    Forbidden,
    InvalidScenario,
    LimitExceeded,
    NotFound,
    NotSignedIn,
    ReadOnlyShare,
    SignInFailed,
    SingleUserMode,
    Unavailable,
)


def test_each_error_has_its_status_and_code():
    cases = [
        (DomainError("x"), 400, "bad_request"),
        (NotFound("x"), 404, "not_found"),
        (Forbidden("x"), 403, "forbidden"),
        (ReadOnlyShare(), 403, "share_read_only"),
        (Conflict("x"), 409, "conflict"),
    ]
    assert [(e.status, e.code) for e, _, _ in cases] == [(status, code) for _, status, code in cases]
    assert isinstance(ReadOnlyShare(), Forbidden) and ReadOnlyShare().message == "share links are read-only"


def test_details_default_to_empty_and_are_kept():
    assert DomainError("bad").details == {} and DomainError("bad").retry_after is None
    assert DomainError("bad", {"pod": "default/p"}).details == {"pod": "default/p"}
    assert str(DomainError("bad")) == "bad"


def test_an_invalid_scenario_counts_its_problems_and_lists_them():
    problems = [{"message": "a"}, {"message": "b"}]
    error = InvalidScenario(problems)
    assert (error.code, error.status, error.message) == ("scenario_invalid", 400, "the scenario has 2 problem(s)")
    assert error.details == {"errors": problems}


def test_a_limit_names_itself_its_maximum_and_may_ask_to_retry():
    error = LimitExceeded("max_bytes", 1024, "too big")
    assert (error.status, error.code, error.details, error.retry_after) == (
        413,
        "limit_exceeded",
        {"limit": "max_bytes", "max": 1024},
        None,
    )
    busy = LimitExceeded("max_queued_runs", 3, "too many", status=429, retry_after=30)
    assert (busy.status, busy.retry_after) == (429, 30)
    assert LimitExceeded("x", 1, "m").status == 413  # the class attribute is untouched by the 429 above


def test_unavailable_says_when_to_retry():
    error = Unavailable(5)
    assert (error.status, error.code, error.retry_after, error.details) == (
        503,
        "service_unavailable",
        5,
        {"retryAfter": 5},
    )
    assert "retry in 5 s" in error.message


def test_a_refused_sign_up_names_its_field_and_a_failed_sign_in_says_nothing_more():
    refused = AccountInvalid("password", ["This password is too short.", "This password is too common."])
    assert (refused.status, refused.code, refused.field) == (400, "account_invalid", "password")
    assert refused.message == "password: This password is too short. This password is too common."
    assert refused.details == {"field": "password", "problems": refused.problems}
    failed = SignInFailed()
    assert (failed.status, failed.code, failed.details) == (401, "sign_in_failed", {})


def test_an_account_action_asks_to_sign_in_first_and_says_single_user_mode_has_no_accounts():
    anonymous = NotSignedIn("changing the password")
    assert (anonymous.status, anonymous.code) == (401, "unauthenticated")
    assert anonymous.message == "sign in first: changing the password is for a signed-in person's own account"
    shared = SingleUserMode("deleting an account")
    assert (shared.status, shared.code, isinstance(shared, Forbidden)) == (403, "single_user_mode", True)
    assert shared.message.startswith("deleting an account is not available in single-user mode: ")
