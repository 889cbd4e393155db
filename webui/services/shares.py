"""Share links: unguessable read-only tokens for one version (optionally one run and UI step)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from webui.models import Run, Scenario, ShareLink, Upgrade
from webui.services import scenarios
from webui.services.access import Actor, can_read_run
from webui.services.errors import DomainError, Forbidden, NotFound


def create(
    actor: Actor,
    scenario: Scenario,
    version: int | None,
    run_id: int | None,
    step: str,
    compare_run_id: int | None = None,
    upgrade_id: int | None = None,
) -> ShareLink:
    """``scenario`` is one the actor may share (access.shareable_scenario). The run must be one of
    its runs the actor may read (on a demo: their own); the compared run any run they may read,
    of any scenario (Compare with… lists them all); an upgrade comparison one of the actor's, of
    this scenario (the link shows its result page)."""
    if upgrade_id is not None:
        upgrade = Upgrade.objects.select_related("version").filter(pk=upgrade_id, version__scenario=scenario).first()
        if upgrade is None or not actor.owns(upgrade):
            raise NotFound(f"scenario {scenario.pk} has no upgrade comparison {upgrade_id}")
        return ShareLink.objects.create(version=upgrade.version, upgrade=upgrade, created_by_id=actor.user_id)
    target = scenarios.get_version(scenario, version)
    run = None
    compared = None
    if compare_run_id is not None:
        if run_id is None:
            raise DomainError("a comparison link needs both runs: run and compareRun")
        compared = Run.objects.select_related("version__scenario").filter(pk=compare_run_id).first()
        if compared is None or not can_read_run(actor, compared):
            raise NotFound(f"run {compare_run_id} not found")
    if run_id is not None:
        run = Run.objects.select_related("version__scenario").filter(pk=run_id, version__scenario=scenario).first()
        if run is None or not can_read_run(actor, run):
            raise NotFound(f"scenario {scenario.pk} has no run {run_id}")
        target = run.version  # a run is shown with the exact text it ran
    return ShareLink.objects.create(
        version=target, run=run, compare_run=compared, step=step, created_by_id=actor.user_id
    )


def fork(actor: Actor, link: ShareLink, name: str | None) -> scenarios.Saved:
    """A visitor's own copy of the shared version; the shared scenario itself is untouched."""
    source = link.version
    title = name or f"{source.scenario.name} (fork)"
    return scenarios.create(actor, title, source.text, source.scenario.description, forked_from=source)


def listing(scenario: Scenario) -> QuerySet[ShareLink]:
    return ShareLink.objects.filter(version__scenario=scenario).select_related("version").order_by("-created")


def revoke(actor: Actor, token: str) -> ShareLink:
    link = ShareLink.objects.select_related("version__scenario").filter(token=token).first()
    if link is None:
        raise NotFound("this share link does not exist")
    if not actor.owns(link.version.scenario):
        raise Forbidden("only the scenario's owner may revoke its share links")
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
    return link
