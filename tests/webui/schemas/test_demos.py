"""webui/schemas/demos.py: every built-in demo fits its answer."""

from webui.schemas.demos import DemoOut
from webui.services import demos


def test_every_demo_fits_its_schema():
    listed = [DemoOut(slug=d.slug, name=d.name, description=d.description).model_dump() for d in demos.all_demos()]
    assert listed and all(set(d) == {"slug", "name", "description"} and all(d.values()) for d in listed)
