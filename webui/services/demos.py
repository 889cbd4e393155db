"""Demo scenarios shipped as package data in webui/demos/ (the seed examples of the conformance corpus)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from django.db import transaction

from webui.models import Scenario, ScenarioVersion
from webui.services import scenarios
from webui.services.access import Actor
from webui.services.errors import NotFound

TITLES = {
    "seed_pts_single_constraint": "Topology spread: one zone constraint",
    "seed_pts_two_constraints": "Topology spread: zone and node constraints",
    "seed_pts_conflict": "Topology spread: conflicting constraints",
    "seed_pod_affinity": "Inter-pod affinity and anti-affinity",
}


@dataclass(frozen=True)
class Demo:
    slug: str
    name: str
    description: str
    text: str


def all_demos() -> list[Demo]:
    files = sorted(f for f in resources.files("webui.demos").iterdir() if f.name.endswith(".yaml"))
    return [_demo(f.name.removesuffix(".yaml"), f.read_text(encoding="utf-8")) for f in files]


def _demo(slug: str, text: str) -> Demo:
    # The files open with '#' comment lines describing the case; they make a good description.
    comments = [line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")]
    return Demo(slug=slug, name=TITLES.get(slug, slug), description=" ".join(comments), text=text)


def get(slug: str) -> Demo:
    for demo in all_demos():
        if demo.slug == slug:
            return demo
    raise NotFound(f"no demo named {slug!r}")


def create_from_demo(actor: Actor, slug: str) -> scenarios.Saved:
    demo = get(slug)
    return scenarios.create(actor, demo.name, demo.text, demo.description)


def load_all() -> list[tuple[Demo, bool]]:
    """Idempotent: creates missing demo scenarios, adds a version only when a demo's text changed."""
    return [(demo, _load(demo)) for demo in all_demos()]


@transaction.atomic
def _load(demo: Demo) -> bool:
    scenario = Scenario.objects.filter(demo_slug=demo.slug).first()
    if scenario is None:
        scenario = Scenario.objects.create(name=demo.name, description=demo.description, demo_slug=demo.slug, text=demo.text)
        ScenarioVersion.objects.create(scenario=scenario, number=1, text=demo.text)
        return True
    if scenario.text == demo.text:
        return False
    scenarios.save(scenario, demo.text, demo.name, demo.description)
    return True
