"""Runs with steps in the UI: the editor's Changes panel writes the scenario's Changes document (one
source of truth with the YAML), the run view groups its timeline by step with each step's summary,
the cluster at the end of a step marks what moved, and a link opens that step."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from pathlib import Path

from tests.browser.helpers import api_post, editor_text, expect_editor_text, start_run

pytestmark = pytest.mark.browser

NODES = [
    f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, zone: {zone}}}}}\n"
    f'status: {{allocatable: {{cpu: "2", memory: 8Gi, pods: "110"}}}}\n'
    for name, zone in (("n1", "a"), ("n2", "b"), ("n3", "a"))
]
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
    expect(row.locator("td.created .count")).to_have_text("3")
    expect(row.locator("td.placed .count")).to_have_text("3")
    expect(row.locator("td.pending .count")).to_have_text("0")
    expect(row.locator("td.succeeded .count")).to_have_text("0")
    expect(row.locator("td.blocked")).to_have_text("—")
    # A count opens to the pods' names.
    expect(row.locator("td.created li")).to_have_count(3)
    expect(row.locator("td.created li").first).not_to_be_visible()
    row.locator("td.created summary").click()
    expect(row.locator("td.created li").first).to_be_visible()
    expect(row.locator("td.created li").first).to_have_text(re.compile(r"^default/web-[0-9a-f]{10}-\d+$"))
    expect(panel.locator("tr.rollout-row")).to_have_count(0)  # a scale is no rollout
    expect(panel.locator("li.step-heading .text")).to_have_text(
        ["step 0 — scenario: 2 created, 2 placed, 0 pending", "step 1 — scale web to 5: 3 created, 3 placed, 0 pending"]
    )

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
    # Without a step asked for, the run's cluster is its last step's end (the end of the run): the run's
    # placements drawn over the scenario as written would leave out the pods its steps created.
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/?version=2&run={run_id}")
    expect(page.locator("#step-select")).to_have_value("1")
    expect(page.locator("#step-select option")).to_have_text(
        ["at the end of step 0 — scenario", "at the end of step 1 — scale web to 5 (the end of the run)"]
    )
    expect(page.locator("#cluster-root")).to_have_attribute("data-step", "1")
    expect(page.locator("#cluster-root .pod.mark-new")).to_have_count(3)


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
    assert out["added"].startswith(SCENARIO) and "kind: Changes" in out["added"][len(SCENARIO) :]
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
    text = (
        SCENARIO
        + "---\nkind: Changes\napiVersion: schedlab.io/v1alpha1\nsteps:\n- operations:\n  - cordon: {node: n3}\n"
    )
    created = api_post(page, "/api/scenarios", {"name": "hand-written step", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    page.click("#tab-changes")
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["cordon n3✕"])
    page.evaluate(REPLACE_IN_EDITOR, ["cordon: {node: n3}", "uncordon: {node: n1}"])
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["uncordon n1✕"])
    page.evaluate(REPLACE_IN_EDITOR, ["steps:", "steps: [oops"])
    expect(page.locator("#changes-error")).to_contain_text("The Changes document does not parse")


def test_tabs_opened_before_the_scenario_loads_are_drawn_once_it_has(page):
    """A busy server: the Changes and Tables tabs (and the release's validation) are asked for
    before the scenario's text arrives; nothing fails (the page_errors fixture sees every page
    error) and both are drawn once it comes."""
    text = (
        SCENARIO
        + "---\nkind: Changes\napiVersion: schedlab.io/v1alpha1\nsteps:\n- operations:\n  - cordon: {node: n3}\n"
    )
    created = api_post(page, "/api/scenarios", {"name": "slow to load", "text": text})
    held = []
    page.route(re.compile(rf"/api/scenarios/{created['id']}$"), lambda route: held.append(route))
    page.goto(f"{page.base_url}/scenarios/{created['id']}/", wait_until="domcontentloaded")
    while not held:  # the page has asked for its scenario: the answer is held back
        page.wait_for_timeout(50)
    page.click("#tab-tables")
    page.click("#tab-changes")
    held[0].continue_()
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(["cordon n3✕"])
    page.click("#tab-tables")
    expect(page.locator("#tables")).to_contain_text("n3")


JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: default}
spec:
  parallelism: 1
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers: [{name: work, image: busybox, resources: {requests: {cpu: 100m}}}]
"""
WITH_JOB = SCENARIO + "---\n" + JOB


def _add(page, verb: str, fill: dict[str, str] | None = None, select: dict[str, str] | None = None) -> None:
    page.select_option("#changes-verb", verb)
    for selector, value in (select or {}).items():
        page.select_option(selector, value)
    for selector, value in (fill or {}).items():
        page.fill(selector, value)
    page.click("#changes-add")


def test_every_operation_has_a_form_and_a_wrong_value_is_named_without_losing_what_was_typed(page, snap):
    created = api_post(page, "/api/scenarios", {"name": "every operation", "text": WITH_JOB})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    page.click("#tab-changes")
    expect(page.locator("#changes-verb option")).to_have_text(
        [
            "scale a workload to",
            "drain a node",
            "cordon a node",
            "uncordon a node",
            "add nodes like",
            "lose a node",
            "lose the nodes labelled",
            "roll out (set) a workload's template",
            "patch an object",
            "create an object",
            "delete an object",
            "complete a Job",
        ]
    )

    # set: a rollout of web's template; its one container is chosen for it.
    page.select_option("#changes-verb", "set")
    expect(page.locator("#changes-rollout")).to_have_value("Deployment/default/web")
    expect(page.locator("#changes-container")).to_have_value("web")
    expect(page.locator("#changes-patch")).to_be_hidden()
    page.fill("#changes-image", 'nginx:1.28 # "quoted" <b>')
    page.fill("#changes-requests", "cpu=1, memory=1Gi")
    page.fill("#changes-tolerations", "- {key: dedicated, operator: Exists}")
    page.fill("#changes-name", "roll web")
    page.click("#changes-add")
    text = expect_editor_text(page, re.compile(r"- set:"))
    changes = text[text.index("kind: Changes") :]
    assert (
        "name: roll web" in changes
        and "container: web" in changes
        and "cpu: '1'" in changes
        and "key: dedicated" in changes
    )
    # The user's text is written as a YAML string (quoted), drawn as text.
    assert """image: nginx:1.28 # "quoted" <b>""" in changes or """image: 'nginx:1.28 # "quoted" <b>'""" in changes
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(
        [
            re.compile(
                r'^roll out Deployment default/web \(container web\): set image nginx:1\.28 # "quoted" <b>; requests cpu=1, memory=1Gi; tolerations'
            )
        ]
    )
    expect(page.locator("#changes-steps b")).to_have_count(0)

    # A tolerations list that is a mapping: named, nothing written, everything typed still there.
    page.fill("#changes-image", "")
    page.fill("#changes-requests", "")
    page.fill("#changes-tolerations", "{key: dedicated}")
    page.click("#changes-add")
    expect(page.locator("#changes-form-error")).to_have_text(
        "set.tolerations: expected a list (YAML or JSON), got a mapping"
    )
    expect(page.locator("#changes-tolerations")).to_have_value("{key: dedicated}")
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(1)
    snap(page, "editor-changes-set")
    page.fill("#changes-tolerations", "")

    # patch: a merge patch that does not parse names its field; fixed, it is written into step 1.
    page.select_option("#changes-target", "1")
    page.select_option("#changes-verb", "patch")
    page.select_option("#changes-patch-target", "Node//n2")
    page.fill("#changes-patch", "metadata: {labels: {zone: c")
    page.click("#changes-add")
    expect(page.locator("#changes-form-error")).to_contain_text("patch.patch: does not parse as YAML or JSON")
    expect(page.locator("#changes-patch")).to_have_value("metadata: {labels: {zone: c")
    expect(page.locator("#changes-patch-target")).to_have_value("Node//n2")
    page.fill("#changes-patch", '{"metadata": {"labels": {"zone": "c"}}}')
    page.click("#changes-add")
    expect(page.locator("#changes-form-error")).to_have_count(0)
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(2)

    # create, delete, complete: each into a new step.
    page.select_option("#changes-target", "new")
    _add(
        page,
        "create",
        fill={
            "#changes-manifest": "apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: default}\n"
            "spec:\n  containers: [{name: c, image: nginx}]\n"
        },
    )
    _add(page, "delete", select={"#changes-object": "Pod/default/extra"})  # what an earlier step creates is offered
    _add(page, "complete", select={"#changes-job": "Job/default/batch"})
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(
        [
            re.compile("^roll out Deployment default/web"),
            re.compile(r'^patch Node n2: \{"metadata":\{"labels":\{"zone":"c"\}\}\}'),
            "create Pod default/extra✕",
            "delete Pod default/extra✕",
            "complete Job default/batch✕",
        ]
    )
    text = editor_text(page)
    assert text.startswith(WITH_JOB)
    changes = text[text.index("kind: Changes") :]
    for written in ("- patch:", "zone: c", "- create:", "name: extra", "- delete:", "- complete:", "name: batch"):
        assert written in changes, written
    # A create without a name is refused at its field.
    _add(page, "create", fill={"#changes-manifest": "kind: Pod\nspec: {}\n"})
    expect(page.locator("#changes-form-error")).to_have_text("create.metadata.name: Required value")
    # The server checks the whole document: valid.
    expect(page.locator("#validity")).to_contain_text("✓ valid")


ROLLOUT_STUCK = (Path(__file__).resolve().parents[2] / "examples" / "rollout_stuck.yaml").read_text()


def test_a_rollout_added_in_the_panel_runs_stuck_and_the_step_names_its_pending_pods_and_why(page, snap):
    # The example without its Changes document: the rollout is made in the panel.
    text = ROLLOUT_STUCK[: ROLLOUT_STUCK.index("---\napiVersion: schedlab.io/v1alpha1\nkind: Changes")] + "\n"
    created = api_post(page, "/api/scenarios", {"name": "rollout stuck", "text": text})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    page.click("#tab-changes")
    expect(page.locator("#changes-empty")).to_be_visible()
    page.select_option("#changes-verb", "set")
    expect(page.locator("#changes-rollout")).to_have_value("Deployment/default/web")
    page.fill("#changes-name", "raise web's memory to 2Gi")
    page.fill("#changes-requests", "memory=2Gi")
    page.fill("#changes-limits", "memory=2Gi")
    page.click("#changes-add")
    expect(page.locator("#changes-steps li.changes-op")).to_have_text(
        ["roll out Deployment default/web (container web): set requests memory=2Gi; limits memory=2Gi✕"]
    )
    expect(page.locator("#validity")).to_contain_text("✓ valid")

    start_run(page)
    panel = page.locator("#timeline-panel")
    row = panel.locator("#steps-summary tr.step-row[data-step='1']")
    expect(row.locator("td.created .count")).to_have_text("1")
    expect(row.locator("td.pending .count")).to_have_text("1")
    # "succeeded" (the run ran to its end) is not the whole word: the stuck rollout is said beside it.
    expect(page.locator("#run-stuck")).to_contain_text(
        "The run ended with 1 rollout(s) stuck: Deployment default/web at the end of step 1 "
        '(Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...)'
    )
    rollout = panel.locator("tr.rollout-row[data-step='1']")
    expect(rollout).to_have_count(1)
    expect(rollout).to_have_attribute("data-workload", "default/web")
    expect(rollout.locator(".rollout-state")).to_have_text("✗ stuck")
    expect(rollout.locator(".rollout-count")).to_have_text(["new 1", "old 3", "available 3", "desired 3"])
    expect(rollout.locator(".rollout-status")).to_have_text(
        'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
    )
    pending = rollout.locator("li.rollout-pending-pod")
    expect(pending).to_have_count(1)
    expect(pending.locator("strong")).to_have_text(re.compile(r"^default/web-[0-9a-f]{10}-1$"))
    expect(pending.locator(".why")).to_contain_text("0/3 nodes are available: 3 Insufficient memory.")
    pod = pending.locator("strong").text_content()
    row.locator("td.pending summary").click()
    expect(row.locator("td.pending li strong")).to_have_text([pod])
    expect(row.locator("td.pending li .why")).to_contain_text(["0/3 nodes are available: 3 Insufficient memory."])
    snap(page, "run-rollout-stuck")

    # The cluster at the step's end draws the new pod with the new template's labels (it was unlabelled).
    row.locator(".step-cluster-button").click()
    chip = page.locator(f"#step-cluster .pod.mark-new[data-pod='{pod}']")
    expect(chip).to_have_count(1)
    expect(chip).to_have_attribute("title", re.compile(r"\napp=web\n"))
    page.select_option("#step-cluster #color-key", "pod-template-hash")
    expect(chip).to_have_attribute("title", re.compile(r"\npod-template-hash=" + pod.split("-")[1] + r"\n"))


OPERATIONS = """async ([text]) => {
    const m = await import("/static/js/changesdoc.js");
    const read = m.readChanges(text);
    const attempt = (verb, fields) => { try { return m.operation(verb, fields); } catch (e) { return { error: e.message, field: e.field, typed: e instanceof m.OperationError }; } };
    const set = attempt("set", { rollout: "Deployment/default/web", container: "", requests: "{memory: 2Gi, cpu: null}", nodeSelector: "zone=a" });
    const written = m.writeSteps(text, read.changes, [{ operations: [set] }]);
    return {
        objects: read.objects.map((o) => [o.ref, o.containers]),
        set, said: m.describeOperation(set), again: m.readChanges(written).changes.steps[0].operations[0],
        emptySet: attempt("set", { rollout: "Deployment/default/web", image: "  " }),
        notARollout: attempt("set", { rollout: "Job/default/batch", image: "x" }),
        pairs: attempt("set", { rollout: "Deployment/default/web", limits: "memory" }),
        patchList: attempt("patch", { patchTarget: "Deployment/default/web", patch: "[1, 2]" }),
        patchEmpty: attempt("patch", { patchTarget: "Deployment/default/web", patch: "{}" }),
        create: attempt("create", { manifest: '{"kind": "Node", "metadata": {"name": "n9"}}' }),
        createKind: attempt("create", { manifest: "metadata: {name: x}" }),
        noTarget: attempt("delete", { object: "" }),
        complete: attempt("complete", { job: "Job/default/batch" }),
    };
}"""


def test_each_forms_values_make_the_operation_the_engine_reads_or_an_error_naming_the_field(page):
    page.goto(page.base_url + "/")
    out = page.evaluate(OPERATIONS, [WITH_JOB])
    assert ["Deployment/default/web", ["web"]] in out["objects"] and ["Node//n1", []] in out["objects"]
    assert ["Job/default/batch", ["work"]] in out["objects"]
    assert out["set"] == {
        "set": {
            "kind": "Deployment",
            "namespace": "default",
            "name": "web",
            "requests": {"memory": "2Gi", "cpu": None},
            "nodeSelector": {"zone": "a"},
        }
    }
    assert out["again"] == out["set"]  # what is written reads back the same
    assert out["said"] == "roll out Deployment default/web: set requests memory=2Gi, cpu=(removed); nodeSelector zone=a"
    assert out["emptySet"] == {
        "error": "set: Required value: at least one of image, requests, limits, nodeSelector, tolerations, affinity",
        "field": "set",
        "typed": True,
    }
    assert out["notARollout"]["field"] == "set.kind"
    assert out["pairs"]["field"] == "set.limits" and '"memory" is not key=value' in out["pairs"]["error"]
    assert out["patchList"]["error"] == "patch.patch: expected a mapping (YAML or JSON), got a list"
    assert out["patchEmpty"]["error"] == "patch.patch: an empty patch changes nothing"
    assert out["create"] == {"create": {"kind": "Node", "metadata": {"name": "n9"}}}
    assert out["createKind"] == {"error": "create.kind: Required value", "field": "create.kind", "typed": True}
    assert out["noTarget"]["error"] == "delete.name: Required value: choose an object"
    assert out["complete"] == {"complete": {"kind": "Job", "namespace": "default", "name": "batch"}}


STATEFUL_AND_DAEMON_SETS = "---\n".join(
    NODES
    + [
        """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  updateStrategy: {rollingUpdate: {partition: 1}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, resources: {requests: {cpu: 250m}}}]
""",
        """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: fluentd, resources: {requests: {cpu: 100m}}}]
""",
        """apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: big, image: pause, resources: {requests: {cpu: "3"}}}]
""",
        """apiVersion: schedlab.io/v1alpha1
kind: Changes
steps:
- name: roll out db and agent
  operations:
  - set: {kind: StatefulSet, name: db, image: postgres:17}
  - set: {kind: DaemonSet, name: agent, image: fluentd:2}
""",
    ]
)


def test_stateful_and_daemon_set_rollouts_have_their_rows_and_a_pending_pod_outside_them_its_why(page):
    """A partitioned StatefulSet rollout and a DaemonSet surge rollout each get a rollout row with
    kubectl's words; a pod no rollout made, still pending, is listed with its FailedScheduling message."""
    created = api_post(page, "/api/scenarios", {"name": "sets roll out", "text": STATEFUL_AND_DAEMON_SETS})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("✓ valid")
    start_run(page)
    panel = page.locator("#timeline-panel")
    stateful = panel.locator("tr.rollout-row[data-step='1'][data-workload='default/db']")
    expect(stateful.locator(".rollout-head strong")).to_have_text("rollout of StatefulSet default/db")
    expect(stateful.locator(".rollout-state")).to_have_text("✓ complete")
    expect(stateful.locator(".rollout-head")).to_contain_text("partition 1")
    expect(stateful.locator(".rollout-status")).to_have_text(
        "partitioned roll out complete: 1 new pods have been updated..."
    )
    daemon = panel.locator("tr.rollout-row[data-step='1'][data-workload='default/agent']")
    expect(daemon.locator(".rollout-head strong")).to_have_text("rollout of DaemonSet default/agent")
    expect(daemon.locator(".rollout-count")).to_have_text(["new 3", "old 0", "available 3", "desired 3"])
    expect(daemon.locator(".rollout-status")).to_have_text('daemon set "agent" successfully rolled out')
    row = panel.locator("#steps-summary tr.step-row[data-step='1']")
    expect(row.locator("td.pending .count")).to_have_text("1")
    row.locator("td.pending summary").click()
    expect(row.locator("td.pending li strong")).to_have_text(["default/big"])
    expect(row.locator("td.pending li .why")).to_contain_text(["0/3 nodes are available: 3 Insufficient cpu."])


def test_a_second_add_nodes_with_the_form_s_defaults_gets_names_of_its_own(page):
    """The second "add nodes like" with the default prefix made names the first had made (issue 51)."""
    created = api_post(page, "/api/scenarios", {"name": "grow", "text": SCENARIO})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    page.click("#tab-changes")
    _add(page, "addNodes", select={"#changes-node": "n2"})
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(1)
    page.select_option("#changes-verb", "addNodes")
    expect(page.locator("#changes-prefix")).to_have_value("new-node-2-")
    page.select_option("#changes-node", "n2")
    page.click("#changes-add")
    expect(page.locator("#changes-steps li.changes-op")).to_have_count(2)
    text = editor_text(page)
    assert "prefix: new-node-\n" in text and "prefix: new-node-2-\n" in text
    expect(page.locator("#validity")).to_contain_text("✓ valid")
