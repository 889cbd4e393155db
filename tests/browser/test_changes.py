"""Runs with steps in the UI: the editor's Changes panel writes the scenario's Changes document (one
source of truth with the YAML), the run view groups its timeline by step with each step's summary,
the cluster at the end of a step marks what moved, and a link opens that step."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, editor_text, expect_editor_text, start_run

pytestmark = pytest.mark.browser

NODES = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, zone: {zone}}}}}\n"
         f"status: {{allocatable: {{cpu: \"2\", memory: 8Gi, pods: \"110\"}}}}\n" for name, zone in (("n1", "a"), ("n2", "b"), ("n3", "a"))]
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m}}}]
"""
SCENARIO = "---\n".join(NODES + [DEPLOYMENT])


def test_a_step_built_in_the_changes_panel_runs_and_its_summary_is_shown(page, fresh_page, snap):
    created = api_post(page, "/api/scenarios", {"name": "scale web", "text": SCENARIO})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    page.click("#tab-changes")
    expect(page.locator("#changes-empty")).to_be_visible()
    expect(page.locator("#changes-workload")).to_have_value("Deployment/default/web")
    page.fill("#changes-name", "scale web to 5")
    page.fill("#changes-replicas", "5")
    page.click("#changes-add")
    text = expect_editor_text(page, re.compile(r"kind: Changes"))
    assert "name: scale web to 5" in text and "kind: Deployment" in text and "replicas: 5" in text
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["scale Deployment default/web to 5✕"])
    # The server's check of the new text: with a Changes document the Deployment is read (no longer ignored).
    expect(page.locator("#notice-list")).not_to_contain_text("Deployment")
    expect(page.locator("#validity")).to_contain_text("✓ valid")

    # A second operation into step 1, then removed again: only the Changes document changes.
    page.select_option("#changes-target", "1")
    page.select_option("#changes-verb", "drain")
    page.select_option("#changes-node", "n2")
    page.click("#changes-add")
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(2)
    assert "drain:" in editor_text(page)
    page.click("button[aria-label='remove operation 2 of step 1']")
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(1)
    assert "drain:" not in editor_text(page) and editor_text(page).startswith(SCENARIO)
    snap(page, "editor-changes-panel")

    run_id = start_run(page)  # saves the new version first
    panel = page.locator("#timeline-panel")
    row = panel.locator("#steps-summary tr.step-row[data-step='1']")
    expect(row.locator("td.created")).to_have_text("3")
    expect(row.locator("td.placed")).to_have_text("3")
    expect(row.locator("td.pending")).to_have_text("0")
    expect(row.locator("td.blocked")).to_have_text("—")
    expect(panel.locator("li.step-heading .text")).to_have_text([
        "step 0 — scenario: 2 created, 2 placed, 0 pending",
        "step 1 — scale web to 5: 3 created, 3 placed, 0 pending"])

    row.locator(".step-cluster-button").click()
    cluster = page.locator("#step-cluster")
    expect(cluster.locator(".cluster-body")).to_be_visible()
    expect(cluster.locator(".pod.mark-new")).to_have_count(3)
    expect(cluster.locator(".pod:not(.mark-new)")).to_have_count(2)
    snap(page, "run-step-cluster")

    # A link to the step opens the cluster at its end, read-only, without a login.
    row.locator(".step-share-button").click()
    expect(page.locator("#step-share-url")).to_have_value(re.compile(r"/share/"))
    url = page.locator("#step-share-url").input_value()
    shared = fresh_page()
    shared.goto(url)
    expect(shared.locator("#step-cluster .pod.mark-new")).to_have_count(3, timeout=30_000)
    expect(shared.locator("#steps-summary tr.step-row[data-step='1'].current")).to_have_count(1)

    # The cluster page offers the end of each step too (?step=K), drawn from the same server answer.
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/?version=2&run={run_id}&step=1")
    expect(page.locator("#cluster-root .pod.mark-new")).to_have_count(3)
    expect(page.locator("#step-select")).to_have_value("1")
    page.select_option("#step-select", "0")
    expect(page.locator("#cluster-root")).to_have_attribute("data-step", "0")
    expect(page.locator("#cluster-root .pod.mark-new")).to_have_count(2)


CHANGES_DOC = """async ([text]) => {
    const m = await import("/static/js/changesdoc.js");
    const read = m.readChanges(text);
    const added = m.writeSteps(text, read.changes, [{ name: "lose zone a", operations: [m.operation("deleteNodes", { label: "zone=a" })] },
                                                   { operations: [m.operation("addNodes", { node: "n2", count: "2", prefix: "b-" })] }]);
    const again = m.readChanges(added);
    const removed = m.writeSteps(added, again.changes, []);
    const twice = m.readChanges(added + "---\\nkind: Changes\\nsteps: []\\n");
    return { workloads: read.workloads, labels: read.labels, added, steps: again.changes.steps.map((s) => s.operations.map(m.describeOperation)),
             removed, twice: twice.error };
}"""


def test_the_changes_document_is_written_alone_and_removed_with_its_last_step(page):
    page.goto(page.base_url + "/")
    out = page.evaluate(CHANGES_DOC, [SCENARIO])
    assert out["workloads"] == [{"kind": "Deployment", "namespace": "default", "name": "web", "replicas": 2}]
    assert ["zone", "a"] in out["labels"] and ["kubernetes.io/hostname", "n3"] in out["labels"]
    assert out["added"].startswith(SCENARIO) and "kind: Changes" in out["added"][len(SCENARIO):]
    assert out["steps"] == [["lose the nodes labelled zone=a"], ["add 2 node(s) like n2 (b-1…)"]]
    assert out["removed"] == SCENARIO
    assert out["twice"] == "The text holds 2 Changes documents; one per scenario"


REPLACE_IN_EDITOR = """async ([before, after]) => {
    const { EditorView } = await import("/static/vendor/codemirror/codemirror.mjs");
    const view = EditorView.findFromDOM(document.querySelector(".code-editor .cm-editor"));
    const from = view.state.doc.toString().indexOf(before);
    view.dispatch({ changes: { from, to: from + before.length, insert: after } });
}"""


def test_editing_the_changes_document_in_the_yaml_updates_the_panel(page):
    text = SCENARIO + "---\nkind: Changes\napiVersion: schedlab.io/v1alpha1\nsteps:\n- operations:\n  - cordon: {node: n3}\n"
    created = api_post(page, "/api/scenarios", {"name": "hand-written step", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    page.click("#tab-changes")
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["cordon n3✕"])
    page.evaluate(REPLACE_IN_EDITOR, ["cordon: {node: n3}", "uncordon: {node: n1}"])
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["uncordon n1✕"])
    page.evaluate(REPLACE_IN_EDITOR, ["steps:", "steps: [oops"])
    expect(page.locator("#changes-error")).to_contain_text("The Changes document does not parse")
