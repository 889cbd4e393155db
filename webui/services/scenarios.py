"""Scenarios and their versions. Every save is a new immutable version, valid or not."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone

from webui import textstore
from webui.models import Scenario, ScenarioVersion
from webui.services import engine
from webui.services.access import Actor
from webui.services.errors import Conflict, NotFound


@dataclass(frozen=True)
class Saved:
    scenario: Scenario
    version: ScenarioVersion
    check: engine.Check | None  # None: being checked in the background (create(check_later=True))


@cache
def blank_template() -> str:
    """What "Create blank" starts from: two nodes and one pending pod, with comments (starter/blank.yaml)."""
    return resources.files("webui.starter").joinpath("blank.yaml").read_text(encoding="utf-8")


def latest_version(scenario: Scenario) -> ScenarioVersion:
    return scenario.versions.latest("number")  # every scenario has its version 1


def get_version(scenario: Scenario, number: int | None) -> ScenarioVersion:
    if number is None:
        return latest_version(scenario)
    version = scenario.versions.filter(number=number).first()
    if version is None:
        raise NotFound(f"scenario {scenario.pk} has no version {number}")
    return version


def visible_version(actor: Actor, scenario: Scenario, number: int | None = None) -> ScenarioVersion:
    """A share link shows exactly the version it was made for."""
    if actor.share is None:
        return get_version(scenario, number)
    if number not in (None, actor.share.version.number):
        raise NotFound(f"scenario {scenario.pk} has no version {number}")
    return actor.share.version


def create(
    actor: Actor,
    name: str,
    text: str,
    description: str = "",
    forked_from: ScenarioVersion | None = None,
    check_later: bool = False,
) -> Saved:
    engine.enforce_size(text)
    if check_later:
        engine.check_soon(text)  # begun before the save: writing 5 MB twice overlaps the parse
    with transaction.atomic():
        scenario = Scenario.objects.create(
            name=name, description=description, forked_from=forked_from, **actor.owner_fields()
        )
        version = ScenarioVersion.saved(scenario, 1, text)
    if check_later:
        return Saved(scenario, version, None)
    return Saved(scenario, version, engine.check(text))


def save(
    scenario: Scenario,
    text: str,
    name: str | None = None,
    description: str | None = None,
    check_later: bool = False,
    based_on: int | None = None,
) -> Saved:
    """``text`` as the scenario's next version (a rename keeps the latest). ``check_later``: no
    whole check here (an edit of one object of a big version: services/documents.py asks a long-work
    worker for it). ``based_on``: the version ``text`` was made from, which must still be the latest
    (Conflict otherwise: another save came between, whose change ``text`` would undo)."""
    engine.enforce_size(text)
    with transaction.atomic():
        # Lock the scenario row so two concurrent saves cannot pick the same version number.
        scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
        latest = scenario.versions.order_by("-number").first()
        if based_on is not None and (latest.number if latest is not None else 0) != based_on:
            raise Conflict(
                f"version {based_on} is not the latest any more (another save made version "
                f"{latest.number if latest is not None else 0}): reload the scenario and edit that one"
            )
        if latest is not None and latest.digest == textstore.digest_of(text):
            # A rename or a new description keeps the text: the scenario's latest version stays its
            # version (a version is a text; renaming made a copy of it under a new number).
            version = latest
        else:
            number = (latest.number if latest is not None else 0) + 1
            version = ScenarioVersion.saved(scenario, number, text)
        scenario.name = name if name is not None else scenario.name
        scenario.description = description if description is not None else scenario.description
        scenario.updated = timezone.now()
        scenario.save()
    return Saved(scenario, version, None if check_later else engine.check(text))


def save_derived(actor: Actor, source: ScenarioVersion, text: str, why: str) -> Saved:
    """`text`, made from version `source`, saved as the next version of its scenario when `actor`
    may change it, else (a demo) as a new scenario of theirs forked from `source`, named for `why`."""
    scenario = source.scenario
    if actor.owns(scenario):
        return save(scenario, text)
    return create(actor, f"{scenario.name} ({why})", text, scenario.description, forked_from=source)


def listing(actor: Actor, query: str = "") -> QuerySet[Scenario]:
    scenarios = Scenario.objects.filter(actor.owned_q() | Q(demo_slug__isnull=False))
    if query:
        scenarios = scenarios.filter(Q(name__icontains=query) | Q(description__icontains=query))
    return scenarios.annotate(version=Max("versions__number"))


def fork(actor: Actor, scenario: Scenario, number: int | None, name: str | None) -> Saved:
    source = visible_version(actor, scenario, number)
    return create(actor, name or f"{scenario.name} (fork)", source.text, scenario.description, forked_from=source)


def diff(before: ScenarioVersion, after: ScenarioVersion) -> str:
    lines = difflib.unified_diff(
        before.text.splitlines(keepends=True),
        after.text.splitlines(keepends=True),
        fromfile=f"v{before.number}",
        tofile=f"v{after.number}",
    )
    return "".join(lines)
