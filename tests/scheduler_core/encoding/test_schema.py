"""scheduler_core.encoding.schema: the served JSON Schema is the one the declarations make, every
payload the engine emits on the public corpora fits it, and it refuses what the engine never writes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.answers.findings import find_all
from scheduler_core.cli import payload_schema_text
from scheduler_core.encoding import schema
from scheduler_core.encoding.events import EVENT_KINDS
from scheduler_core.encoding.timeline import run_story, timeline_summary
from scheduler_core.run.loop import run_to_the_end
from tests.scheduler_core.encoding.payload_examples import example_events

ROOT = Path(__file__).resolve().parents[3]
SERVED = ROOT / schema.SCHEMA_PATH
SHARED = ROOT.parent / "shared"
SINGLE = sorted((SHARED / "conformance" / "public").glob("*.yaml"))
RUNS = (
    sorted((SHARED / "conformance-timeline" / "public").glob("*.yaml"))
    + sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))
    + sorted((SHARED / "conformance-steps" / "public").glob("*.yaml"))
)


def validator(name: str) -> jsonschema.Draft202012Validator:
    """The served schema, checking one of its definitions."""
    document = json.loads(SERVED.read_text())
    return jsonschema.Draft202012Validator({**document, "$ref": f"#/$defs/{name}"})


EVENT = validator("Event")
STORY, TIMELINE_ATTEMPT, ROLLOUT, FINDING = (
    validator(name) for name in ("RunStory", "TimelineAttempt", "RolloutEntry", "Finding")
)


def problems(events) -> list[str]:
    return [
        f"{e.extension_point.value} {e.plugin}: {error.message}"
        for e in events
        for error in EVENT.iter_errors(json.loads(json.dumps(e.to_json())))
    ]


def test_the_served_schema_is_the_one_the_declarations_make():
    assert SERVED.read_text() == payload_schema_text(), (
        f"{schema.SCHEMA_PATH} is stale: .venv/bin/python -m scheduler_core schema > {schema.SCHEMA_PATH}"
    )


def test_the_served_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(json.loads(SERVED.read_text()))


def test_it_has_a_branch_for_every_payload_of_every_kind_of_event():
    branches = json.loads(SERVED.read_text())["$defs"]["Event"]["oneOf"]
    declared = [t for kind in EVENT_KINDS.values() for t in (kind.by_plugin, kind.summary) if t is not None]
    assert len(branches) == len(declared)
    assert {b["properties"]["payload"]["$ref"].rsplit("/", 1)[1] for b in branches} == {t.__name__ for t in declared}


def test_every_payload_with_every_field_set_fits():
    assert problems(example_events()) == []


@pytest.mark.parametrize("path", SINGLE, ids=lambda p: p.stem)
def test_every_event_of_a_single_pass_fits(path):
    assert problems(simulate(load_scenario(path.read_bytes()))) == []


@pytest.mark.parametrize("path", RUNS, ids=lambda p: f"{p.parents[1].name}/{p.stem}")
def test_every_event_of_a_run_to_the_end_its_story_and_its_timeline_fit(path):
    events = list(run_to_the_end(load_scenario(path.read_bytes())))
    assert problems(events) == []
    story = json.loads(json.dumps(run_story(e.to_json() for e in events)))
    assert [error.message for error in STORY.iter_errors(story)] == []
    timeline = json.loads(json.dumps(timeline_summary(events)))
    assert [error.message for attempt in timeline["attempts"] for error in TIMELINE_ATTEMPT.iter_errors(attempt)] == []
    assert [error.message for rollout in timeline.get("rollouts", []) for error in ROLLOUT.iter_errors(rollout)] == []


EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
ROLLOUT_EXAMPLE = ROOT / "examples" / "rollout_stuck.yaml"


def test_a_stuck_rollout_its_story_and_its_timeline_fit():
    """The corpora have no rollout: the example that has one."""
    events = list(run_to_the_end(load_scenario(ROLLOUT_EXAMPLE.read_bytes())))
    assert problems(events) == []
    story = json.loads(json.dumps(run_story(e.to_json() for e in events)))
    rollouts = [r for step in story["steps"] for r in step.get("summary", {}).get("rollouts", [])]
    assert rollouts and [error.message for error in STORY.iter_errors(story)] == []
    timeline = json.loads(json.dumps(timeline_summary(events)))
    assert (
        timeline["rollouts"] and [error.message for r in timeline["rollouts"] for error in ROLLOUT.iter_errors(r)] == []
    )


def test_the_findings_of_every_example_fit():
    findings = [
        json.loads(json.dumps(finding.to_json()))
        for path in EXAMPLES
        for finding in find_all(load_scenario(path.read_bytes()))
    ]
    assert findings, "no example has a finding: the test checks nothing"
    assert [error.message for finding in findings for error in FINDING.iter_errors(finding)] == []


CYCLE_END = {
    "cycle": 0,
    "pod": "default/p",
    "extensionPoint": "CycleEnd",
    "plugin": None,
    "payload": {"nodeName": None, "failedSchedulingMessage": "0/3 nodes are available."},
}


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda e: e["payload"].update(nodeNam="n1"), "a key its payload does not declare"),
        (lambda e: e["payload"].pop("nodeName"), "a key its payload always has, missing"),
        (lambda e: e["payload"].update(nodeName=3), "a key of another type"),
        (lambda e: e.update(plugin="SomePlugin"), "a summary payload on a plugin's event"),
        (lambda e: e.update(extensionPoint="Reprieve"), "a kind of event the release does not write"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_it_refuses_what_the_engine_never_writes(change, why):
    event = json.loads(json.dumps(CYCLE_END))
    assert EVENT.is_valid(event)
    change(event)
    assert not EVENT.is_valid(event), why
