"""The capacity searches in rounds (scheduler_core/answers/capacity_rounds.py): one trial a round gives the
sequential answer of capacity.py exactly; several a round give the same answer in fewer rounds. The
nodes question is searched only here: the CLI's answer is its rounds run one trial at a time."""

from __future__ import annotations

import json

import pytest

from scheduler_core.answers.capacity import (
    CapacityError,
    TrialBase,
    fragmentation_of,
    how_many_fit,
    removable_nodes,
    run_trial,
)
from scheduler_core.answers.capacity_rounds import (
    Question,
    Round,
    answer_in_rounds,
    nodes_needed,
    one_by_one,
    replay,
    search_for,
)
from scheduler_core.cli import main


def node(name: str, cpu: str = "2", zone: str = "", pods: int = 110) -> str:
    zone_label = f", topology.kubernetes.io/zone: {zone}" if zone else ""
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{zone_label}}}}}\n"
        f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '{pods}'}}}}\n"
    )


def deployment(name: str, replicas: int, cpu: str = "500m", spec_extra: str = "") -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: default}}\nspec:\n"
        f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n"
        f"    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers:\n      - name: c\n        image: x\n"
        f"        resources: {{requests: {{cpu: {cpu}}}}}\n{spec_extra}"
    )


def pod(name: str, cpu: str = "100m", node_name: str = "", selector: str = "") -> str:
    placed = f"  nodeName: {node_name}\n" if node_name else ""
    chosen = f"  nodeSelector: {{{selector}}}\n" if selector else ""
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}\nspec:\n"
        f"{placed}{chosen}  containers:\n  - name: c\n    image: x\n    resources: {{requests: {{cpu: {cpu}}}}}\n"
    )


SPREAD = """      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: web}}
"""


def base_of(*documents: str) -> TrialBase:
    return TrialBase.from_text("---\n".join(documents))


class Recorder:
    """Runs rounds in this process and remembers their sizes."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.estimates: list[int] = []

    def __call__(self, base, proposals):
        self.sizes.append(len(proposals))
        return one_by_one(base, proposals)


def ask(base: TrialBase, question: Question, width: int):
    recorder = Recorder()
    search = search_for(base, question, width)
    return answer_in_rounds(search, base, recorder), recorder


def test_one_trial_a_round_is_the_sequential_fit_search():
    base = base_of(
        node("a1", cpu="2", zone="a"), node("b1", cpu="1", zone="b"), deployment("web", 0, spec_extra=SPREAD)
    )
    answer, recorder = ask(base, Question("fit", workload="default/web"), 1)
    assert answer.to_json() == how_many_fit(base, workload="default/web").to_json()
    assert set(recorder.sizes) == {1}


@pytest.mark.parametrize("width", [2, 3, 5])
def test_wider_rounds_find_the_same_count_in_fewer_rounds(width):
    # 2 CPU per node, 500m each: 4 per node, 40 on 10 nodes (the existing replica takes one slot).
    base = base_of(*[node(f"n{i}") for i in range(10)], deployment("web", 1))
    sequential = how_many_fit(base, workload="default/web")
    answer, recorder = ask(base, Question("fit", workload="default/web"), width)
    assert sequential.fits == 39
    assert (answer.fits, answer.stopped_by, answer.message, answer.placements) == (
        sequential.fits,
        sequential.stopped_by,
        sequential.message,
        sequential.placements,
    )
    assert len(recorder.sizes) < sequential.trials and max(recorder.sizes) == width
    assert all(answer.tried[n] for n in answer.tried if n <= answer.fits)
    assert not answer.tried[answer.fits + 1]


# n1 (2 CPU) and big (4 CPU) are full; six pods of 1500m wait: one per node like n1, two per node
# like big; the pod selecting disk=ssd fits on neither.
TWO_TEMPLATES = (
    node("n1", cpu="2"),
    node("big", cpu="4"),
    pod("busy", cpu="2", node_name="n1"),
    pod("bulk", cpu="4", node_name="big"),
    *[pod(f"p{i}", cpu="1500m") for i in range(6)],
    pod("sel", selector="disk: ssd"),
)
# Full nodes and 16 pods of three sizes waiting: 8 nodes like a1 (2 CPU) take them, 4 like b1 (4 CPU),
# 12 like c1 (1 CPU, 3 pod slots: the 1700m ones never fit); the 5-CPU pod fits none.
MIXED = (
    node("a1", cpu="2", zone="a"),
    node("b1", cpu="4", zone="b"),
    node("c1", cpu="1", zone="c", pods=3),
    pod("fa", cpu="2", node_name="a1"),
    pod("fb", cpu="4", node_name="b1"),
    pod("fc", cpu="1", node_name="c1"),
    *[pod(f"s{i}", cpu="300m") for i in range(7)],
    *[pod(f"m{i}", cpu="900m") for i in range(5)],
    *[pod(f"l{i}", cpu="1700m") for i in range(3)],
    pod("huge", cpu="5"),
)
NODES_QUESTIONS = {
    "two templates": (TWO_TEMPLATES, ("n1", "big"), None),
    "several nodes of three sizes": (MIXED, ("a1", "b1", "c1"), None),
    "bounded by --max": (MIXED, ("b1",), 2),
    "nothing pending": ((node("n1"), pod("a")), ("n1",), None),
}


def answered(nodes: dict) -> tuple:
    """A nodes answer less the counts tried on the way (the search's, not the answer's)."""
    return nodes["pending"], [{k: v for k, v in t.items() if k != "tried"} for t in nodes["templates"]]


@pytest.mark.parametrize("name", NODES_QUESTIONS)
def test_the_cli_and_the_rounds_at_width_1_and_3_give_the_same_templates(name, tmp_path, capsys):
    documents, likes, most = NODES_QUESTIONS[name]
    path = tmp_path / "scenario.yaml"
    path.write_text("---\n".join(documents))
    flags = [flag for like in likes for flag in ("--add-like", like)] + (["--max", str(most)] if most else [])
    assert main(["capacity", str(path), *flags, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    base = base_of(*documents)
    question = Question("nodes", likes=likes, max_count=most)
    narrow, _ = ask(base, question, 1)
    assert json.loads(json.dumps(narrow.to_json())) == cli  # the CLI's search: its trials too
    wide, _ = ask(base, question, 3)
    assert answered(json.loads(json.dumps(wide.to_json()))) == answered(cli)
    if name == "several nodes of three sizes":
        assert [(t["like"], t["needed"]) for t in cli["templates"]] == [("a1", 8), ("b1", 4), ("c1", 12)]
        assert [u["pod"] for u in cli["templates"][2]["unplaceable"]] == ["default/huge"] + [
            f"default/l{i}" for i in range(3)
        ]


def test_the_nodes_search_runs_every_template_in_the_same_rounds():
    base = base_of(*TWO_TEMPLATES)
    narrow, narrow_rounds = ask(base, Question("nodes", likes=("n1", "big")), 1)
    assert set(narrow_rounds.sizes) == {1, 2}  # the baseline, then one trial of each template still searching
    wide, wide_rounds = ask(base, Question("nodes", likes=("n1", "big")), 4)
    assert [(t.like, t.needed, t.pods_per_node) for t in wide.templates] == [
        (t.like, t.needed, t.pods_per_node) for t in narrow.templates
    ]
    assert [(t.like, t.needed) for t in wide.templates] == [("n1", 6), ("big", 3)]
    assert all(len(pods) == 2 for pods in wide.templates[1].pods_per_node.values())
    assert [u.pod for u in wide.templates[0].unplaceable] == ["default/sel"]
    assert len(wide_rounds.sizes) < len(narrow_rounds.sizes)


def test_the_cli_s_nodes_question_runs_the_rounds_one_trial_at_a_time_and_tells_each():
    base = base_of(*TWO_TEMPLATES)
    ran, told = [], []

    def trial(trial_base, changes):
        ran.append(changes)
        return run_trial(trial_base, changes)

    answer = nodes_needed(base, ["n1", "big"], trial=trial, progress=lambda number, label: told.append((number, label)))
    assert [number for number, _ in told] == list(range(1, answer.trials + 1)) and len(ran) == answer.trials == 12
    # each round's trials in order: the baseline, then the most nodes tried of each template, …
    assert told[:4] == [
        (1, "the scenario's own run"),
        (2, "7 node(s) like n1"),
        (3, "7 node(s) like big"),
        (4, "1 node(s) like n1"),
    ]


def test_it_counts_nodes_like_a_template_and_names_the_pods_none_can_take():
    base = base_of(
        node("n1", cpu="2"),
        pod("busy", cpu="1", node_name="n1"),
        pod("a", cpu="1500m"),
        pod("b", cpu="1500m"),
        pod("sel", selector="disk: ssd"),
        pod("huge", cpu="3"),
    )
    answer = nodes_needed(base, ["n1"])
    assert answer.pending == ["default/a", "default/b", "default/huge", "default/sel"]
    template = answer.templates[0]
    assert template.needed == 2
    assert sorted(p for pods in template.pods_per_node.values() for p in pods) == ["default/a", "default/b"]
    reasons = {u.pod: u.reason for u in template.unplaceable}
    assert "Insufficient cpu" in reasons["default/huge"]
    assert "didn't match Pod's node affinity/selector" in reasons["default/sel"]
    assert template.deciding is not None
    assert len([p for p, n in template.deciding.outcome.final.items() if n is None]) == 3
    assert (template.most, template.exhaustive) == (4, True)
    bounded = nodes_needed(base, ["n1"], max_count=1).templates[0]
    # one node takes a or b, not both: the other is "not taken by 1 node", not "by no number"
    assert (bounded.needed, bounded.exhaustive, len(bounded.unplaceable)) == (1, False, 3)
    assert "1 of them do not take" in "\n".join(bounded.lines())


def test_the_removable_search_drains_every_node_in_one_round_then_builds_the_set():
    base = base_of(
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        node("n3", cpu="1"),
        node("n4", cpu="1"),
        deployment("web", 3, cpu="400m"),
    )
    answer, recorder = ask(base, Question("removable"), 3)
    assert answer.to_json() == removable_nodes(base, forecast=False).to_json()  # the rounds run every drain
    assert recorder.sizes[:2] == [1, 4] and set(recorder.sizes[2:]) == {1}
    one, _ = ask(base, Question("removable", nodes=("n2",)), 3)
    assert [v.node for v in one.verdicts] == ["n2"] and one.together == ["n2"]


def test_the_fragmentation_search_is_the_baseline():
    base = base_of(
        node("n1", cpu="2"),
        node("n2", cpu="4", pods=1),
        pod("x", cpu="1", node_name="n1"),
        pod("w", cpu="1", node_name="n2"),
    )
    answer, recorder = ask(base, Question("fragmentation"), 4)
    assert answer.to_json() == fragmentation_of(base).to_json() and recorder.sizes == [1]


def test_replaying_stored_outcomes_reaches_the_same_round_and_answer():
    base = base_of(*[node(f"n{i}") for i in range(3)], deployment("web", 0))
    question = Question("fit", workload="default/web")
    stored: list[list] = []
    upcoming, answer = replay(search_for(base, question, 2), stored)
    while answer is None:
        assert isinstance(upcoming, Round) and upcoming.estimate >= sum(len(s) for s in stored) + len(
            upcoming.proposals
        )
        stored.append([run_trial(base, p.changes) for p in upcoming.proposals])
        upcoming, answer = replay(search_for(base, question, 2), stored)
    assert answer.fits == how_many_fit(base, workload="default/web").fits == 12


def test_a_question_it_cannot_answer_is_refused_before_any_trial():
    base = base_of(node("n1"))
    with pytest.raises(CapacityError, match="no Deployment"):
        search_for(base, Question("fit", workload="default/none"))
    with pytest.raises(CapacityError, match="no capacity question"):
        search_for(base, Question("guess"))
    with pytest.raises(CapacityError, match="no node"):
        next(search_for(base, Question("removable", nodes=("ghost",))))
