"""Django admin lists every model."""

import pytest
from django.test import Client

from webui.models import Run, RunSegment, Scenario, ScenarioVersion, ShareLink

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["scenario", "scenarioversion", "run", "runsegment", "sharelink"])
def test_it_shows_the_changelist_and_a_change_page(admin_client: Client, model: str):
    scenario = Scenario.objects.create(name="s")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="kind: Node")
    run = Run.objects.create(version=version)
    objects = {
        "scenario": scenario,
        "scenarioversion": version,
        "run": run,
        "runsegment": RunSegment.objects.create(run=run, cycle=0, first_seq=0, end_seq=1, blob=b"npz"),
        "sharelink": ShareLink.objects.create(version=version),
    }
    assert admin_client.get(f"/admin/webui/{model}/").status_code == 200
    page = admin_client.get(f"/admin/webui/{model}/{objects[model].pk}/change/")
    assert page.status_code == 200
