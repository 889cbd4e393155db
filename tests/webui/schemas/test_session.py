"""webui/schemas/session.py: the session's answer, its CSRF token under its JSON name, and the credentials
a sign-up or sign-in reads."""

import pytest
from pydantic import ValidationError

from webui.schemas.session import CredentialsIn, SessionOut


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
