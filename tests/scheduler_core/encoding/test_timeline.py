"""timeline: the story of a run (what the run view's Timeline panel shows) from its event stream."""

from __future__ import annotations

from msgspec.structs import replace
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.events import ExtensionPoint as P, ProgressDeadline, RolloutStatus
from scheduler_core.encoding.timeline import (
    STORY_POINTS,
    TIMELINE_READS,
    TimelineBuilder,
    clock_text,
    rollout_entry,
    rollout_lines,
    rollout_status_text,
    run_story,
    story_reads,
)

SHARED = Path(__file__).resolve().parents[4] / "shared"
TIMELINE = SHARED / "conformance-timeline" / "public"
CASES = sorted(p.name[: -len(".yaml")] for p in TIMELINE.glob("*.yaml"))
DRA_FILES = sorted((SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"))


def stream(case: str) -> list[dict]:
    return [event.to_json() for event in run_to_the_end(load_scenario((TIMELINE / f"{case}.yaml").read_bytes()))]


@pytest.mark.parametrize("case", CASES)
def test_the_story_reads_only_its_own_events(case):
    # The web app rebuilds a stored run's story from these events alone (the rest is never decoded).
    events = stream(case)
    picked = [event for event in events if story_reads(event["pod"], event["extensionPoint"])]
    assert run_story(picked) == run_story(events)


@pytest.mark.parametrize("path", [TIMELINE / f"{case}.yaml" for case in CASES] + DRA_FILES, ids=lambda path: path.name)
def test_the_timeline_renders_only_the_events_it_reads(path):
    # TimelineBuilder.add skips the cycle's own events (Filter, Score, ...) unrendered; the summary
    # must be the one every event's wire form gives (what the web app feeds add_json).
    events = list(run_to_the_end(load_scenario(path.read_bytes())))
    every = TimelineBuilder()
    for event in events:
        every.add_json(event.to_json())
    skipping = TimelineBuilder()
    for event in events:
        skipping.add(event)
    assert skipping.summary() == every.summary()
    assert skipping.summary()["attempts"]


STEPS_FILES = sorted((SHARED / "conformance-steps" / "public").glob("*.yaml"))
WITHOUT_STEPS = [TIMELINE / f"{case}.yaml" for case in CASES[:3]]


@pytest.mark.parametrize("path", STEPS_FILES + WITHOUT_STEPS, ids=lambda path: path.name)
def test_the_storys_attempts_are_timeline_jsons_on_every_field_it_has(path):
    """The app's GET /timeline (the story) and the CLI's `timeline --json` of one run: the same
    attempts, the step each ran in included (a run without steps has no step)."""
    events = [event.to_json() for event in run_to_the_end(load_scenario(path.read_bytes()))]
    timeline = TimelineBuilder()
    for event in events:
        timeline.add_json(event)
    cli = timeline.summary()["attempts"]
    story = run_story(events)["attempts"]
    assert [{key: attempt.get(key) for key in cli_attempt} for attempt, cli_attempt in zip(story, cli)] == cli
    assert len(story) == len(cli)
    assert any("step" in attempt for attempt in cli) == (path in STEPS_FILES)


def test_a_preemption_is_told_with_its_victims_and_the_pod_still_pending_is_named():
    story = run_story(stream("preempt_3"))
    preempting = [a for a in story["attempts"] if a.get("victims")]
    assert preempting and all(" → preempts " in a["text"] for a in preempting)
    assert story["finished"] and story["outcome"].startswith("At ")
    kinds = {entry["kind"] for entry in story["entries"]}
    assert kinds == {"attempt", "move", "change"}


def test_a_single_pass_has_attempts_without_times():
    scenario = load_scenario((SHARED / "bench" / "spread_500.yaml").read_bytes())
    events = []
    for event in simulate(scenario):
        events.append(event.to_json())
        if event.cycle >= 2:
            break
    story = run_story(events)
    assert [a["cycle"] for a in story["attempts"]][:2] == [0, 1]
    assert "timeMs" not in story["attempts"][0] and story["attempts"][0]["text"].endswith(
        story["attempts"][0]["nodeName"]
    )
    assert not story["finished"]


def test_a_corrected_attempt_end_changes_only_that_attempts_binding_error():
    """A binding blocked in PreBind and cancelled by a preemption: the late AttemptEnd names the
    attempt it corrects (``correctsCycle``); the attempt under way keeps its own end."""
    from scheduler_core.encoding.events import AttemptEnd, CycleEnd, Event

    def event(cycle, point, payload):
        return Event(cycle, "default/p", point, None, payload)

    events = [
        event(0, P.CYCLE_START, replace(_start(), pod="default/p")),
        event(0, P.CYCLE_END, CycleEnd(node_name=None)),
        event(0, P.ATTEMPT_END, AttemptEnd(0, 1, "", [], "waiting error", "n1", 600_000)),
        event(1, P.CYCLE_START, replace(_start(), pod="default/q")),
        event(1, P.CYCLE_END, CycleEnd(node_name="n2")),
        event(1, P.ATTEMPT_END, AttemptEnd(5, 1)),
        event(1, P.ATTEMPT_END, AttemptEnd(5, 1, "", [], "preempted", "n1", None, 0)),
    ]
    timeline = TimelineBuilder()
    for item in events:
        timeline.add(item)
    assert [(a.pod, a.node_name, a.binding_error) for a in timeline.attempts] == [
        ("default/p", "n1", "preempted"),
        ("default/q", "n2", None),
    ]
    story = run_story([item.to_json() for item in events])["attempts"]
    assert story[0]["text"] == "default/p (attempt 1): chose n1, binding failed — preempted"
    assert story[1]["text"] == "default/q (attempt 1): scheduled to n2"


def _start():
    from scheduler_core.encoding.events import CycleStart
    from tests.scheduler_core.encoding.payload_examples import every_field_set

    return every_field_set(CycleStart)


def test_the_clock_reads_minutes_seconds_and_milliseconds():
    assert clock_text(0) == "0:00.000"
    assert clock_text(12 * 60_000 + 3_045) == "12:03.045"


def test_story_points_are_extension_point_names():
    assert {
        "CycleStart",
        "CycleEnd",
        "AttemptEnd",
        "QueueMove",
        "Cluster",
        "RunEnd",
        "StepStart",
        "StepEnd",
    } == STORY_POINTS


# ---------------------------------------------------------------------------- rollouts (docs/CHANGES.md)


def _rollout(updated: int, replicas: int, available: int, desired: int = 3):
    return RolloutStatus(
        "Deployment",
        "default/web",
        2,
        "default/web-abc",
        "RollingUpdate",
        desired,
        updated,
        replicas,
        available,
        [],
        updated == replicas == available == desired,
        [],
    )


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        pytest.param(
            (1, 4, 3), "1 out of 3 new replicas have been updated...", id="fewer updated replicas than wanted"
        ),
        pytest.param((3, 5, 3), "2 old replicas are pending termination...", id="old replicas still counted"),
        pytest.param((3, 3, 1), "1 of 3 updated replicas are available...", id="updated but not yet available"),
    ],
)
def test_a_rollout_reads_as_kubectl_rollout_status_words_it(counts, text):
    assert rollout_status_text(_rollout(*counts)) == f'Waiting for deployment "web" rollout to finish: {text}'


def test_the_storys_step_summary_says_a_stuck_rollout_with_kubectls_words_and_why_its_pods_pend():
    # The run view's Steps table reads the story (GET /api/runs/N/timeline), not timeline --json.
    scenario = load_scenario((Path(__file__).resolve().parents[3] / "examples" / "rollout_stuck.yaml").read_bytes())
    events = [event.to_json() for event in run_to_the_end(scenario)]
    steps = run_story(events)["steps"]
    assert "rollouts" not in steps[0]["summary"]
    (rollout,) = steps[1]["summary"]["rollouts"]
    assert (
        rollout["kind"],
        rollout["workload"],
        rollout["complete"],
        rollout["desired"],
        rollout["updated"],
        rollout["available"],
    ) == ("Deployment", "default/web", False, 3, 1, 3)
    assert (
        rollout["status"]
        == 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
    )
    (pending,) = rollout["pending"]
    assert pending["pod"] == steps[1]["summary"]["pending"][0]
    assert pending["failedSchedulingMessage"].startswith("0/3 nodes are available: 3 Insufficient memory.")
    assert rollout == TimelineBuilder_rollouts(events)[0]


def TimelineBuilder_rollouts(events):  # noqa: N802 - timeline --json's list, for the comparison
    builder = TimelineBuilder()
    for event in events:
        builder.add_json(event)
    return builder.summary()["rollouts"]


def test_a_complete_rollout_reads_successfully_rolled_out():
    assert rollout_status_text(_rollout(3, 3, 3)) == 'deployment "web" successfully rolled out'


def _stuck_with_deadline(exceeded: bool, paused: bool = False):
    return replace(_rollout(1, 4, 3), paused=paused or None, progress_deadline=ProgressDeadline(600, 601_000, exceeded))


def test_a_rollout_past_its_progress_deadline_reads_as_kubectls_error():
    """DeploymentStatusViewer: a Progressing condition ProgressDeadlineExceeded is an error."""
    assert rollout_status_text(_stuck_with_deadline(True)) == 'deployment "web" exceeded its progress deadline'
    assert rollout_status_text(_stuck_with_deadline(False)).startswith('Waiting for deployment "web"')


@pytest.mark.parametrize(
    ("rollout", "words"),
    [
        pytest.param(
            _stuck_with_deadline(False),
            "its progress deadline of 600 s passes at 10:01.000 unless it progresses",
            id="a deadline still ahead says when it passes",
        ),
        pytest.param(
            _stuck_with_deadline(True),
            "its progress deadline of 600 s passed at 10:01.000",
            id="a deadline passed during the step says so",
        ),
        pytest.param(
            _stuck_with_deadline(False, paused=True),
            "the Deployment is paused",
            id="a paused Deployment waits for its resume",
        ),
    ],
)
def test_a_stuck_rollout_says_what_its_deadline_or_pause_leads_to(rollout, words):
    assert words in rollout_lines(rollout, {})[1]


def test_a_rollout_entry_writes_its_deadline_on_the_runs_clock():
    entry = rollout_entry(1, _stuck_with_deadline(False), {}).to_json()
    assert entry["progressDeadline"] == {"seconds": 600, "passesAt": "10:01.000", "exceeded": False}
    assert "paused" not in entry and "progressDeadline" not in rollout_entry(1, _rollout(1, 4, 3), {}).to_json()


def test_the_builder_reads_the_points_of_its_payloads_and_no_cycle_step_else():
    """TIMELINE_READS comes from the builder's handlers: a handler added for a payload adds its point."""
    assert {
        P.RUN_START,
        P.CYCLE_START,
        P.CYCLE_END,
        P.ATTEMPT_END,
        P.STEP_START,
        P.STEP_END,
        P.RUN_END,
    } == TIMELINE_READS
