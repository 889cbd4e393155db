"""Helpers for the websocket consumers' tests (Channels' in-process communicator, no server)."""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from django.test import Client

from webui.routing import websocket_urlpatterns

APP = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))  # the ASGI app's websocket side, as asgi.py routes it


def session_cookie() -> tuple[str, str]:
    """A new browser session's key and the Cookie header value that carries it."""
    client = Client()
    client.get("/api/session")
    client.post("/api/validate", {"text": ""}, content_type="application/json")  # a write creates the session
    key = client.session.session_key
    return key, f"sessionid={key}"
