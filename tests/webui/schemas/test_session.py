"""webui/schemas/session.py: the session's answer, its CSRF token under its JSON name."""

from webui.schemas.session import SessionOut


def test_the_csrf_token_is_written_as_csrf_token_in_camel_case():
    out = SessionOut(csrf_token="t", user=None, anonymous=True)
    assert out.model_dump() == {"csrfToken": "t", "user": None, "anonymous": True}
