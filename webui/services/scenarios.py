"""Scenarios and their versions. Every save is a new immutable version, valid or not."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone

from webui import textstore
from webui.models import Scenario, ScenarioVersion
from webui.services import engine
from webui.services.access import Actor
from webui.services.errors import Conflict, LimitExceeded, NotFound


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
    """A unified diff from ``before`` to ``after``. The pieces both texts begin and end with
    (webui/textstore.py) are not compared — only what lies between, with one shared piece on each
    side for the hunks' context, and the line numbers counted past the pieces skipped — so one object
    changed in a 1 GB dump is a diff of a few hundred KB. More than SCHEDLAB_MAX_DIFF_BYTES to compare
    is refused (413), in the user's words."""
    old, new = before.piece_digests(), after.piece_digests()
    same_start = _shared_run(old, new)
    same_end = _shared_run(old[same_start:][::-1], new[same_start:][::-1])
    first = max(0, same_start - 1)
    old_end, new_end = len(old) - max(0, same_end - 1), len(new) - max(0, same_end - 1)
    compared = sum(size for _, size in old[first:old_end]) + sum(size for _, size in new[first:new_end])
    if compared > settings.SCHEDLAB_MAX_DIFF_BYTES:
        raise _diff_refusal(before, after, compared)
    skipped = sum(piece.count("\n") for piece in before.text_pieces(0, first))
    lines = difflib.unified_diff(
        "".join(before.text_pieces(first, old_end)).splitlines(keepends=True),
        "".join(after.text_pieces(first, new_end)).splitlines(keepends=True),
        fromfile=f"v{before.number}",
        tofile=f"v{after.number}",
    )
    return "".join(_shifted(line, skipped) for line in lines)


HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shared_run(old: list[tuple[str, int]], new: list[tuple[str, int]]) -> int:
    """How many pieces the two lists begin with alike."""
    count = 0
    for a, b in zip(old, new):
        if a[0] != b[0]:
            break
        count += 1
    return count


def _shifted(line: str, skipped: int) -> str:
    """A hunk's header with its line numbers moved past the ``skipped`` lines before the compared text."""
    if not skipped:
        return line
    found = HUNK.match(line)
    if found is None:
        return line
    old_line, old_count, new_line, new_count = found.groups()
    shifted = f"@@ -{int(old_line) + skipped}{old_count or ''} +{int(new_line) + skipped}{new_count or ''} @@"
    return shifted + line[found.end() :]


def _diff_refusal(before: ScenarioVersion, after: ScenarioVersion, compared: int) -> LimitExceeded:
    limit = settings.SCHEDLAB_MAX_DIFF_BYTES
    return LimitExceeded(
        "max_diff_bytes",
        limit,
        f"versions {before.number} and {after.number} differ across {engine.megabytes(compared)} of text, more "
        f"than the {engine.megabytes(limit)} this server compares; download both (Export) to compare them "
        f"elsewhere, or this server's administrator raises it with SCHEDLAB_MAX_DIFF_BYTES={compared}",
    )
