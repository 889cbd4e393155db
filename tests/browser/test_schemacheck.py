"""static/js/schemacheck.js in Chromium: the run view's readers read only the fields the served
payload schema (static/schema/payloads.json, made from the engine's declarations) declares.

The page is opened with the check on (every event the run model is handed wrapped against the
schema), then stepped through with → over every step of its first cycles; a read of a field no
payload declares is recorded and fails the test, naming the payload and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, create_from_demo, run_to_end, zoned_scenario

pytestmark = pytest.mark.browser
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "public"
STEPS_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance-steps" / "public"
CHECK_ON = "globalThis.SCHEDLAB_SCHEMA_CHECK = {violations: []};"
SCENARIOS = {
    "a 210-node zoned spread (Filter, scores, spread pictures)": lambda: zoned_scenario(210, 3),
    "a preemption with victims and candidates (PostFilter)": lambda: (CORPUS / "gen_1082.yaml").read_text(),
    "pods that fit nowhere (FailedScheduling, PreFilter rejections)": lambda: (
        CORPUS / "seed_pts_conflict.yaml"
    ).read_text(),
    "inter-pod affinity state (PreFilter and PreScore maps)": lambda: (CORPUS / "seed_pod_affinity.yaml").read_text(),
    "a run with steps (queue moves, cluster changes)": lambda: sorted(STEPS_CORPUS.glob("*.yaml"))[0].read_text(),
}
CYCLES = 3  # steps walked: every step of the first cycles


def violations(page) -> list[str]:
    return page.evaluate("globalThis.SCHEDLAB_SCHEMA_CHECK.violations")


def walk_steps(page, cycles: int) -> list[str]:
    """Presses → until the stepper leaves the first ``cycles`` cycles or reaches the run's last step
    (the page says so: data-at-end), waiting each time for the next step to be drawn; the steps shown."""
    root = page.locator("#run-root")
    shown = [root.get_attribute("data-shown")]
    while int(shown[-1].split(":")[0]) < cycles and root.get_attribute("data-at-end") != "true":
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "was => document.querySelector('#run-root').dataset.shown !== was", arg=shown[-1], timeout=60_000
        )
        shown.append(root.get_attribute("data-shown"))
    return shown


@pytest.mark.parametrize("text", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_the_run_view_reads_only_fields_the_payload_schema_declares(page, text):
    created = api_post(page, "/api/scenarios", {"name": "schema check", "text": text()})
    run = run_to_end(page, created["id"])
    assert run["status"] == "succeeded"
    page.add_init_script(CHECK_ON)
    page.goto(f"{page.base_url}/runs/{run['id']}/?cycle=0&step=QueueSort")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#run-root")).to_have_attribute("data-shown", re.compile(r"^0:QueueSort:"), timeout=30_000)
    assert page.evaluate("async () => (await import('/static/js/schemacheck.js')).checking()")
    shown = walk_steps(page, CYCLES)
    assert len(shown) >= 5, shown  # at least one whole cycle (an unschedulable one ends after PostFilter)
    assert violations(page) == [], f"fields read that no payload declares, walking {shown}"


READ_A_CYCLE_END = """async () => {
    const { checked } = await import("/static/js/schemacheck.js");
    const event = checked({cycle: 0, pod: "default/p", extensionPoint: "CycleEnd", plugin: null,
                           payload: {nodeName: null, failedSchedulingMessage: "0/2 nodes are available."}}, "Event");
    const filter = checked({cycle: 0, pod: "default/p", extensionPoint: "Filter", plugin: "NodeAffinity",
                            payload: {statuses: {"node-1": {code: "Unschedulable", reasons: ["r"]}}, evaluated: 2}}, "Event");
    const read = [event.payload.nodeName, event.payload.failedSchedulingMessage, event.payload.error,
                  event.payload.failedSchedulingMesage, filter.payload.statuses["node-1"].code,
                  filter.payload.statuses["node-1"].reason, filter.payload.feasibleNodes];
    return { read, violations: globalThis.SCHEDLAB_SCHEMA_CHECK.violations };
}"""


def test_a_read_of_a_field_no_payload_declares_is_reported_by_name(page):
    page.add_init_script(CHECK_ON)
    page.goto(f"{page.base_url}/")
    answer = page.evaluate(READ_A_CYCLE_END)
    assert answer["read"] == [None, "0/2 nodes are available.", None, None, "Unschedulable", None, None]
    assert answer["violations"] == [
        "CycleEnd.failedSchedulingMesage",
        "StatusJson.reason",
        "StoredFilterVerdicts.feasibleNodes",
    ]


def test_without_the_check_nothing_is_wrapped(page):
    page.goto(f"{page.base_url}/")
    assert page.evaluate("""async () => {
        const { checked, checking } = await import("/static/js/schemacheck.js");
        const payload = {nodeName: "n1"};
        return !checking() && checked(payload, "CycleEnd") === payload;
    }""")


ANSWER_MS = 180_000  # trial runs on the one embedded worker of a machine shared with others


def test_the_capacity_answers_read_only_fields_their_declarations_have(page):
    """Which nodes can go (a drain trial per node, then together) and fragmentation, drawn with the check on."""
    scenario_id = create_from_demo(page, "capacity_web")
    page.add_init_script(CHECK_ON)
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    answer = page.locator("#capacity-answer")
    page.locator("#capacity-removable").click()
    expect(answer.locator(".capacity-verdicts li")).not_to_have_count(0, timeout=ANSWER_MS)
    page.locator("#capacity-fragmentation").click()
    expect(answer.locator(".capacity-fragmentation table tbody tr")).not_to_have_count(0, timeout=ANSWER_MS)
    # Amounts with their unit, as the engine writes them (not 23622320128 bytes or 4000 millicores bare).
    rows = answer.locator(".capacity-fragmentation table tbody tr")
    cells = {
        rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).locator("td").nth(1).inner_text()
        for i in range(rows.count())
    }
    assert cells["cpu"].endswith("m"), cells
    assert cells["memory"][-2:] in ("Ki", "Mi", "Gi", "Ti"), cells
    assert violations(page) == []
