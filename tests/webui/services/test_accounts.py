"""webui.services.accounts: signing up, in and out with Django's auth, the anonymous session's rows
claimed on sign-in in one transaction, and the per-address limit on tries."""

import pytest
from django.apps import apps
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory, TestCase

from webui.models import (
    CapacityQuestion,
    CapacityTrial,
    FleetCheck,
    Owned,
    Run,
    RunSegment,
    RunStatus,
    Scenario,
    ScenarioVersion,
    ShareLink,
    Upgrade,
    Upload,
)
from webui.services import accounts, capacity, scenarios, upgrades, uploads
from webui.services.access import Actor
from webui.services.errors import AccountInvalid, LimitExceeded, NotSignedIn, SignInFailed, SingleUserMode
from webui.tasks import execute_run

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


def _signed_in(name: str = "ada", address: str = "203.0.113.7") -> tuple[object, User]:
    """A request of ``name``'s, signed in as the pages and the API find it."""
    request = _request(address)
    user = accounts.sign_up(request, name, GOOD_PASSWORD).user
    return request, user


NEW_PASSWORD = "a new horse staple"


def test_changing_the_password_keeps_this_session_signed_in():
    request, user = _signed_in()
    accounts.change_password(request, GOOD_PASSWORD, NEW_PASSWORD)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD) and not user.check_password(GOOD_PASSWORD)
    assert request.session[HASH_SESSION_KEY] == user.get_session_auth_hash(), "this session follows the password"
    assert get_user(request) == user


@pytest.mark.parametrize(
    "current, new, field, problem",
    [
        pytest.param("not it at all", NEW_PASSWORD, "currentPassword", "That is not your password", id="wrong current"),
        pytest.param(GOOD_PASSWORD, "short", "newPassword", "too short", id="a short new one"),
        pytest.param(GOOD_PASSWORD, "73920561848", "newPassword", "entirely numeric", id="all digits"),
    ],
)
def test_a_refused_password_change_names_the_field_and_keeps_the_password(current, new, field, problem):
    request, user = _signed_in()
    with pytest.raises(AccountInvalid) as refused:
        accounts.change_password(request, current, new)
    assert refused.value.field == field and problem in refused.value.message
    user.refresh_from_db()
    assert user.check_password(GOOD_PASSWORD)


def test_wrong_current_passwords_count_as_sign_in_tries(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 3
    request, user = _signed_in()  # the sign-up is the first try
    for _ in range(2):
        with pytest.raises(AccountInvalid):
            accounts.change_password(request, "not it at all", NEW_PASSWORD)
    with pytest.raises(LimitExceeded) as limited:
        accounts.change_password(request, GOOD_PASSWORD, NEW_PASSWORD)
    assert limited.value.status == 429 and limited.value.details["limit"] == "max_sign_in_tries"
    with pytest.raises(LimitExceeded):
        accounts.delete_account(request, GOOD_PASSWORD)
    assert User.objects.filter(pk=user.pk).exists()


def test_only_a_signed_in_person_changes_a_password_or_deletes_an_account():
    with pytest.raises(NotSignedIn):
        accounts.change_password(_request(), GOOD_PASSWORD, NEW_PASSWORD)
    with pytest.raises(NotSignedIn):
        accounts.delete_account(_request(), GOOD_PASSWORD)
    with pytest.raises(NotSignedIn):
        accounts.holdings(_request())


def test_single_user_mode_changes_a_password_but_deletes_no_account(settings):
    settings.SCHEDLAB_SINGLE_USER = True
    request, user = _signed_in()
    accounts.change_password(request, GOOD_PASSWORD, NEW_PASSWORD)
    with pytest.raises(SingleUserMode):
        accounts.delete_account(request, NEW_PASSWORD)
    assert User.objects.filter(pk=user.pk).exists() and get_user(request) == user


def _everything_of_user(user: User) -> dict[str, object]:
    """A scenario of ``user``'s with two versions, a run with a segment, a question with a trial, an
    upgrade in a fleet check, share links of the run and of the upgrade; a run of a demo and a share
    link of the demo's version."""
    made = _everything_of(_anonymous_session())
    accounts.claim(made["scenario"].owner_session_key, user)
    version = ScenarioVersion.objects.create(scenario=made["scenario"], number=2, text=scenarios.blank_template())
    RunSegment.objects.create(run=made["run"], cycle=0, first_seq=0, end_seq=1, blob=b"x")
    CapacityTrial.objects.create(question=made["question"], round=0, index=0, label="one more", changes=b"")
    ShareLink.objects.create(version=made["upgrade"].version, upgrade=made["upgrade"], created_by=user)
    demo, _ = Scenario.objects.get_or_create(demo_slug="a-demo", defaults={"name": "demo"})
    demo_version, _ = ScenarioVersion.objects.get_or_create(scenario=demo, number=1)
    demo_run = Run.objects.create(version=demo_version, owner=user)
    demo_link = ShareLink.objects.create(version=demo_version, created_by=user)
    return {**made, "version": version, "demo": demo, "demo_run": demo_run, "demo_link": demo_link}


def test_holdings_count_what_deleting_the_account_would_delete():
    request, user = _signed_in()
    _everything_of_user(user)
    _everything_of_user(User.objects.create_user("bob"))  # another account's: not counted
    expected = accounts.Holdings(
        scenarios=1, versions=2, runs=2, questions=1, upgrades=1, fleet_checks=1, share_links=3
    )
    assert accounts.holdings(request) == expected


def test_deleting_the_account_deletes_everything_it_holds_and_signs_out():
    request, user = _signed_in()
    made = _everything_of_user(user)
    others = _everything_of_user(User.objects.create_user("bob"))
    deleted = accounts.delete_account(request, GOOD_PASSWORD)
    assert deleted == accounts.Holdings(
        scenarios=1, versions=2, runs=2, questions=1, upgrades=1, fleet_checks=1, share_links=3
    )
    assert not User.objects.filter(pk=user.pk).exists() and not request.user.is_authenticated
    for name in ("scenario", "run", "fleet", "upgrade", "question", "link", "version", "demo_run", "demo_link"):
        assert not type(made[name]).objects.filter(pk=made[name].pk).exists(), name
    assert not RunSegment.objects.filter(run_id=made["run"].pk).exists()
    assert not CapacityTrial.objects.filter(question_id=made["question"].pk).exists()
    assert Scenario.objects.filter(pk=made["demo"].pk).exists(), "the demo is no one's: it stays"
    for name in ("scenario", "run", "fleet", "upgrade", "question", "link", "demo_run", "demo_link"):
        assert type(others[name]).objects.filter(pk=others[name].pk).exists(), f"bob's {name}"


def test_a_wrong_password_deletes_nothing():
    request, user = _signed_in()
    made = _everything_of_user(user)
    with pytest.raises(AccountInvalid) as refused:
        accounts.delete_account(request, "not it at all")
    assert refused.value.field == "password"
    assert User.objects.filter(pk=user.pk).exists() and Scenario.objects.filter(pk=made["scenario"].pk).exists()
    assert get_user(request) == user


def test_their_queued_and_running_work_is_cancelled_before_anything_is_deleted(monkeypatch):
    request, user = _signed_in()
    made = _everything_of_user(user)
    Run.objects.filter(pk=made["run"].pk).update(status=RunStatus.RUNNING, claimed_by="w1")
    CapacityQuestion.objects.filter(pk=made["question"].pk).update(status=RunStatus.RUNNING)
    CapacityTrial.objects.filter(question=made["question"]).update(task_id="trial-task")
    Upgrade.objects.filter(pk=made["upgrade"].pk).update(task_id="upgrade-task")
    revoked: list[list[str]] = []
    monkeypatch.setattr(capacity, "_revoke", revoked.append)
    monkeypatch.setattr(upgrades, "_revoke", revoked.append)
    seen: dict[str, str] = {}
    real_delete = User.delete

    def delete_seeing(self, *args, **kwargs):
        seen["run"] = Run.objects.get(pk=made["run"].pk).status
        seen["question"] = CapacityQuestion.objects.get(pk=made["question"].pk).status
        seen["upgrade"] = Upgrade.objects.get(pk=made["upgrade"].pk).status
        return real_delete(self, *args, **kwargs)

    monkeypatch.setattr(User, "delete", delete_seeing)
    accounts.delete_account(request, GOOD_PASSWORD)
    assert seen == {"run": "cancelled", "question": "cancelled", "upgrade": "cancelled"}
    assert revoked == [["trial-task"], ["upgrade-task"]]


def test_a_worker_that_gets_a_deleted_account_s_task_skips_it_quietly(caplog):
    request, user = _signed_in()
    made = _everything_of_user(user)
    trial = CapacityTrial.objects.get(question=made["question"])
    accounts.delete_account(request, GOOD_PASSWORD)
    assert execute_run.apply(args=(made["run"].pk,)).get().startswith("not claimed")
    assert capacity.run_one_trial(trial.pk).startswith("skipped")
    capacity.advance(made["question"].pk)
    assert upgrades.execute(made["upgrade"].pk, "w1").startswith("not claimed")
    assert [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []


def test_a_reset_request_counts_as_a_try_of_its_address(settings):
    settings.SCHEDLAB_MAX_SIGN_IN_TRIES = 2
    for _ in range(2):
        accounts.count_reset_request(_request())
    with pytest.raises(LimitExceeded):
        accounts.count_reset_request(_request())
    with pytest.raises(LimitExceeded):
        accounts.sign_in(_request(), "ada", GOOD_PASSWORD)
    accounts.count_reset_request(_request(address="198.51.100.1"))


def test_a_sign_up_may_give_an_e_mail_address_for_resetting_the_password():
    assert accounts.sign_up(_request(), "ada", GOOD_PASSWORD, " ada@Example.COM ").user.email == "ada@example.com"
    assert accounts.sign_up(_request(), "bob", GOOD_PASSWORD).user.email == ""
    with pytest.raises(AccountInvalid) as refused:
        accounts.sign_up(_request(), "carol", GOOD_PASSWORD, "not an address")
    assert refused.value.field == "email" and "Enter a valid email address." in refused.value.message
    assert not User.objects.filter(username="carol").exists()


def test_deleting_the_account_removes_its_uploads_files_kept_as_uploaded(settings, tmp_path, monkeypatch):
    settings.SCHEDLAB_UPLOAD_DIR = str(tmp_path / "uploads")
    monkeypatch.setattr(uploads, "_send", lambda upload_id: None)
    request, user = _signed_in()
    source = tmp_path / "dump.json"
    source.write_bytes(b"{}")
    kept = uploads.Received("dump.json", 2, lambda path: (path.parent.mkdir(parents=True), path.hardlink_to(source)))
    upload = uploads.receive(Actor(user_id=user.pk), "", [kept])
    assert uploads.upload_dir(upload.pk).exists()
    with TestCase.captureOnCommitCallbacks(execute=True):
        accounts.delete_account(request, GOOD_PASSWORD)
    assert not Upload.objects.filter(pk=upload.pk).exists() and not uploads.upload_dir(upload.pk).exists()
    assert uploads.read(upload.pk, "w1") == f"upload {upload.pk}: not queued (finished, or read elsewhere)"
