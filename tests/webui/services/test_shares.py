"""webui/services/shares.py: share links point at one version (a run's own version when a run is
shared), only readable runs can be shared or compared, and only the owner revokes."""

import pytest

from tests.webui import support
from webui.models import Run, Upgrade
from webui.services import scenarios, shares
from webui.services.access import Actor
from webui.services.errors import DomainError, Forbidden, NotFound

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")
STRANGER = Actor(session_key="stranger-session")


@pytest.fixture
def saved():
    return scenarios.create(OWNER, "small", support.scenario_text(nodes=2, pending=1))


def _run(version, actor: Actor = OWNER) -> Run:
    return Run.objects.create(version=version, cycles=1, **actor.owner_fields())


def test_a_link_to_a_run_shows_the_version_it_ran(saved):
    first = saved.version
    run = _run(first)
    scenarios.save(saved.scenario, support.scenario_text(nodes=3, pending=1))
    link = shares.create(OWNER, saved.scenario, version=None, run_id=run.pk, step="cycle-1")
    assert (link.version_id, link.run_id, link.step) == (first.pk, run.pk, "cycle-1")
    plain = shares.create(OWNER, saved.scenario, version=None, run_id=None, step="")
    assert plain.version.number == 2 and plain.run is None
    assert list(shares.listing(saved.scenario)) == [plain, link]


def test_runs_of_other_scenarios_or_missing_ones_cannot_be_shared(saved):
    other = scenarios.create(OWNER, "other", support.scenario_text(nodes=1, pending=1))
    with pytest.raises(NotFound):
        shares.create(OWNER, saved.scenario, None, _run(other.version).pk, "")
    with pytest.raises(NotFound):
        shares.create(OWNER, saved.scenario, None, 999_999, "")


def test_a_comparison_needs_both_runs_and_a_readable_second(saved):
    run = _run(saved.version)
    with pytest.raises(DomainError, match="needs both runs"):
        shares.create(OWNER, saved.scenario, None, None, "", compare_run_id=run.pk)
    strangers = scenarios.create(STRANGER, "theirs", support.scenario_text(nodes=1, pending=1))
    with pytest.raises(NotFound):
        shares.create(OWNER, saved.scenario, None, run.pk, "", compare_run_id=_run(strangers.version, STRANGER).pk)
    mine_elsewhere = scenarios.create(OWNER, "mine", support.scenario_text(nodes=1, pending=1))
    link = shares.create(OWNER, saved.scenario, None, run.pk, "", compare_run_id=_run(mine_elsewhere.version).pk)
    assert link.compare_run.version.scenario == mine_elsewhere.scenario


def test_only_the_owner_revokes_and_revoking_twice_keeps_the_first_time(saved):
    link = shares.create(OWNER, saved.scenario, None, None, "")
    with pytest.raises(Forbidden):
        shares.revoke(STRANGER, link.token)
    with pytest.raises(NotFound):
        shares.revoke(OWNER, "no-such-token")
    revoked = shares.revoke(OWNER, link.token)
    assert revoked.revoked_at is not None
    assert shares.revoke(OWNER, link.token).revoked_at == revoked.revoked_at


def test_a_fork_is_the_visitors_own_copy(saved):
    link = shares.create(OWNER, saved.scenario, None, None, "")
    fork = shares.fork(STRANGER, link, None)
    assert fork.scenario.name == "small (fork)" and fork.version.text == saved.version.text
    assert STRANGER.owns(fork.scenario) and fork.scenario.forked_from_id == saved.version.pk
    assert shares.fork(STRANGER, link, "mine").scenario.name == "mine"


def test_a_link_to_an_upgrade_comparison_is_to_one_of_the_owner_s_of_this_scenario(saved):
    upgrade = Upgrade.objects.create(
        version=saved.version, old_release="v1.35", new_release="v1.36", **OWNER.owner_fields()
    )
    link = shares.create(OWNER, saved.scenario, None, None, "", upgrade_id=upgrade.pk)
    assert (link.upgrade_id, link.version_id, link.run_id) == (upgrade.pk, saved.version.pk, None)
    other = scenarios.create(OWNER, "other", support.scenario_text(nodes=1, pending=1))
    with pytest.raises(NotFound):
        shares.create(OWNER, other.scenario, None, None, "", upgrade_id=upgrade.pk)
    theirs = Upgrade.objects.create(
        version=saved.version, old_release="v1.35", new_release="v1.36", **STRANGER.owner_fields()
    )
    with pytest.raises(NotFound):
        shares.create(OWNER, saved.scenario, None, None, "", upgrade_id=theirs.pk)
