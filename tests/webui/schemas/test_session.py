"""webui/schemas/session.py: the session's answer, its CSRF token under its JSON name, the credentials
a sign-up or sign-in reads, a password change's and an account deletion's bodies, and what a deletion
answers."""

import pytest
from pydantic import ValidationError

from webui.schemas.session import (
    AccountDeletedOut,
    CredentialsIn,
    HoldingsOut,
    PasswordChangeIn,
    PasswordIn,
    SessionOut,
    SignUpIn,
)


def test_the_csrf_token_is_written_as_csrf_token_in_camel_case():
    out = SessionOut(csrf_token="t", user=None, anonymous=True, single_user=False)
    assert out.model_dump() == {"csrfToken": "t", "user": None, "anonymous": True, "singleUser": False}


def test_credentials_are_a_name_and_a_password():
    body = CredentialsIn.model_validate({"username": "ada", "password": "pw"})
    assert (body.username, body.password) == ("ada", "pw")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"username": "ada"}, id="no password"),
        pytest.param({"username": "a" * 151, "password": "pw"}, id="a name longer than Django's User allows"),
        pytest.param({"username": "ada", "password": "p" * 4097}, id="a password of more than 4096 characters"),
    ],
)
def test_credentials_that_cannot_be_an_account_are_refused_by_the_schema(body):
    with pytest.raises(ValidationError):
        CredentialsIn.model_validate(body)


def test_a_password_change_reads_the_current_and_the_new_password_by_their_json_names():
    body = PasswordChangeIn.model_validate({"currentPassword": "old one", "newPassword": "new one"})
    assert (body.current_password, body.new_password) == ("old one", "new one")
    with pytest.raises(ValidationError):
        PasswordChangeIn.model_validate({"current_password": "old one", "new_password": "new one"})
    with pytest.raises(ValidationError):
        PasswordChangeIn.model_validate({"currentPassword": "old one", "newPassword": "p" * 4097})


def test_deleting_reads_the_password_and_answers_the_session_with_what_was_deleted():
    assert PasswordIn.model_validate({"password": "pw"}).password == "pw"
    with pytest.raises(ValidationError):
        PasswordIn.model_validate({})
    counts = dict(scenarios=1, versions=2, runs=3, questions=4, upgrades=5, fleet_checks=6, share_links=7)
    out = AccountDeletedOut(csrf_token="t", user=None, anonymous=True, single_user=False, deleted=HoldingsOut(**counts))
    assert out.model_dump()["deleted"] == {
        "scenarios": 1,
        "versions": 2,
        "runs": 3,
        "questions": 4,
        "upgrades": 5,
        "fleetChecks": 6,
        "shareLinks": 7,
    }
    assert out.model_dump()["anonymous"] is True


def test_a_sign_up_s_e_mail_address_is_optional_and_bounded():
    assert SignUpIn.model_validate({"username": "ada", "password": "pw"}).email == ""
    assert SignUpIn.model_validate({"username": "ada", "password": "pw", "email": "a@example.com"}).email
    with pytest.raises(ValidationError):
        SignUpIn.model_validate({"username": "ada", "password": "pw", "email": "a" * 255})
