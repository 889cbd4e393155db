"""Content-Security-Policy on every response (Django 5.x has no built-in CSP)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


def content_security_policy(host: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",  # no inline script, no eval
            # Plotly positions its SVG through style attributes; inline styles cannot run script.
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",  # plotly's "download as PNG" builds data: URLs
            f"connect-src 'self' ws://{host} wss://{host}",  # older browsers do not match ws: to 'self'
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", content_security_policy(request.get_host()))
        return response
