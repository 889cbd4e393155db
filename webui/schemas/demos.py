"""/api/demos: the built-in examples (webui/routers/demos.py)."""

from __future__ import annotations

from webui.schemas.common import ApiSchema


class DemoOut(ApiSchema):
    slug: str
    name: str
    description: str
