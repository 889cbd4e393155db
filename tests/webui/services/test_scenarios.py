"""webui/services/scenarios.py: every save is a new immutable version (valid or not), numbered in
order; versions are read by number; demos are copied rather than changed; forks keep their source."""

import difflib

import pytest

from tests.webui import support
from webui.models import Scenario, ScenarioVersion
from webui.services import scenarios
from webui.services.access import Actor
from webui.services.errors import LimitExceeded, NotFound

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")
VISITOR = Actor(session_key="visitor-session")
BROKEN = "apiVersion: v1\nkind: Node\nmetadata: {}\n"


@pytest.fixture
def saved():
    return scenarios.create(OWNER, "small", support.scenario_text(nodes=2, pending=1), "two nodes")


def test_create_saves_version_one_and_its_check(saved):
    assert (saved.version.number, saved.scenario.description) == (1, "two nodes")
    assert ScenarioVersion.objects.get(pk=saved.version.pk).text == support.scenario_text(nodes=2, pending=1)
    assert saved.check.valid and saved.check.summary.nodes == 2
    assert OWNER.owns(saved.scenario)


def test_every_save_is_a_new_version_even_an_invalid_one(saved):
    second = scenarios.save(saved.scenario, BROKEN, name="renamed")
    assert (second.version.number, second.scenario.name, second.scenario.description) == (2, "renamed", "two nodes")
    assert not second.check.valid
    assert scenarios.latest_version(saved.scenario) == second.version
    assert scenarios.get_version(saved.scenario, 1).text == saved.version.text
    with pytest.raises(NotFound):
        scenarios.get_version(saved.scenario, 3)


def test_text_over_the_byte_limit_is_refused_before_anything_is_saved(settings, saved):
    settings.SCHEDLAB_MAX_BYTES = 10
    with pytest.raises(LimitExceeded):
        scenarios.save(saved.scenario, "x" * 11)
    assert saved.scenario.versions.count() == 1


def test_a_derived_text_is_the_owners_next_version_and_a_visitors_fork(saved):
    own = scenarios.save_derived(OWNER, saved.version, BROKEN, "taints added")
    assert own.scenario.pk == saved.scenario.pk and own.version.number == 2
    theirs = scenarios.save_derived(VISITOR, saved.version, BROKEN, "taints added")
    assert theirs.scenario.name == "small (taints added)" and theirs.scenario.forked_from == saved.version
    assert VISITOR.owns(theirs.scenario)


def test_a_fork_copies_the_version_asked_for(saved):
    scenarios.save(saved.scenario, BROKEN)
    fork = scenarios.fork(VISITOR, saved.scenario, 1, None)
    assert (fork.scenario.name, fork.version.text, fork.version.number) == ("small (fork)", saved.version.text, 1)


def test_the_listing_shows_own_scenarios_and_demos_with_their_latest_version(saved):
    scenarios.save(saved.scenario, BROKEN)
    scenarios.create(VISITOR, "theirs", BROKEN)
    Scenario.objects.create(name="a demo", demo_slug="demo")
    assert sorted((s.name, s.version) for s in scenarios.listing(OWNER)) == [("a demo", None), ("small", 2)]
    assert [s.name for s in scenarios.listing(OWNER, "SMA")] == ["small"]


def test_the_diff_is_unified_between_version_numbers(saved):
    second = scenarios.save(saved.scenario, saved.version.text + "# more\n").version
    diff = scenarios.diff(saved.version, second)
    assert diff.startswith("--- v1\n+++ v2\n") and "+# more\n" in diff


def _nodes(count: int) -> str:
    return "".join(
        f"---\nkind: Node\nmetadata:\n  name: node-{i}\n  labels: {{zone: z{i % 5}}}\n" for i in range(count)
    )


def test_a_big_version_s_diff_compares_only_the_pieces_that_differ_and_numbers_lines_as_the_whole_diff():
    """One node changed in a dump of many pieces: the shared pieces at either end are skipped, yet
    the diff (hunks, line numbers, context) is the whole texts' unified diff."""
    text = _nodes(8000)
    first = scenarios.create(OWNER, "big", text, check_later=True).version
    edited = text.replace("name: node-5000\n", "name: node-5000-b\n").replace("name: node-5001\n", "")
    second = ScenarioVersion.saved(first.scenario, 2, edited)
    assert len(second.piece_digests()) > 5
    whole = "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True), edited.splitlines(keepends=True), fromfile="v1", tofile="v2"
        )
    )
    assert scenarios.diff(first, second) == whole and "@@ -2" in whole


def test_a_diff_of_more_text_than_the_server_compares_is_refused_in_the_user_s_words(settings):
    settings.SCHEDLAB_MAX_DIFF_BYTES = 100_000
    first = scenarios.create(OWNER, "big", _nodes(8000), check_later=True).version
    second = ScenarioVersion.saved(first.scenario, 2, _nodes(8000).replace("zone: z", "zone: y"))
    with pytest.raises(LimitExceeded) as refused:
        scenarios.diff(first, second)
    assert "versions 1 and 2 differ across" in str(refused.value) and "SCHEDLAB_MAX_DIFF_BYTES=" in str(refused.value)
    assert scenarios.diff(first, first) == ""  # the same pieces: nothing compared


def test_the_blank_template_loads():
    assert scenarios.blank_template().count("kind: Node") == 2


def test_a_save_based_on_a_version_is_refused_once_another_came_after_it(saved):
    from webui.services.errors import Conflict

    edited = scenarios.save(saved.scenario, BROKEN, based_on=1, check_later=True)
    assert (edited.version.number, edited.check) == (2, None)
    with pytest.raises(Conflict, match="version 1 is not the latest any more"):
        scenarios.save(saved.scenario, BROKEN + "# again\n", based_on=1)
    assert scenarios.latest_version(saved.scenario).number == 2
