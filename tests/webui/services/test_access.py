"""webui.services.access: who is asking (one Actor builder for the API, the pages and the websockets)
and client_address, what the per-address queue limit counts by."""

from ipaddress import ip_network

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory

from webui.models import Run, Scenario, ScenarioVersion, ShareLink
from webui.services import access
from webui.services.errors import NotFound, ReadOnlyShare

PROXY = "10.0.0.5"


@pytest.mark.parametrize(
    "remote, forwarded, trusted, expected",
    [
        pytest.param("203.0.113.7", "", [], "203.0.113.7", id="the peer address without a proxy"),
        pytest.param(
            "203.0.113.7", "198.51.100.1", [], "203.0.113.7", id="X-Forwarded-For is ignored when no proxy is trusted"
        ),
        pytest.param(
            PROXY, "198.51.100.1", [PROXY], "198.51.100.1", id="a trusted proxy's forwarded client is believed"
        ),
        pytest.param(
            PROXY,
            "1.2.3.4, 198.51.100.1",
            [PROXY],
            "198.51.100.1",
            id="only the entry the trusted proxy appended counts, not what the client wrote before it",
        ),
        pytest.param(
            PROXY,
            "198.51.100.1, 10.0.0.9",
            ["10.0.0.0/24"],
            "198.51.100.1",
            id="a chain of trusted proxies is walked from the right",
        ),
        pytest.param(PROXY, "10.0.0.8, 10.0.0.9", ["10.0.0.0/24"], "10.0.0.8", id="all trusted: the leftmost entry"),
        pytest.param(PROXY, "198.51.100.1, garbage", [PROXY], PROXY, id="a malformed entry ends the walk at the proxy"),
        pytest.param("203.0.113.7", "198.51.100.1", [PROXY], "203.0.113.7", id="an untrusted peer's header is ignored"),
        pytest.param("2001:db8:1:2:3:4:5:6", "", [], "2001:db8:1:2::/64", id="an IPv6 client counts by its /64"),
        pytest.param("::ffff:192.0.2.1", "", [], "192.0.2.1", id="an IPv4-mapped IPv6 peer counts as its IPv4 address"),
        pytest.param("not-an-address", "", [], "", id="an unknown peer is no address"),
    ],
)
def test_it_finds_the_client_address(settings, remote, forwarded, trusted, expected):
    settings.SCHEDLAB_TRUSTED_PROXIES = tuple(ip_network(t) for t in trusted)
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR=remote, **headers)
    assert access.client_address(request) == expected


def _request(method: str, path: str = "/", user=None, **headers) -> object:
    request = getattr(RequestFactory(), method)(path, REMOTE_ADDR="203.0.113.7", **headers)
    request.user = user or AnonymousUser()
    request.session = SessionStore()
    return request


def _share_link() -> ShareLink:
    scenario = Scenario.objects.create(name="s", owner_session_key="owner")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text="")
    return ShareLink.objects.create(version=version)


@pytest.mark.django_db
def test_an_anonymous_read_makes_no_session_and_a_write_makes_one():
    reading = _request("get")
    assert access.request_actor(reading) == access.Actor(session_key="", address="203.0.113.7")
    assert reading.session.session_key is None
    writing = _request("post")
    actor = access.request_actor(writing)
    assert actor.session_key and actor.session_key == writing.session.session_key and actor.user_id is None


@pytest.mark.django_db
def test_a_signed_in_user_is_their_user_id_without_a_session():
    user = User.objects.create_user("ada")
    actor = access.request_actor(_request("post", user=user))
    assert (actor.user_id, actor.session_key) == (user.pk, "")


@pytest.mark.django_db
def test_a_share_token_reads_from_the_header_or_the_query_and_never_writes():
    link = _share_link()
    assert access.request_actor(_request("get", HTTP_X_SHARE_TOKEN=link.token)).share == link
    assert access.request_actor(_request("get", f"/?token={link.token}")).share == link
    with pytest.raises(ReadOnlyShare):
        access.request_actor(_request("delete", HTTP_X_SHARE_TOKEN=link.token))
    with pytest.raises(NotFound):
        access.request_actor(_request("get", HTTP_X_SHARE_TOKEN="no-such-token"))


@pytest.mark.django_db
def test_a_websocket_watcher_is_the_scope_s_user_and_session_and_its_token():
    link = _share_link()
    session = SessionStore()
    session["anonymous_owner"] = True
    session.save()
    actor = access.websocket_actor({"user": AnonymousUser(), "session": session}, link.token)
    assert actor == access.Actor(session_key=session.session_key, share=link)
    assert access.websocket_actor({}) == access.Actor()


@pytest.mark.django_db
def test_single_user_mode_makes_every_actor_the_one_person_here(settings):
    settings.SCHEDLAB_SINGLE_USER = True
    assert access.request_actor(_request("get")).single_user is True
    settings.SCHEDLAB_SINGLE_USER = False
    assert access.request_actor(_request("get")).single_user is False


@pytest.mark.django_db
def test_in_single_user_mode_everything_anyone_made_is_owned_but_the_demos_stay_no_one_s():
    user = User.objects.create_user("ada")
    anonymous = Scenario.objects.create(name="a visitor's", owner_session_key="someone")
    users = Scenario.objects.create(name="ada's", owner=user)
    demo = Scenario.objects.create(name="demo", demo_slug="demo")
    here = access.Actor(session_key="me", single_user=True)
    assert [here.owns(s) for s in (anonymous, users, demo)] == [True, True, False]
    assert set(Scenario.objects.filter(here.owned_q())) == {anonymous, users}
    apart = access.Actor(session_key="me")
    assert [apart.owns(s) for s in (anonymous, users, demo)] == [False, False, False]
    assert not Scenario.objects.filter(apart.owned_q()).exists()


@pytest.mark.django_db
def test_what_an_actor_started_is_its_own_even_in_single_user_mode():
    """The per-owner queue limits count started_q: single-user mode shows more, it does not count more."""
    mine = Scenario.objects.create(name="mine", owner_session_key="me")
    Scenario.objects.create(name="theirs", owner_session_key="someone")
    for single_user in (True, False):
        actor = access.Actor(session_key="me", single_user=single_user)
        assert list(Scenario.objects.filter(actor.started_q())) == [mine]
    assert not Scenario.objects.filter(access.Actor(single_user=True).started_q()).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("command", ["measure_run", "measure_capacity"])
def test_in_single_user_mode_what_a_measurement_command_made_is_no_one_s(command):
    """The measurement commands own their rows by a session key of their own: not the person's work."""
    measured = Scenario.objects.create(name="measure big.yaml", owner_session_key=command)
    made = Scenario.objects.create(name="made here", owner_session_key="someone")
    here = access.Actor(session_key="me", single_user=True)
    assert [here.owns(s) for s in (measured, made)] == [False, True]
    assert list(Scenario.objects.filter(here.owned_q())) == [made]
    run = Run.objects.create(
        version=ScenarioVersion.objects.create(scenario=measured, number=1), **{"owner_session_key": command}
    )
    assert not Run.objects.filter(here.owned_q()).exists() and not here.owns(run)
    assert Scenario.objects.filter(access.Actor(session_key=command).owned_q()).get() == measured
