"""Accounts: sign up, sign in and sign out with Django's own auth (its User, its password validators,
its login and logout), for the API (webui/routers/session.py) and the pages (webui/accounts.py) alike.

Signing up or in makes everything the visitor's anonymous session owned theirs, in the same
transaction as the sign-in (``claim``): nothing made before signing in is lost. Signing out flushes
the session: what was made stays with the person, and the new anonymous session starts empty.

A signed-in person may change their password (the session stays signed in) and delete their account
with everything it holds (``holdings``); both ask for the password again, and a wrong one counts as a
sign-in try. Single-user mode shares everything made on the machine: no account holds anything of
its own there, so deleting one is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from webui.models import (
    CapacityQuestion,
    FleetCheck,
    Owned,
    Run,
    Scenario,
    ScenarioVersion,
    ShareLink,
    Upgrade,
    Upload,
    forget_unused_pieces,
    pieces_of,
)
from webui.services import access, capacity, runs, upgrades, uploads
from webui.services.errors import AccountInvalid, LimitExceeded, NotSignedIn, SignInFailed, SingleUserMode

# Every model owned by a user or a session (models.Owned), by its field in Claimed.
OWNED_MODELS: dict[str, type[Owned]] = {
    "scenarios": Scenario,
    "runs": Run,
    "questions": CapacityQuestion,
    "fleet_checks": FleetCheck,
    "upgrades": Upgrade,
    "uploads": Upload,  # a big upload being read: the scenario it becomes is saved as its owner's then
}
# The fields an AccountInvalid names: the API's JSON names (the pages map them to their forms' fields).
USERNAME = "username"
EMAIL = "email"
PASSWORD = "password"
CURRENT_PASSWORD = "currentPassword"
NEW_PASSWORD = "newPassword"
WRONG_PASSWORD = "That is not your password."
# The error of work cancelled because its account is being deleted (seen only if the delete then fails).
ACCOUNT_DELETED = "cancelled: its account was deleted"
TRIES_KEY = "schedlab:sign-in-tries:{address}"


@dataclass(frozen=True)
class Claimed:
    """How many rows of each kind a sign-in took over from the anonymous session."""

    scenarios: int = 0
    runs: int = 0
    questions: int = 0
    fleet_checks: int = 0
    upgrades: int = 0
    uploads: int = 0
    share_links: int = 0


@dataclass(frozen=True)
class SignedIn:
    user: User
    claimed: Claimed


def sign_up(request: HttpRequest, username: str, password: str, email: str = "") -> SignedIn:
    """A new account with Django's checks (its username rules, AUTH_PASSWORD_VALIDATORS), signed in. The
    e-mail address is optional: only an account with one can reset a forgotten password."""
    _count_try(request)
    username = username.strip()
    user = User(username=username, email=User.objects.normalize_email(email.strip()))
    _check_username(user)
    _check_email(user)
    try:
        validate_password(password, user)
    except ValidationError as err:
        raise AccountInvalid(PASSWORD, list(err.messages)) from None
    user.set_password(password)
    with transaction.atomic():
        _save_new(user)
        return SignedIn(user, sign_in_as(request, user))


def _save_new(user: User) -> None:
    """Two sign-ups of one name at the same moment both pass the check: the database keeps one."""
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise AccountInvalid(USERNAME, [_taken(user.username)]) from None


def _taken(username: str) -> str:
    return f"{username!r} is taken; choose another name, or sign in."


def _check_username(user: User) -> None:
    if not user.username:
        raise AccountInvalid(USERNAME, ["choose a name to sign in with."])
    try:
        user.clean_fields(exclude=[field.name for field in User._meta.fields if field.name != USERNAME])
    except ValidationError as err:
        raise AccountInvalid(USERNAME, list(err.messages)) from None
    if User.objects.filter(username__iexact=user.username).exists():
        raise AccountInvalid(USERNAME, [_taken(user.username)])


def _check_email(user: User) -> None:
    if not user.email:
        return
    try:
        validate_email(user.email)
    except ValidationError as err:
        raise AccountInvalid(EMAIL, list(err.messages)) from None


def sign_in(request: HttpRequest, username: str, password: str) -> SignedIn:
    """Signs in with a name and password (401 when they match no account; a failure counts as a try)."""
    _refuse_over_limit(request)
    user = authenticate(request, username=username.strip(), password=password)
    if not isinstance(user, User):  # None: no account has that name and password
        _count_try(request)
        raise SignInFailed()
    return SignedIn(user, sign_in_as(request, user))


def sign_in_as(request: HttpRequest, user: User) -> Claimed:
    """Django's login, with the anonymous session's rows made the user's in the same transaction
    (login gives the session a new key, so the old one is read first)."""
    anonymous_key = "" if request.user.is_authenticated else (request.session.session_key or "")
    with transaction.atomic():
        claimed = claim(anonymous_key, user)
        login(request, user)
    return claimed


def claim(session_key: str, user: User) -> Claimed:
    """Every row the anonymous session ``session_key`` owns becomes ``user``'s (owner set, session
    key cleared), and the share links made of them anonymously name the user as their maker."""
    if not session_key:
        return Claimed()
    with transaction.atomic():
        counts = {
            name: model._default_manager.filter(owner_id=None, owner_session_key=session_key).update(
                owner_id=user.pk, owner_session_key=""
            )
            for name, model in OWNED_MODELS.items()
        }
        links = _claim_share_links(user)
    return Claimed(**counts, share_links=links)


def _claim_share_links(user: User) -> int:
    """Links without a maker on the user's scenarios, runs or upgrades: only their anonymous owner,
    whose session was just claimed, could have made them."""
    theirs = Q(version__scenario__owner=user) | Q(run__owner=user) | Q(upgrade__owner=user)
    ids = list(ShareLink.objects.filter(theirs, created_by=None).values_list("pk", flat=True))
    return ShareLink.objects.filter(pk__in=ids).update(created_by=user)


def sign_out(request: HttpRequest) -> None:
    """Django's logout: the session is flushed; what the person made stays theirs."""
    logout(request)


def change_password(request: HttpRequest, current: str, new: str) -> None:
    """The signed-in person's new password, once the current one is given and Django's validators
    accept the new one; the session stays signed in (its auth hash follows the password), the
    person's other sessions are signed out."""
    user = _signed_in(request, "changing the password")
    _check_password(request, user, current, CURRENT_PASSWORD)
    try:
        validate_password(new, user)
    except ValidationError as err:
        raise AccountInvalid(NEW_PASSWORD, list(err.messages)) from None
    user.set_password(new)
    user.save(update_fields=["password"])
    update_session_auth_hash(request, user)


def _signed_in(request: HttpRequest, what: str) -> User:
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NotSignedIn(what)
    return user


def _check_password(request: HttpRequest, user: User, password: str, field: str) -> None:
    """The password asked again before it is changed or the account deleted. A wrong one counts as a
    failed sign-in: a stolen session cannot guess it here faster than at the sign-in page."""
    _refuse_over_limit(request)
    if not user.check_password(password):
        _count_try(request)
        raise AccountInvalid(field, [WRONG_PASSWORD])


@dataclass(frozen=True)
class Holdings:
    """How many rows of each kind deleting an account deletes with it."""

    scenarios: int = 0
    versions: int = 0
    runs: int = 0
    questions: int = 0
    upgrades: int = 0
    fleet_checks: int = 0
    share_links: int = 0


@dataclass(frozen=True)
class Theirs:
    """Everything an account's deletion takes: what it owns (models.Owned: deleted with the user), and
    what hangs off its scenarios' versions and runs, whoever started it (deleted with them)."""

    scenarios: QuerySet[Scenario]
    versions: QuerySet[ScenarioVersion]
    runs: QuerySet[Run]
    questions: QuerySet[CapacityQuestion]
    upgrades: QuerySet[Upgrade]
    fleet_checks: QuerySet[FleetCheck]
    share_links: QuerySet[ShareLink]

    @classmethod
    def of(cls, user: User) -> Theirs:
        owned_or_of_theirs = Q(owner=user) | Q(version__scenario__owner=user)
        return cls(
            scenarios=Scenario.objects.filter(owner=user),
            versions=ScenarioVersion.objects.filter(scenario__owner=user),
            runs=Run.objects.filter(owned_or_of_theirs),
            questions=CapacityQuestion.objects.filter(owned_or_of_theirs),
            upgrades=Upgrade.objects.filter(owned_or_of_theirs | Q(fleet__owner=user)),
            fleet_checks=FleetCheck.objects.filter(owner=user),
            # A link the person made of a demo's version has nothing of theirs to be deleted with:
            # its maker is (created_by is SET_NULL otherwise, and the link would live on).
            share_links=ShareLink.objects.filter(
                Q(created_by=user)
                | Q(version__scenario__owner=user)
                | Q(run__owner=user)
                | Q(compare_run__owner=user)
                | Q(upgrade__owner=user)
            ),
        )

    def counts(self) -> Holdings:
        return Holdings(
            scenarios=self.scenarios.count(),
            versions=self.versions.count(),
            runs=self.runs.count(),
            questions=self.questions.count(),
            upgrades=self.upgrades.count(),
            fleet_checks=self.fleet_checks.count(),
            share_links=self.share_links.count(),
        )


def holdings(request: HttpRequest) -> Holdings:
    """What deleting the signed-in person's account would delete (the page says it before asking)."""
    return Theirs.of(_signed_in(request, "deleting an account")).counts()


def delete_account(request: HttpRequest, password: str) -> Holdings:
    """Deletes the signed-in person's account and everything it holds, then signs out; returns what went.

    Their queued and running work is cancelled first, each in a transaction of its own, as deleting a
    scenario does (runs.delete_scenario): once that commits their workers stop at their next
    heartbeat or report without writing another row, and only then are the rows deleted."""
    if settings.SCHEDLAB_SINGLE_USER:
        raise SingleUserMode("deleting an account")
    user = _signed_in(request, "deleting an account")
    _check_password(request, user, password, PASSWORD)
    theirs = Theirs.of(user)
    held = theirs.counts()
    runs.stop_all(theirs.runs, ACCOUNT_DELETED)
    capacity.stop_all(theirs.questions, ACCOUNT_DELETED)
    upgrades.stop_all(theirs.upgrades, ACCOUNT_DELETED)
    their_uploads = list(Upload.objects.filter(owner=user).values_list("pk", flat=True))
    with transaction.atomic():
        theirs.share_links.delete()
        their_pieces = pieces_of(ScenarioVersion.objects.filter(scenario__owner=user))
        user.delete()  # models.Owned's owner is CASCADE: everything they own, and what hangs off it
        forget_unused_pieces(their_pieces)  # their texts' pieces that no one else's version shares
        transaction.on_commit(lambda: uploads.forget_files(their_uploads))  # the files kept as uploaded
    logout(request)
    return held


def count_reset_request(request: HttpRequest) -> None:
    """A password-reset request (webui/password_reset.py) sends e-mail: it counts as a sign-in try of
    the address (429 over the limit), so one address cannot flood a mailbox or probe for long."""
    _count_try(request)


def _tries_key(request: HttpRequest) -> str:
    return TRIES_KEY.format(address=access.client_address(request) or "unknown")


def _refuse_over_limit(request: HttpRequest) -> None:
    tries = cache.get(_tries_key(request), 0)
    most = settings.SCHEDLAB_MAX_SIGN_IN_TRIES
    if tries >= most:
        window = settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS
        raise LimitExceeded(
            "max_sign_in_tries",
            most,
            f"too many sign-in tries from your network address ({tries}; the limit, SCHEDLAB_MAX_SIGN_IN_TRIES, "
            f"is {most} per {window // 60} minutes); try again later",
            status=429,
            retry_after=window,
        )


def _count_try(request: HttpRequest) -> None:
    """A failed sign-in or a sign-up: refused once the address is over the limit, else counted."""
    _refuse_over_limit(request)
    key = _tries_key(request)
    if not cache.add(key, 1, timeout=settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS)
