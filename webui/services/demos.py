"""Demo scenarios: the seed examples of the conformance corpus, shipped as package data in
webui/demos/, and the repository's examples/ that a new user should meet first (preemption, steps,
a stuck rollout, capacity, device claims), read from examples/ itself so the CLI's examples and the
app's demos are the same files."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from django.conf import settings
from django.db import transaction

from webui import textstore
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
    "preemption": Lesson(
        "Preemption: a high-priority pod makes room",
        "A high-priority pod fits nowhere, so the scheduler picks lower-priority pods to evict and nominates "
        "a node for it; other pending pods of lower priority must not take the room it freed. Run it to the "
        "end and open the PostFilter step: the candidates, the victims and why this node was chosen.",
    ),
    "changes_scale_drain": Lesson(
        "Steps: scale a Deployment, then drain a node",
        "A Deployment scaled from 4 to 6 copies, then node-1 drained while a disruption budget keeps 5 of them "
        "running. The run shows each step: which pods were created, where they went, which evictions the "
        "budget blocked, and the cluster at the end of each step.",
    ),
    "rollout_stuck": Lesson(
        "Steps: a rollout that cannot finish",
        "The web app's memory request is raised from 1Gi to 2Gi, but no node has 2Gi free. The new pod stays "
        "Pending, the old pods stay, and the run says the rollout is stuck, with the new pod's "
        "FailedScheduling message.",
    ),
    "capacity_pods": Lesson(
        "Capacity: how many more copies of a pod fit",
        "Three kinds of pod: one whose copies are counted node by node, one that must keep away from its own "
        "copies (placed one by one), and a high-priority one whose copies could evict others (answered by "
        "trial runs). Open the cluster view and ask for each.",
    ),
    "dra_pending_gpu": Lesson(
        "Devices: a pod asking for two GPUs",
        "Two GPU nodes, one device already taken: two devices are free in the cluster, but never two on one "
        "node, so the pod asking for two stays Pending. The Filter step shows each node's devices and why "
        "the claim cannot be allocated there.",
    ),
    "dra_partitioned_gpu": Lesson(
        "Devices: GPUs split into partitions (v1.36)",
        "Each node's GPU is offered whole or as two halves, all drawing on one 40Gi counter set (partitionable "
        "devices, on by default in v1.36, the release the nodes' kubelets say). The whole GPU uses up its node's "
        "counters, the other node's halves go to two pods, and the fourth pod stays Pending with free halves: "
        "the Filter step shows each node's counters left, and the what-if names the pod to evict.",
    ),
    "dra_shared_nic": Lesson(
        "Devices: one NIC shared by several pods (v1.36)",
        "Each node's NIC allows multiple allocations (consumable capacity, on by default in v1.36, the release "
        "the nodes' kubelets say): every claim takes a share of its bandwidth, rounded up to what the NIC hands "
        "out (whole Gi on node-1, 1, 2 or 4Gi on node-2). db-0 holds 6Gi of node-1's; two web pods take the 4Gi "
        "left on each node and the third stays Pending with both NICs free of owners but out of bandwidth: the "
        "Filter step shows each shared NIC's bandwidth left. Compare releases v1.35 and v1.36 to see what the "
        "upgrade changes.",
    ),
    "dra_extended_gpu": Lesson(
        "Devices behind an extended resource (v1.36)",
        "The pods ask for example.com/gpu as they would from a device plugin; node-2 has one from a plugin, "
        "node-1 none, but a DeviceClass stands for the resource (extended resources backed by devices, on by "
        "default in v1.36, the release the nodes' kubelets say). train-0's two GPUs come from node-1's devices "
        "through a claim the scheduler makes for it; train-1 takes node-2's plugin GPU; train-2 stays Pending: "
        "the Filter step shows who holds node-1's devices. Compare releases v1.35 and v1.36 to see what the "
        "upgrade changes.",
    ),
    "dra_binding_conditions": Lesson(
        "Devices attached over a fabric: binding conditions (v1.36)",
        "The fabric GPUs must be attached before a pod using one is bound: the scheduler waits in PreBind until "
        "the claim's device status says FabricAttached (binding conditions, on by default in v1.36, the release "
        "the nodes' kubelets say). inference's claim already reports it and is bound at once; train-0 gets "
        "node-1's local GPU, tried first; train-1 gets a fabric GPU that nothing in a replay attaches, so its "
        "binding fails after the 10-minute binding timeout, the claim is deallocated and it tries again. Compare "
        "releases v1.35 and v1.36 to see what the upgrade changes.",
    ),
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


# The examples/ files offered as demos, in the order the scenario list shows them after the seeds.
EXAMPLE_DEMOS = (
    "preemption",
    "changes_scale_drain",
    "rollout_stuck",
    "capacity_web",
    "capacity_pods",
    "dra_pending_gpu",
    "dra_partitioned_gpu",
    "dra_shared_nic",
    "dra_extended_gpu",
    "dra_binding_conditions",
)


def examples_dir() -> Path:
    return Path(settings.BASE_DIR) / "examples"


def all_demos() -> list[Demo]:
    files = sorted(
        (f for f in resources.files("webui.demos").iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name
    )
    seeds = [_demo(f.name.removesuffix(".yaml"), f.read_text(encoding="utf-8")) for f in files]
    examples = [
        _demo(slug, (examples_dir() / f"{slug}.yaml").read_text(encoding="utf-8"))
        for slug in EXAMPLE_DEMOS
        if (examples_dir() / f"{slug}.yaml").is_file()  # an installed copy without the repository's examples/
    ]
    return seeds + examples


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
        scenario = Scenario.objects.create(name=demo.name, description=demo.description, demo_slug=demo.slug)
        ScenarioVersion.saved(scenario, 1, demo.text)
        return True
    latest = scenario.versions.order_by("-number").first()
    if latest is not None and latest.digest == textstore.digest_of(demo.text):
        if (scenario.name, scenario.description) == (demo.name, demo.description):
            return False
        Scenario.objects.filter(pk=scenario.pk).update(name=demo.name, description=demo.description)
        return True  # a reworded title or description: no new version, the text is the same
    scenarios.save(scenario, demo.text, demo.name, demo.description)
    return True
