"""The scenario editor in Chromium: CodeMirror (highlighting, folding, search, lint markers from the
server's problems, typing, Ctrl+S) and the paged Nodes & Pods tables with chips."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    api_post,
    create_from_demo,
    editor_text,
    expect_editor_text,
    set_editor_text,
    table_rows,
)

pytestmark = pytest.mark.browser


def cluster_text(nodes: int, pods: int) -> str:
    docs = []
    for i in range(nodes):
        docs.append(f"""apiVersion: v1
kind: Node
metadata:
  name: node-{i:03d}
  labels: {{kubernetes.io/hostname: node-{i:03d}, zone: zone-{"abc"[i % 3]}, pool: pool-{i % 4}, disk: ssd}}
spec:
  taints: [{{key: dedicated, value: team-{i % 2}, effect: NoSchedule}}, {{key: spot, effect: PreferNoSchedule}}]
status: {{allocatable: {{cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "2"}}}}""")
    for i in range(pods):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, labels: {{app: web, tier: front}}}}
spec:
  priority: {100 + i}
  containers:
  - {{name: app, resources: {{requests: {{cpu: 500m, memory: 1Gi, nvidia.com/gpu: "1"}}}}}}
  - {{name: sidecar, resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}}}""")
    return "\n---\n".join(docs) + "\n"


def open_editor(page, text: str) -> int:
    created = api_post(page, "/api/scenarios", {"name": "editor", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    return created["id"]


def test_it_highlights_folds_and_searches_the_yaml(page):
    create_from_demo(page)
    editor = page.locator(".code-editor .cm-editor")
    expect(editor.locator(".cm-foldGutter")).to_be_visible()
    # Keys and values are told apart by the YAML grammar (differently styled spans).
    styled = page.evaluate(
        """() => new Set([...document.querySelectorAll('.cm-line span')].map((s) => getComputedStyle(s).color)).size"""
    )
    assert styled >= 2
    # Fold the first document's metadata block, then search.
    folds = editor.locator(".cm-foldGutter span[title='Fold line']")
    expect(folds.first).to_be_visible()
    folds.first.click()
    expect(editor.locator(".cm-foldPlaceholder")).to_have_count(1)
    page.locator("#yaml-text").click()
    page.keyboard.press("Control+f")
    search = page.locator(".cm-search input[name=search]")
    expect(search).to_be_focused()
    page.keyboard.type("maxSkew")
    page.keyboard.press("Enter")
    expect(page.locator(".cm-searchMatch-selected")).to_have_count(1)
    selected = page.evaluate("""async () => {
        const { EditorView } = await import("/static/vendor/codemirror/codemirror.mjs");
        const view = EditorView.findFromDOM(document.querySelector(".code-editor .cm-editor"));
        const range = view.state.selection.main;
        return view.state.sliceDoc(range.from, range.to);
    }""")
    assert selected == "maxSkew"


def test_typing_marks_the_text_unsaved_and_ctrl_s_saves_a_version(page):
    create_from_demo(page)
    page.locator("#yaml-text").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# typed by hand\n")
    expect(page.locator("#save-status")).to_contain_text("Unsaved changes")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    page.reload()
    expect_editor_text(page, re.compile(r"# typed by hand\n$"))


def test_a_server_problem_becomes_a_lint_marker_at_its_line_with_the_message(page):
    create_from_demo(page)
    text = editor_text(page)
    line = text.splitlines().index("  - maxSkew: 1") + 1
    page.locator("#error-list").wait_for(state="attached")
    # Type the bad value in place, as a person would: select the "1" and type "0".
    page.evaluate(
        """async (line) => {
        const { EditorView } = await import("/static/vendor/codemirror/codemirror.mjs");
        const view = EditorView.findFromDOM(document.querySelector(".code-editor .cm-editor"));
        const at = view.state.doc.line(line);
        view.dispatch({ selection: { anchor: at.to - 1, head: at.to }, scrollIntoView: true });
        view.focus();
    }""",
        line,
    )
    page.keyboard.type("0")
    marker = page.locator(".code-editor .cm-lint-marker-error")
    expect(marker).to_have_count(1)
    expect(page.locator(f".error-line[data-line='{line}'] .inline-error")).to_contain_text("must be between 1 and")
    expect(page.locator("#validity")).to_have_text("✗ 1 problem(s)")
    marker.hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("maxSkew")
    page.keyboard.press("Control+z")  # undo: the problem goes away with the next check
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    expect(marker).to_have_count(0)


def test_the_tables_are_paged_and_show_every_label_taint_request_and_priority(page):
    open_editor(page, cluster_text(120, 3))
    page.click("#tab-tables")
    expect(page.locator("#nodes-table tbody tr")).to_have_count(50)
    expect(page.locator("#nodes-pager")).to_contain_text("rows 1–50 of 120")
    first = page.locator("#nodes-table tbody tr").first
    expect(first.locator("ul.chips li.chip")).to_contain_text(
        [
            "kubernetes.io/hostname=node-000",
            "zone=zone-a",
            "pool=pool-0",
            "disk=ssd",
            "dedicated=team-0:NoSchedule",
            "spot:PreferNoSchedule",
            "cpu=8",
            "memory=32Gi",
            "pods=110",
            "nvidia.com/gpu=2",
        ]
    )
    first_page = table_rows(page, "#nodes-table")
    page.click("#nodes-pager [data-page=next]")
    expect(page.locator("#nodes-pager")).to_contain_text("rows 51–100 of 120")
    second_page = table_rows(page, "#nodes-table")
    assert len(second_page) == 50 and second_page[0] != first_page[0]  # the next page's nodes, not the first's
    expect(page.locator("#nodes-table tbody tr").first.locator("input.cell-input").first).to_have_value("node-050")
    page.fill("#nodes-pager input.page-input", "3")
    page.press("#nodes-pager input.page-input", "Enter")
    expect(page.locator("#nodes-table tbody tr")).to_have_count(20)
    expect(page.locator("#nodes-table tbody tr").first.locator("input.cell-input").first).to_have_value("node-100")

    # An edit on page 3 changes that node's document and keeps the page.
    labels = page.locator("[data-key='node-100-labels']")
    labels.fill("zone=zone-z")
    labels.press("Enter")
    expect(page.locator("#nodes-pager")).to_contain_text("rows 101–120 of 120")
    expect_editor_text(page, re.compile(r"name: node-100\n  labels:\n    zone: zone-z\n"))

    pod = page.locator("#pods-table tbody tr").first
    expect(pod.locator("ul.chips li.chip")).to_contain_text(
        [
            "app=web",
            "tier=front",
            "app: cpu=500m",
            "app: memory=1Gi",
            "app: nvidia.com/gpu=1",
            "sidecar: cpu=100m",
            "sidecar: memory=64Mi",
        ]
    )
    expect(pod.locator("[data-key='pod-0-priority']")).to_have_value("100")
    # The inputs look like inputs: a visible border on every editable cell.
    border = page.locator("[data-key='pod-0-priority']").evaluate(
        "el => getComputedStyle(el).borderTopStyle + ' ' + getComputedStyle(el).borderTopColor"
    )
    assert border.startswith("solid") and "0, 0, 0, 0" not in border


def test_the_node_filter_pages_its_matches(page):
    open_editor(page, cluster_text(120, 1))
    page.click("#tab-tables")
    page.fill("#node-filter", "pool-1")
    page.press("#node-filter", "Enter")
    expect(page.locator("#nodes-table tbody tr")).to_have_count(30)
    expect(page.locator("#nodes-pager")).to_have_count(0)  # 30 matches fit one page


def test_the_check_shows_its_progress_while_the_server_works(page):
    create_from_demo(page)
    release = []

    def slow_validate(route):
        release.append(route)  # answered below, once the progress line has been seen

    page.route("**/api/validate", slow_validate)
    page.locator("#yaml-text").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# a comment\n")
    expect(page.locator("#validity")).to_have_class(re.compile(r"\bchecking\b"))
    expect(page.locator("#validity")).to_contain_text(re.compile(r"checking \d+(\.\d)? KB on the server \(\d+\.\d s\)"))
    page.wait_for_timeout(100)
    release[0].continue_()
    expect(page.locator("#validity")).to_contain_text("✓ valid")


def test_the_check_says_what_the_scheduler_leaves_out(page):
    extra = """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default}
spec:
  schedulingGates: [{name: example.com/approval}]
  containers: [{name: app}]
"""
    open_editor(page, cluster_text(2, 1) + extra)
    notices = page.locator("#notice-list > li")
    expect(notices).to_have_count(2)
    expect(notices.nth(0)).to_have_text("ignored (the scheduler does not read them): 1 ConfigMap")
    gated = page.locator("#notice-list li[data-code=scheduling-gated]")
    expect(gated.locator("summary")).to_contain_text("1 pending pod(s) with scheduling gates")
    gated.locator("summary").click()
    expect(gated.locator(".notice-objects li")).to_have_text(["Pod default/gated"])


def test_a_cell_typed_wrong_is_written_as_typed_and_named_by_the_check(page):
    """ "abc" as a priority was written .nan (NaN) and a taint without an effect became NoSchedule in
    silence (issue 51 item 10): both are written as typed and the check names the field and line."""
    open_editor(page, cluster_text(1, 1))
    page.click("#tab-tables")
    priority = page.locator("[data-key='pod-0-priority']")
    priority.fill("abc")
    priority.press("Enter")
    expect_editor_text(page, re.compile(r"priority: abc\n"))
    taints = page.locator("[data-key='node-0-taints']")
    taints.fill("garbage")
    taints.press("Enter")
    expect_editor_text(page, re.compile(r"taints:\n\s+- key: garbage\nstatus:"))
    expect(page.locator("#validity")).to_contain_text("problem")
    problems = page.locator("#error-list")
    expect(problems).to_contain_text("spec.priority: expected an integer")
    expect(problems).to_contain_text("spec.taints[0].effect: Required value")


def test_a_rename_shows_at_once_and_keeps_the_version(page):
    scenario_id = open_editor(page, cluster_text(1, 1))
    page.fill("#scenario-name", "renamed cluster")
    page.keyboard.press("Control+s")
    expect(page.locator("#scenario-title")).to_have_text("renamed cluster")
    expect(page).to_have_title("renamed cluster · SchedLab")
    expect(page.locator("#notices")).to_contain_text("Renamed: still version 1.")
    versions = page.evaluate(f"fetch('/api/scenarios/{scenario_id}/versions').then((r) => r.json())")
    assert [v["number"] for v in versions] == [1]


def test_what_the_fetch_commands_wrote_is_added_from_the_findings(page):
    """A pod's claim is missing: the fetch line names it, and the file it writes is added as the next version."""
    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: db}\nspec:\n  containers: [{name: c, image: x}]\n"
        "  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n"
    )
    open_editor(page, text)
    expect(page.locator("#finding-list li[data-code=claims-absent]")).to_have_count(1)
    page.locator("#fetch-all summary").click()
    pvc = b"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n"
    page.set_input_files("#add-fetched", files=[{"name": "pvc.yaml", "mimeType": "application/yaml", "buffer": pvc}])
    expect(page.locator("#notices")).to_contain_text("Added pvc.yaml: saved version 2.")
    expect_editor_text(page, re.compile(r"# added from pvc.yaml\n(.|\n)*kind: PersistentVolumeClaim"))
    expect(page.locator("#finding-list li[data-code=claims-absent]")).to_have_count(0)


def test_versions_are_listed_with_what_each_changed_and_an_old_one_is_restored_by_saving_it(page):
    """Every save is a version, but the browser showed none (issue 51 item 4)."""
    first = cluster_text(1, 1)
    scenario_id = open_editor(page, first)
    second = first.replace("pool: pool-0", "pool: pool-9")
    page.evaluate(
        """([id, text]) => fetch(`/api/scenarios/${id}`, {method: 'PUT', headers: {'Content-Type': 'application/json',
        'X-CSRFToken': document.cookie.match(/csrftoken=([^;]+)/)[1]}, body: JSON.stringify({text})})""",
        [scenario_id, second],
    )
    page.reload()
    versions = page.locator("#versions li")
    expect(versions).to_have_count(2)
    expect(versions.nth(0)).to_contain_text("v2")
    expect(versions.nth(0).locator(".muted")).to_have_text("latest")
    versions.nth(0).locator(".version-diff-button").click()
    expect(page.locator("#version-diff")).to_contain_text(
        "+  labels: {kubernetes.io/hostname: node-000, zone: zone-a, pool: pool-9"
    )
    expect(page.locator("#version-diff")).to_contain_text(
        "-  labels: {kubernetes.io/hostname: node-000, zone: zone-a, pool: pool-0"
    )
    versions.nth(1).locator(".version-open").click()
    expect_editor_text(page, first)
    page.click("#save-button")
    expect(page.locator("#notices")).to_contain_text("Saved version 3.")
    expect(page.locator("#versions li")).to_have_count(3)


def test_a_scenario_over_the_editor_limit_is_edited_object_by_object(small_editor_page):
    """Issue 50, item 3: the server (SCHEDLAB_EDITOR_MAX_BYTES=2000) sends no text; the page says why,
    lists the objects, and an object's edit is saved as the next version with the rest unchanged."""
    page = small_editor_page
    text = cluster_text(nodes=4, pods=6)
    created = api_post(page, "/api/scenarios", {"name": "big", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    note = page.locator("#mode-note")
    expect(note).to_contain_text("(4 nodes, 6 pods): it is edited object by object")
    expect(note).to_contain_text("the raw text is for scenarios under 2 KB — download it to edit elsewhere")
    expect(page.locator("#tab-yaml")).to_have_text("Objects")
    expect(page.locator("#objects-summary")).to_contain_text("objects 1–10 of 10")
    page.fill("#objects-search", "web-3")
    rows = page.locator("#objects-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Pod")
    rows.first.locator(".object-open").click()
    expect(page.locator("#object-title")).to_contain_text("Pod web-3")
    expect(page.locator(".code-editor .cm-editor")).to_have_count(1)  # the object's, no whole text
    pod = editor_text(page)
    assert pod.startswith("apiVersion: v1\nkind: Pod\nmetadata: {name: web-3,") and "priority: 103" in pod
    set_editor_text(page, pod.replace("priority: 103", "priority: 999"))
    page.click("#object-save")
    expect(page.locator("#save-status")).to_have_text("Saved · version 2")
    expect(page.locator("#objects-summary")).to_contain_text("Version 2")
    expect(page.locator("#object-editor")).to_be_hidden()
    saved = page.request.get(f"{page.base_url}/api/scenarios/{created['id']}/versions/2").json()
    assert saved["text"] == text.replace("priority: 103", "priority: 999")
    expect(page.locator("#versions li[data-version='2']")).to_be_visible()
    expect(page.locator("#validity")).to_contain_text("valid", timeout=30_000)  # the whole check, from the background
