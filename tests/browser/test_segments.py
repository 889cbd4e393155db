"""static/js/segments.js + npz.js in Chromium: every stored cycle, read as the run view reads it
(the binary segment and the run's names), gives exactly the events of the JSON API."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.helpers import api_post, run_to_end, zoned_scenario

pytestmark = pytest.mark.browser
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "public"
SCENARIOS = {
    "a 210-node zoned spread (Filter palettes, score columns, hostname counts)": lambda: zoned_scenario(210, 4),
    "a preemption with victims and candidates (PostFilter)": lambda: (CORPUS / "gen_1082.yaml").read_text(),
    "pods that fit nowhere (FailedScheduling, PreFilter rejections)": lambda: (
        CORPUS / "seed_pts_conflict.yaml"
    ).read_text(),
    "inter-pod affinity state (PreFilter and PreScore maps)": lambda: (CORPUS / "seed_pod_affinity.yaml").read_text(),
}

COMPARE_EVERY_CYCLE = """async ({ runId, cycles }) => {
    const { decodeSegment, runNames } = await import("/static/js/segments.js");
    const names = runNames(await (await fetch(`/api/runs/${runId}/names`)).json());
    const problems = [];
    for (let cycle = 0; cycle < cycles; cycle += 1) {
        const buffer = await (await fetch(`/api/runs/${runId}/segment?cycle=${cycle}`)).arrayBuffer();
        const decoded = (await decodeSegment(buffer, names)).events;
        const expected = (await (await fetch(`/api/runs/${runId}/events?cycle=${cycle}`)).json()).events;
        if (JSON.stringify(decoded) !== JSON.stringify(expected)) problems.push(cycle);
    }
    return problems;
}"""


@pytest.mark.parametrize("text", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_the_browser_reads_every_cycle_exactly_as_the_json_api_gives_it(page, text):
    created = api_post(page, "/api/scenarios", {"name": "segments", "text": text()})
    run = run_to_end(page, created["id"])
    assert run["status"] == "succeeded" and run["progress"]["cycle"] > 0
    mismatched = page.evaluate(COMPARE_EVERY_CYCLE, {"runId": run["id"], "cycles": run["progress"]["cycle"]})
    assert mismatched == [], f"cycles decoded differently: {mismatched}"


def test_a_cycle_not_stored_yet_is_a_404_in_the_one_error_shape(page):
    created = api_post(page, "/api/scenarios", {"name": "segments", "text": zoned_scenario(6, 1)})
    run = run_to_end(page, created["id"])
    response = page.request.get(f"{page.base_url}/api/runs/{run['id']}/segment?cycle=5")
    assert response.status == 404
    assert response.json()["error"]["code"] == "not_found"
