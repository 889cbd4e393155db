"""Django admin: every model is listed with its columns, opens on its change page, and keeps what
must not change read-only."""

import html

import pytest
from django.test import Client

from webui.models import Run, RunSegment, RunStatus, Scenario, ScenarioVersion, ShareLink

pytestmark = pytest.mark.django_db


@pytest.fixture
def objects() -> dict:
    scenario = Scenario.objects.create(name="spread demo", description="three zones")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="kind: Node")
    run = Run.objects.create(version=version, status=RunStatus.RUNNING, claimed_by="worker-7:42", attempts=2)
    return {
        "scenario": scenario,
        "scenarioversion": version,
        "run": run,
        "runsegment": RunSegment.objects.create(run=run, cycle=0, first_seq=0, end_seq=1, blob=b"npz"),
        "sharelink": ShareLink.objects.create(version=version),
    }


def _text(response) -> str:
    assert response.status_code == 200
    return html.unescape(response.content.decode())


# What each changelist row shows (list_display), read from the row of the one object.
ROW_SHOWS = {
    "scenario": ["spread demo"],
    "scenarioversion": ["spread demo v1"],
    "run": ["Running", "worker-7:42"],
    "runsegment": ["cycle 0: events 0..0", '<td class="field-size">3</td>'],  # the blob's size, not the blob
    "sharelink": ["spread demo v1"],
}


@pytest.mark.parametrize("model", list(ROW_SHOWS))
def test_the_changelist_lists_the_object_with_its_columns(admin_client: Client, objects: dict, model: str):
    page = _text(admin_client.get(f"/admin/webui/{model}/"))
    assert f"/admin/webui/{model}/{objects[model].pk}/change/" in page
    for shown in ROW_SHOWS[model]:
        assert shown in page, shown


@pytest.mark.parametrize(
    ("model", "shown"),
    [
        ("scenario", 'value="spread demo"'),
        ("scenarioversion", "kind: Node"),
        ("run", "worker-7:42"),
        ("runsegment", '<div class="readonly">3</div>'),
        ("sharelink", "spread demo v1"),
    ],
    ids=[
        "a scenario's name is an editable field",
        "a version's text is shown",
        "a run shows its worker",
        "a segment shows its size",
        "a share link names its version",
    ],
)
def test_the_change_page_shows_the_object(admin_client: Client, objects: dict, model: str, shown: str):
    page = _text(admin_client.get(f"/admin/webui/{model}/{objects[model].pk}/change/"))
    assert shown in page


def test_versions_are_read_only_and_a_segment_never_shows_its_blob(admin_client: Client, objects: dict):
    version_page = _text(admin_client.get(f"/admin/webui/scenarioversion/{objects['scenarioversion'].pk}/change/"))
    assert 'name="text"' not in version_page
    segment_page = _text(admin_client.get(f"/admin/webui/runsegment/{objects['runsegment'].pk}/change/"))
    assert 'name="blob"' not in segment_page


def test_an_object_that_does_not_exist_is_not_shown(admin_client: Client, objects: dict):
    response = admin_client.get("/admin/webui/run/999/change/", follow=True)
    page = _text(response)
    assert "doesn’t exist" in page or "doesn't exist" in page
    assert "worker-7:42" not in page


def test_a_visitor_who_is_not_staff_is_sent_to_the_login(client: Client, objects: dict):
    response = client.get("/admin/webui/run/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
