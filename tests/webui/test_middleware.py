"""Security headers on every response, CSP without inline script."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_sends_security_headers_with_api_responses(client: Client):
    response = client.get("/api/session")
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self';" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp and "ws://testserver" in csp


def test_it_sends_the_policy_on_errors_too(client: Client):
    response = client.get("/api/scenarios/999999")
    assert response.status_code == 404
    assert "Content-Security-Policy" in response
