"""Demo scenarios shipped as package data in webui/demos/ (the seed examples of the conformance corpus)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from django.db import transaction

from webui.models import Scenario, ScenarioVersion
from webui.services import scenarios
from webui.services.access import Actor
from webui.services.errors import NotFound


@dataclass(frozen=True)
class Lesson:
    """A demo's title and, in plain words, what it teaches (shown on the scenario list)."""

    title: str
    teaches: str


LESSONS = {
    "capacity_web": Lesson(
        "Capacity: how many more copies fit",
        "Three nodes of 2 CPU run four copies of a web app (500m each). How many more fit? Open the cluster view "
        "and ask: the server runs trial runs through the real scheduler rules, shows where the new copies land, "
        "what stops the next one (its FailedScheduling message), and opens the deciding trial at that step.",
    ),
    "seed_pts_single_constraint": Lesson(
        "Topology spread: one zone constraint",
        "Keeping copies of an app evenly spread over zones: zoneA already runs two copies and zoneB one, "
        "so the new copy may only go to zoneB. Open the Filter step to see the count per zone and which "
        "zones the rule allows.",
    ),
    "seed_pts_two_constraints": Lesson(
        "Topology spread: zone and node constraints",
        "Two spreading rules at once, even over zones and even over nodes: each rule rules out some nodes, "
        "and only the node both rules allow can take the pod.",
    ),
    "seed_pts_conflict": Lesson(
        "Topology spread: conflicting constraints",
        "Two spreading rules that cannot both be met: the zone rule allows only zoneB, the node rule only "
        "node2, which is in zoneA. No node satisfies both, so the pod stays pending; the Filter step says "
        "which nodes each rule allows.",
    ),
    "seed_pod_affinity": Lesson(
        "Inter-pod affinity and anti-affinity",
        "Pods that must run next to, or away from, another pod: one pod has to share a node with the pod "
        "labelled podenv=pro, the other must avoid that node. The Filter step shows which nodes each rule "
        "leaves.",
    ),
}


@dataclass(frozen=True)
class Demo:
    slug: str
    name: str
    description: str
    text: str


def all_demos() -> list[Demo]:
    files = sorted(
        (f for f in resources.files("webui.demos").iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name
    )
    return [_demo(f.name.removesuffix(".yaml"), f.read_text(encoding="utf-8")) for f in files]


def _demo(slug: str, text: str) -> Demo:
    lesson = LESSONS.get(slug)
    if lesson is None:  # a demo file without a lesson written yet: its opening comments describe it
        comments = [line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")]
        lesson = Lesson(slug, " ".join(comments))
    return Demo(slug=slug, name=lesson.title, description=lesson.teaches, text=text)


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
        scenario = Scenario.objects.create(
            name=demo.name, description=demo.description, demo_slug=demo.slug, text=demo.text
        )
        ScenarioVersion.objects.create(scenario=scenario, number=1, text=demo.text)
        return True
    if scenario.text == demo.text:
        if (scenario.name, scenario.description) == (demo.name, demo.description):
            return False
        Scenario.objects.filter(pk=scenario.pk).update(name=demo.name, description=demo.description)
        return True  # a reworded title or description: no new version, the text is the same
    scenarios.save(scenario, demo.text, demo.name, demo.description)
    return True
