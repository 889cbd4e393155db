"""Who is asking, and what they may see or change.

An actor is a Django user, or an anonymous visitor identified by their session, optionally holding a
share token. A share token only ever grants reads. In single-user mode (settings.SCHEDLAB_SINGLE_USER,
the embedded default) every actor is the one person on this machine: whatever anyone made here (every
row with an owner: not the demos, nor what the measurement commands made, models.MEASUREMENT_OWNERS) is
theirs to read and change. What they make is still written with their own user or session, and the
per-owner queue limits still count by it (``started_q``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.base import SessionBase
from django.db.models import Q
from django.http import HttpRequest

from webui.models import MEASUREMENT_OWNERS, Owned, Run, Scenario, ShareLink
from webui.services.errors import Forbidden, NotFound, ReadOnlyShare

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
SHARE_HEADER = "X-Share-Token"
SHARE_QUERY = "token"
FORWARDED_FOR_HEADER = "X-Forwarded-For"
# One IPv6 subscriber usually holds a whole /64: counting its addresses apart would not limit it.
IPV6_CLIENT_PREFIX = 64


@dataclass(frozen=True)
class Actor:
    user_id: int | None = None
    session_key: str = ""
    share: ShareLink | None = None
    address: str = ""  # client_address(): what the per-address limits count by
    single_user: bool = False  # settings.SCHEDLAB_SINGLE_USER: everything owned on this machine is theirs

    def owns(self, obj: Owned) -> bool:
        """May act as its owner: started it, or (single-user mode) anyone here did (a demo is no one's,
        a measurement's is the command's)."""
        if self.single_user and (obj.owner_id is not None or obj.owner_session_key):
            return obj.owner_session_key not in MEASUREMENT_OWNERS
        if obj.owner_id is not None:
            return obj.owner_id == self.user_id
        return bool(self.session_key) and obj.owner_session_key == self.session_key

    def owner_fields(self) -> dict[str, int | str | None]:
        if self.user_id is not None:
            return {"owner_id": self.user_id, "owner_session_key": ""}
        return {"owner_id": None, "owner_session_key": self.session_key}

    def owned_q(self, prefix: str = "") -> Q:
        """The rows ``owns`` is true of: what the actor lists and may change."""
        if self.single_user:
            return ~Q(**{f"{prefix}owner_id": None, f"{prefix}owner_session_key": ""}) & ~Q(
                **{f"{prefix}owner_session_key__in": MEASUREMENT_OWNERS}
            )
        return self.started_q(prefix)

    def started_q(self, prefix: str = "") -> Q:
        """The rows this user or session made itself, even in single-user mode: what per-owner limits count."""
        if self.user_id is not None:
            return Q(**{f"{prefix}owner_id": self.user_id})
        if not self.session_key:
            return Q(pk__in=[])
        return Q(**{f"{prefix}owner_id": None, f"{prefix}owner_session_key": self.session_key})


class ActorRequest(HttpRequest):
    """A request the API let in (its type for the routers): ``auth`` is who asks, the Actor webui/api.py's
    SessionActor made of it."""

    auth: Actor


def share_token(request: HttpRequest) -> str:
    return request.headers.get(SHARE_HEADER) or request.GET.get(SHARE_QUERY) or ""


def active_share(token: str) -> ShareLink:
    link = ShareLink.objects.select_related("version__scenario", "run", "upgrade").filter(token=token).first()
    if link is None or not link.is_active:
        raise NotFound("this share link does not exist or was revoked")
    return link


def request_actor(request: HttpRequest) -> Actor:
    """Who asks through HTTP: the API (webui/api.py, after its CSRF check on writes) and the pages."""
    return actor_for(
        request.user,
        request.session,
        token=share_token(request),
        writing=request.method not in SAFE_METHODS,
        address=client_address(request),
    )


def websocket_actor(scope: Mapping[str, Any], token: str = "") -> Actor:
    """Who watches over a websocket (channels' AuthMiddlewareStack put the user and session in the
    scope): a reader, so no session is created and no address is counted."""
    return actor_for(scope.get("user"), scope.get("session"), token=token, writing=False)


def actor_for(
    user: AbstractBaseUser | AnonymousUser | None,
    session: SessionBase | None,
    *,
    token: str,
    writing: bool,
    address: str = "",
) -> Actor:
    """The one place an Actor is made (request_actor and websocket_actor hand it their parts). A
    write with a share token is refused before anything is read: share links are read-only."""
    if token and writing:
        raise ReadOnlyShare()
    user_id = user.pk if user is not None and user.is_authenticated else None
    share = active_share(token) if token else None
    key = _session_key(session, create=writing and user_id is None)
    single_user = settings.SCHEDLAB_SINGLE_USER
    return Actor(user_id=user_id, session_key=key, share=share, address=address, single_user=single_user)


def _session_key(session: SessionBase | None, *, create: bool) -> str:
    """Anonymous owners are their session; a write creates it (and its cookie) if needed."""
    if session is None:
        return ""
    if create and not session.session_key:
        session["anonymous_owner"] = True  # non-empty, so the middleware sends the cookie
        session.save()
    return session.session_key or ""


def client_address(request: HttpRequest) -> str:
    """The client's address as limits count it ("" when unknown).

    X-Forwarded-For is believed only from SCHEDLAB_TRUSTED_PROXIES: walking it from the right, each
    entry was appended by the hop after it, so the first entry not from a trusted proxy is the
    client. Anyone can write the left part of the header; a malformed entry ends the walk.
    """
    peer = _parse_address(request.META.get("REMOTE_ADDR", ""))
    if peer is None:
        return ""
    if _is_trusted_proxy(peer):
        for hop in reversed(request.headers.get(FORWARDED_FOR_HEADER, "").split(",")):
            forwarded = _parse_address(hop)
            if forwarded is None:
                break
            peer = forwarded
            if not _is_trusted_proxy(forwarded):
                break
    return _limit_key(peer)


def _parse_address(text: str) -> IPv4Address | IPv6Address | None:
    try:
        address = ip_address(text.strip())
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _is_trusted_proxy(address: IPv4Address | IPv6Address) -> bool:
    return any(address in network for network in settings.SCHEDLAB_TRUSTED_PROXIES)


def _limit_key(address: IPv4Address | IPv6Address) -> str:
    if address.version == 6:
        return str(ip_network(f"{address}/{IPV6_CLIENT_PREFIX}", strict=False))
    return str(address)


def readable_scenario(actor: Actor, scenario_id: int) -> Scenario:
    scenario = Scenario.objects.filter(pk=scenario_id).first()
    if scenario is None or not can_read_scenario(actor, scenario):
        raise NotFound(f"scenario {scenario_id} not found")
    return scenario


def can_read_scenario(actor: Actor, scenario: Scenario) -> bool:
    if actor.share is not None:
        return actor.share.version.scenario_id == scenario.pk
    return scenario.is_demo or actor.owns(scenario)


def writable_scenario(actor: Actor, scenario_id: int) -> Scenario:
    scenario = readable_scenario(actor, scenario_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    if not actor.owns(scenario):
        message = (
            "demo scenarios are read-only; fork it to edit"
            if scenario.is_demo
            else "only the owner may change this scenario"
        )
        raise Forbidden(message)
    return scenario


def shareable_scenario(actor: Actor, scenario_id: int) -> Scenario:
    """Owners share their scenarios; anyone may share a demo (it is public; a link to a run of it
    must be to a run the actor may read, which shares.create checks). Never through a share link."""
    scenario = readable_scenario(actor, scenario_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    if not (scenario.is_demo or actor.owns(scenario)):
        raise Forbidden("only the owner may share this scenario")
    return scenario


def runnable_scenario(actor: Actor, scenario_id: int) -> Scenario:
    """Owners run their scenarios; anyone may run a demo (the run is theirs)."""
    scenario = readable_scenario(actor, scenario_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    if not (scenario.is_demo or actor.owns(scenario)):
        raise Forbidden("only the owner may run this scenario")
    return scenario


def readable_run(actor: Actor, run_id: int) -> Run:
    run = Run.objects.select_related("version__scenario").filter(pk=run_id).first()
    if run is None or not can_read_run(actor, run):
        raise NotFound(f"run {run_id} not found")
    return run


def derivable_run(actor: Actor, run_id: int) -> Run:
    """A run whose version the actor may build a new version from: their own scenario's, or a demo's
    (the new version goes to their fork). Never through a share link (read-only)."""
    run = readable_run(actor, run_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    return run


def can_read_run(actor: Actor, run: Run) -> bool:
    if actor.share is not None:
        share = actor.share
        if share.upgrade is not None:  # an upgrade comparison's link: the runs opened of its two sides
            return run.pk in (share.upgrade.old_run_id, share.upgrade.new_run_id)
        return (
            share.run_id == run.pk
            or share.compare_run_id == run.pk
            or (share.run_id is None and share.version_id == run.version_id)
        )
    scenario = run.version.scenario
    # Runs of a demo belong to whoever started them; runs of an owned scenario are the owner's too.
    return actor.owns(run) or (not scenario.is_demo and actor.owns(scenario))


def writable_run(actor: Actor, run_id: int) -> Run:
    run = readable_run(actor, run_id)
    if actor.share is not None:
        raise ReadOnlyShare()
    if not (actor.owns(run) or actor.owns(run.version.scenario)):
        raise Forbidden("only the owner may change this run")
    return run
