"""`manage.py load_demos`: creates the demo scenarios once and says which it loaded."""

import pytest
from django.core.management import call_command

from webui.models import Scenario
from webui.services import demos

pytestmark = pytest.mark.django_db


def test_it_loads_the_demos_idempotently_and_names_each(capsys):
    slugs = [demo.slug for demo in demos.all_demos()]
    call_command("load_demos")
    assert capsys.readouterr().out.splitlines() == [f"loaded  {slug}" for slug in slugs]
    call_command("load_demos")
    assert capsys.readouterr().out.splitlines() == [f"up to date {slug}" for slug in slugs]
    assert Scenario.objects.filter(demo_slug__isnull=False).count() == len(slugs) == 14
    assert all(s.versions.count() == 1 for s in Scenario.objects.all())
