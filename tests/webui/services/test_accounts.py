"""webui.services.accounts: signing up, in and out with Django's auth, the anonymous session's rows
claimed on sign-in in one transaction, and the per-address limit on tries."""

import pytest
from django.apps import apps
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory

from webui.models import CapacityQuestion, FleetCheck, Owned, Run, Scenario, ScenarioVersion, ShareLink, Upgrade
from webui.services import accounts, scenarios
from webui.services.access import Actor
from webui.services.errors import AccountInvalid, LimitExceeded, SignInFailed

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "correct horse battery"


def _request(address: str = "203.0.113.7", session_key: str | None = None) -> object:
    """A POST as the middleware hands it to a view: an anonymous user and a session (``session_key``'s)."""
    request = RequestFactory().post("/", REMOTE_ADDR=address)
    request.user = AnonymousUser()
    request.session = SessionStore(session_key)
    return request


def _anonymous_session() -> str:
    session = SessionStore()
    session["anonymous_owner"] = True
    session.save()
    return session.session_key


def _everything_of(session_key: str) -> dict[str, object]:
    """A scenario with a run, a capacity question, an upgrade in a fleet check and a share link of the
    run, all made anonymously by ``session_key``."""
    owner = {"owner_session_key": session_key}
    scenario = Scenario.objects.create(name="mine", **owner)
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=scenarios.blank_template())
    run = Run.objects.create(version=version, **owner)
    fleet = FleetCheck.objects.create(target="v1.36", **owner)
    upgrade = Upgrade.objects.create(version=version, fleet=fleet, old_release="v1.35", new_release="v1.36", **owner)
    question = CapacityQuestion.objects.create(version=version, kind="fit", **owner)
    link = ShareLink.objects.create(version=version, run=run)
    return {"scenario": scenario, "run": run, "fleet": fleet, "upgrade": upgrade, "question": question, "link": link}


def test_it_signs_up_with_a_good_name_and_password_and_signs_in():
    request = _request()
    signed_in = accounts.sign_up(request, "  ada ", GOOD_PASSWORD)
    user = User.objects.get(username="ada")
    assert signed_in.user == user and user.check_password(GOOD_PASSWORD)
    assert request.user == user and request.session[SESSION_KEY] == str(user.pk)


@pytest.mark.parametrize(
    "username, password, field, problem",
    [
        pytest.param("ada", "short", "password", "too short", id="a short password is refused naming the password"),
        pytest.param("ada", "password123", "password", "too common", id="a common password is refused"),
        pytest.param("ada", "73920561848", "password", "entirely numeric", id="an all-digit password is refused"),
        pytest.param("ada lovelace", GOOD_PASSWORD, "username", "Enter a valid username", id="a name with a space"),
        pytest.param("", GOOD_PASSWORD, "username", "choose a name", id="no name at all"),
    ],
)
def test_it_refuses_a_sign_up_naming_the_field_and_the_problem(username, password, field, problem):
    with pytest.raises(AccountInvalid) as refused:
        accounts.sign_up(_request(), username, password)
    assert refused.value.field == field and refused.value.details["field"] == field
    assert problem in refused.value.message and refused.value.message.startswith(f"{field}: ")
    assert not User.objects.exists()


def test_it_refuses_a_name_already_taken_whatever_its_case():
    User.objects.create_user("Ada", password=GOOD_PASSWORD)
    with pytest.raises(AccountInvalid) as refused:
        accounts.sign_up(_request(), "ada", GOOD_PASSWORD)
    assert refused.value.field == "username" and "'ada' is taken" in refused.value.message
    assert User.objects.count() == 1


def test_a_name_taken_at_the_same_moment_is_refused_by_the_database_not_a_500(monkeypatch):
    """Two sign-ups of one name at once both pass the name check; the unique username keeps one."""
    User.objects.create_user("ada")
    monkeypatch.setattr(User.objects, "filter", lambda **kwargs: User.objects.none())  # the check saw no "ada"
    with pytest.raises(AccountInvalid) as refused:
        accounts.sign_up(_request(), "ada", GOOD_PASSWORD)
    assert refused.value.field == "username" and "'ada' is taken" in refused.value.message


def test_every_owned_model_is_claimed():
    owned = {model for model in apps.get_models() if issubclass(model, Owned)}
    assert set(accounts.OWNED_MODELS.values()) == owned


def test_it_signs_in_with_the_right_password_and_refuses_a_wrong_one_without_saying_which_was_wrong():
    user = User.objects.create_user("ada", password=GOOD_PASSWORD)
    with pytest.raises(SignInFailed) as failed:
        accounts.sign_in(_request(), "ada", "wrong password")
    assert (failed.value.status, failed.value.message) == (401, "that name and password do not match an account")
    with pytest.raises(SignInFailed):
        accounts.sign_in(_request(), "nobody", GOOD_PASSWORD)
    request = _request()
    assert accounts.sign_in(request, "ada", GOOD_PASSWORD).user == user and request.user == user


def test_signing_in_makes_everything_the_anonymous_session_made_the_user_s():
    key = _anonymous_session()
    made = _everything_of(key)
    demo = Scenario.objects.create(name="demo", demo_slug="a-demo")
    other = _everything_of(_anonymous_session())["scenario"]
    user = User.objects.create_user("ada", password=GOOD_PASSWORD)
    request = _request(session_key=key)
    claimed = accounts.sign_in(request, "ada", GOOD_PASSWORD).claimed
    assert claimed == accounts.Claimed(scenarios=1, runs=1, questions=1, fleet_checks=1, upgrades=1, share_links=1)
    for name in ("scenario", "run", "fleet", "upgrade", "question"):
        row = type(made[name]).objects.get(pk=made[name].pk)
        assert (row.owner_id, row.owner_session_key) == (user.pk, ""), name
    assert ShareLink.objects.get(pk=made["link"].pk).created_by == user
    demo.refresh_from_db()
    assert (demo.owner_id, demo.owner_session_key) == (None, ""), "a demo stays no one's"
    assert Scenario.objects.get(pk=other.pk).owner_id is None, "another session's scenario is not claimed"
    assert request.session.session_key != key, "Django's login gives the session a new key"


def test_signing_up_claims_the_session_too():
    key = _anonymous_session()
    scenario = _everything_of(key)["scenario"]
    signed_in = accounts.sign_up(_request(session_key=key), "ada", GOOD_PASSWORD)
    assert signed_in.claimed.scenarios == 1
    assert Scenario.objects.get(pk=scenario.pk).owner == signed_in.user


def test_a_signed_in_user_who_signs_in_again_claims_nothing():
    key = _anonymous_session()
    _everything_of(key)
    request = _request(session_key=key)
    accounts.sign_up(request, "ada", GOOD_PASSWORD)
    User.objects.create_user("bob", password=GOOD_PASSWORD)
    assert accounts.sign_in(request, "bob", GOOD_PASSWORD).claimed == accounts.Claimed()
    assert not Scenario.objects.filter(owner__username="bob").exists()


def test_a_claim_is_one_transaction(monkeypatch):
    key = _anonymous_session()
    made = _everything_of(key)
    user = User.objects.create_user("ada")

    def broken(user):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(accounts, "_claim_share_links", broken)
    with pytest.raises(RuntimeError):
        accounts.claim(key, user)
    assert Scenario.objects.get(pk=made["scenario"].pk).owner_session_key == key, "nothing half-claimed"


def test_signing_out_leaves_the_rows_with_the_person_and_starts_an_empty_session():
    key = _anonymous_session()
    scenario = _everything_of(key)["scenario"]
    request = _request(session_key=key)
    user = accounts.sign_up(request, "ada", GOOD_PASSWORD).user
    accounts.sign_out(request)
    assert not request.user.is_authenticated and SESSION_KEY not in request.session
    assert Scenario.objects.get(pk=scenario.pk).owner == user
    anonymous = Actor(session_key=request.session.session_key or "")
    assert not Scenario.objects.filter(anonymous.owned_q()).exists()


def test_too_many_tries_from_one_address_are_refused_with_429(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 3
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    for _ in range(3):
        with pytest.raises(SignInFailed):
            accounts.sign_in(_request(), "ada", "wrong password")
    with pytest.raises(LimitExceeded) as limited:
        accounts.sign_in(_request(), "ada", GOOD_PASSWORD)
    assert (limited.value.status, limited.value.details) == (429, {"limit": "max_sign_in_tries", "max": 3})
    assert limited.value.retry_after == settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS
    with pytest.raises(LimitExceeded):
        accounts.sign_up(_request(), "bob", GOOD_PASSWORD)
    assert accounts.sign_in(_request(address="198.51.100.1"), "ada", GOOD_PASSWORD).user.get_username() == "ada"


def test_a_good_sign_in_is_not_counted_but_every_sign_up_is(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 2
    User.objects.create_user("ada", password=GOOD_PASSWORD)
    for _ in range(3):
        accounts.sign_in(_request(), "ada", GOOD_PASSWORD)
    accounts.sign_up(_request(), "bob", GOOD_PASSWORD)
    with pytest.raises(AccountInvalid):
        accounts.sign_up(_request(), "carol", "short")
    with pytest.raises(LimitExceeded):
        accounts.sign_up(_request(), "dave", GOOD_PASSWORD)
