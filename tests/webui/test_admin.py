"""Django admin lists every model."""

import pytest
from django.test import Client

from webui.models import Run, RunEvent, Scenario, ScenarioVersion, ShareLink

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["scenario", "scenarioversion", "run", "runevent", "sharelink"])
def test_it_shows_the_changelist_and_a_change_page(admin_client: Client, model: str):
    scenario = Scenario.objects.create(name="s")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="kind: Node")
    run = Run.objects.create(version=version)
    objects = {
        "scenario": scenario,
        "scenarioversion": version,
        "run": run,
        "runevent": RunEvent.objects.create(run=run, seq=0, cycle=0, extension_point="CycleStart", payload={}),
        "sharelink": ShareLink.objects.create(version=version),
    }
    assert admin_client.get(f"/admin/webui/{model}/").status_code == 200
    page = admin_client.get(f"/admin/webui/{model}/{objects[model].pk}/change/")
    assert page.status_code == 200
