"""ASGI entry point: `daphne webui.asgi:application` (HTTP through Django, websockets through Channels)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
django_asgi_app = get_asgi_application()  # before importing anything that touches models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from webui.routing import websocket_urlpatterns  # noqa: E402


def without_form_parsing_in_daphne() -> None:
    """daphne's HTTP requests are Twisted's, which parse every POST's multipart or URL-encoded body whole
    into ``request.args`` before the application sees it (Twisted's own words: "this can use large
    amounts of memory for large uploads") — about 11 times the body: an 84 MB upload took daphne to
    ~1 GB. daphne never reads those args (it hands the body to the application as it came), and Twisted
    lets its requests be made without that parse (``parsePOSTFormSubmission``); daphne does not say so,
    hence this. Django still reads every form as before, streaming (issue 50)."""
    import inspect

    from daphne.http_protocol import WebRequest
    from twisted.web.http import Request

    made = WebRequest.__init__
    if (
        getattr(made, "without_form_parsing", False)
        or "parsePOSTFormSubmission" not in inspect.signature(Request.__init__).parameters
    ):
        return  # done already, or a Twisted without that parse's switch

    def __init__(self: WebRequest, *args: object, **kwargs: object) -> None:  # noqa: N807 - a constructor
        kwargs.setdefault("parsePOSTFormSubmission", False)
        made(self, *args, **kwargs)

    __init__.without_form_parsing = True  # type: ignore[attr-defined]
    WebRequest.__init__ = __init__


without_form_parsing_in_daphne()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # routing.py's patterns hold ASGI applications (see there why their type is Django's)
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),  # type: ignore[arg-type]
    }
)
