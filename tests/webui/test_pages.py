"""webui.pages: the page shells, the data they hand their ES modules, and who may open them."""

import html
import re

import pytest
from django.test import Client

from scheduler_core import load_scenario
from webui.models import FleetCheck, Run, Scenario, ScenarioVersion, ShareLink, Upgrade
from webui.services import scenarios

pytestmark = pytest.mark.django_db


@pytest.fixture
def owned_run(owner: Client) -> Run:
    """A scenario and a run of it, both the ``owner`` visitor's."""
    session = owner.session.session_key
    scenario = Scenario.objects.create(name="mine", owner_session_key=session)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=scenarios.blank_template())
    return Run.objects.create(version=version, owner_session_key=session)


def _main_tag(page: str) -> str:
    return re.search(r"<main[^>]*>", page).group(0)


def test_the_scenario_list_hands_create_blank_a_small_valid_template(client: Client):
    page = client.get("/").content.decode()
    attribute = re.search(r'data-blank-template="([^"]*)"', page)
    assert attribute, "the list page carries the template for Create blank"
    text = html.unescape(attribute.group(1))
    assert text == scenarios.blank_template()
    loaded = load_scenario(text)
    assert (len(loaded.nodes), len(loaded.pods), len(loaded.pending_pods)) == (2, 1, 1)
    assert text.startswith("# "), "the template explains itself in comments"


def test_the_scenario_list_shows_its_heading_and_loads_the_list_module(client: Client):
    page = client.get("/").content.decode()
    assert "<title>Scenarios · SchedLab</title>" in page
    assert '<h1 id="scenarios-heading">Scenarios</h1>' in page
    assert 'class="page-list"' in _main_tag(page)
    assert "js/pages/list.js" in page


def test_the_editor_names_the_scenario_it_edits(owner: Client, owned_run: Run):
    scenario_id = owned_run.version.scenario_id
    response = owner.get(f"/scenarios/{scenario_id}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert f'data-scenario-id="{scenario_id}"' in _main_tag(page)
    assert '<button id="run-button" type="button" disabled>▶ Run</button>' in page
    assert "js/pages/editor.js" in page


def test_the_cluster_view_names_the_scenario_it_draws(owner: Client, owned_run: Run):
    scenario_id = owned_run.version.scenario_id
    page = owner.get(f"/scenarios/{scenario_id}/cluster/").content.decode()
    assert "<title>Cluster · SchedLab</title>" in page
    assert f'data-scenario-id="{scenario_id}"' in _main_tag(page)
    assert "js/pages/cluster.js" in page


def test_the_run_page_names_its_run_in_the_title_and_heading(owner: Client, owned_run: Run):
    response = owner.get(f"/runs/{owned_run.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert f"<title>Run {owned_run.pk} · SchedLab</title>" in page
    assert f'<h1 id="run-title">Run {owned_run.pk}</h1>' in page
    assert f'data-run-id="{owned_run.pk}"' in _main_tag(page)
    assert "js/pages/run.js" in page


def test_a_demo_scenario_opens_for_every_visitor(stranger: Client):
    demo = Scenario.objects.create(name="demo", demo_slug="spread")
    page = stranger.get(f"/scenarios/{demo.pk}/").content.decode()
    assert f'data-scenario-id="{demo.pk}"' in _main_tag(page)


def test_the_compare_and_share_pages_render_their_shells(client: Client, owned_run: Run):
    compare = client.get("/compare/?a=1&b=2").content.decode()
    assert '<h1 id="compare-title">Compare runs</h1>' in compare
    link = ShareLink.objects.create(version=owned_run.version, run=owned_run)
    share = client.get(f"/share/{link.token}").content.decode()
    assert f'data-share-token="{link.token}"' in _main_tag(share)
    assert "Read-only shared link" in share
    assert '<meta name="robots" content="noindex">' in share


@pytest.mark.parametrize(
    "path",
    ["/runs/999/", "/scenarios/999/", "/scenarios/999/cluster/"],
    ids=[
        "a run that does not exist is a 404",
        "a scenario that does not exist is a 404",
        "the cluster view of a scenario that does not exist is a 404",
    ],
)
def test_a_page_about_something_that_does_not_exist_is_a_404(owner: Client, path: str):
    response = owner.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert "data-run-id" not in page
    # In words, not Django's bare "Not Found": why a link may show nothing, and the way home.
    assert "<h1>Not here</h1>" in page and "browser session that made it" in page and 'href="/"' in page


def test_a_share_link_that_does_not_exist_is_a_404_without_the_read_only_banner(stranger: Client):
    response = stranger.get("/share/no-such-token")
    assert response.status_code == 404
    page = response.content.decode()
    assert "this share link does not exist or was revoked" in page and "Read-only shared link" not in page


def test_someone_elses_run_and_scenario_are_404s_as_in_the_api(owner: Client, stranger: Client, owned_run: Run):
    scenario_id = owned_run.version.scenario_id
    for path, api in (
        (f"/runs/{owned_run.pk}/", f"/api/runs/{owned_run.pk}"),
        (f"/scenarios/{scenario_id}/", f"/api/scenarios/{scenario_id}"),
        (f"/scenarios/{scenario_id}/cluster/", f"/api/scenarios/{scenario_id}"),
    ):
        assert (owner.get(path).status_code, owner.get(api).status_code) == (200, 200), path
        assert (stranger.get(path).status_code, stranger.get(api).status_code) == (404, 404), path


def test_a_share_link_opens_the_run_it_shares_and_no_other(stranger: Client, owned_run: Run):
    link = ShareLink.objects.create(version=owned_run.version, run=owned_run)
    assert stranger.get(f"/runs/{owned_run.pk}/?token={link.token}").status_code == 200
    other = Run.objects.create(version=owned_run.version, owner_session_key=owned_run.owner_session_key)
    assert stranger.get(f"/runs/{other.pk}/?token={link.token}").status_code == 404


def test_an_upgrade_comparison_s_page_opens_for_its_asker_and_its_share_link_only(
    owner: Client, stranger: Client, owned_run: Run
):
    upgrade = Upgrade.objects.create(
        version=owned_run.version,
        old_release="v1.35",
        new_release="v1.36",
        owner_session_key=owned_run.owner_session_key,
    )
    page = owner.get(f"/upgrades/{upgrade.pk}/").content.decode()
    assert f'data-upgrade-id="{upgrade.pk}"' in _main_tag(page) and "js/pages/upgrade.js" in page
    assert "<title>What changes if we upgrade · SchedLab</title>" in page
    assert stranger.get(f"/upgrades/{upgrade.pk}/").status_code == 404
    link = ShareLink.objects.create(version=owned_run.version, upgrade=upgrade)
    assert stranger.get(f"/upgrades/{upgrade.pk}/?token={link.token}").status_code == 200
    fleet = FleetCheck.objects.create(target="v1.36", owner_session_key=owned_run.owner_session_key)
    page = owner.get(f"/upgrades/fleet/{fleet.pk}/").content.decode()
    assert f'data-fleet-id="{fleet.pk}"' in _main_tag(page) and "js/pages/fleet.js" in page
    assert stranger.get(f"/upgrades/fleet/{fleet.pk}/").status_code == 404
    assert owner.get("/upgrades/999/").status_code == 404


def test_the_editor_offers_the_release_selector_and_the_upgrade_question(owner: Client, owned_run: Run):
    page = owner.get(f"/scenarios/{owned_run.version.scenario_id}/").content.decode()
    assert '<div id="release-selector"></div>' in page and '<div id="upgrade-form"></div>' in page
    assert "What changes if we upgrade?" in page
    listing = owner.get("/").content.decode()
    assert '<div id="fleet-bar" class="fleet-bar"></div>' in listing and 'id="fleet-list"' in listing
