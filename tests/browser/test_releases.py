"""Releases in the browser (issue 48): an examples/ file imported, "What changes if we upgrade?" from the
release the dump says (v1.35, the default: it says nothing) to v1.36 on the long-work worker, and the
result naming NodeResourcesBalancedAllocation's v1.36 formula as the cause; the editor's release
selector (a refused gate named under it) changing the release a run's header says; a fleet check of
two scenarios filling in its table."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import REPO
from tests.browser.helpers import api_post, create_from_demo
from tests.webui.upgrade_support import MOVES_ON_UPGRADE, said_to_run

pytestmark = pytest.mark.browser
ANSWER_MS = 180_000  # both releases' runs and one per release change, on the one long-work worker
PREEMPTION = REPO / "examples" / "preemption.yaml"


def test_what_changes_if_we_upgrade_names_the_balanced_allocation_change(page, fresh_page, snap):
    page.goto(page.base_url + "/")
    page.locator("#import-file").set_input_files(str(PREEMPTION))
    page.locator("#import-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(page.locator("#validity")).to_contain_text("valid", timeout=30_000)
    # The dump says nothing of its release: the default, said as such.
    expect(page.locator("#editor-release")).to_contain_text("v1.35.4")
    expect(page.locator("#editor-release")).to_contain_text("does not say which release")
    expect(page.locator("#upgrade-from")).to_have_value("v1.35")
    expect(page.locator("#upgrade-to")).to_have_value("v1.36")  # the next newer supported release

    page.locator("#upgrade-button").click()
    page.wait_for_url(re.compile(r"/upgrades/\d+/$"))
    root = page.locator("#upgrade-root")
    expect(root).to_have_attribute("data-status", "succeeded", timeout=ANSWER_MS)
    expect(page.locator(".upgrade-summary")).to_contain_text("Upgrading v1.35.4 → v1.36.3")
    expect(page.locator(".upgrade-summary")).to_contain_text("scored differently")
    big = page.locator("table.upgrade-pods tr[data-pod='default/big']")
    expect(big.locator(".upgrade-plugins")).to_contain_text("NodeResourcesBalancedAllocation")
    expect(big.locator(".upgrade-causes")).to_contain_text("balanced_allocation_scores_the_change")
    expect(big.locator(".upgrade-causes")).to_contain_text("kubernetes#135573")
    change = page.locator(".upgrade-changes li[data-change='balanced_allocation_scores_the_change']")
    expect(change).to_contain_text("50 + (50 + score with the pod - score without it) / 2")
    expect(page.locator(".upgrade-quiet")).to_contain_text("No effect on this cluster")
    expect(page.locator("#upgrade-from-release")).to_contain_text("v1.35.4")
    snap(page, "upgrade-result", full_page=True)

    # A read-only link for someone else: the same answer, no cancel or run buttons of theirs.
    page.locator("#upgrade-share").click()
    expect(page.locator("#upgrade-share-url")).to_have_value(re.compile(r"/share/"), timeout=30_000)
    link = page.locator("#upgrade-share-url").input_value()
    other = fresh_page()
    other.goto(link)
    other.wait_for_url(re.compile(r"/upgrades/\d+/\?token="))
    expect(other.locator(".readonly-banner")).to_contain_text("read-only")
    expect(other.locator(".upgrade-summary")).to_contain_text("Upgrading v1.35.4 → v1.36.3", timeout=30_000)
    expect(other.locator("#upgrade-share")).to_have_count(0)

    # Either side as a normal run: the new release's run says it in its header.
    page.locator("#upgrade-open-new").click()
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    expect(page.locator("#run-release")).to_contain_text("v1.36.3")


def test_the_release_selector_changes_the_release_a_run_is_replayed_as(page, snap):
    create_from_demo(page)
    expect(page.locator("#editor-release")).to_contain_text("v1.35.4")
    selector = page.locator("#release-select")
    expect(selector.locator("option").first).to_have_text(re.compile(r"^as the dump says \(it does not say: v1\.35"))
    expect(selector.locator("option").nth(1)).to_have_text(re.compile(r"^v1\.36 \(v1\.36\.3\)"))  # newest first

    page.locator("#feature-gates").fill("NoSuchGate=true")
    page.locator("#feature-gates").press("Enter")
    page.locator("#feature-gates").blur()
    expect(page.locator("#release-error")).to_contain_text("unrecognized feature gate: NoSuchGate")
    page.locator("#feature-gates").fill("")
    page.locator("#feature-gates").blur()
    expect(page.locator("#release-error")).to_be_hidden()

    selector.select_option("v1.34")
    expect(page.locator("#editor-release")).to_contain_text("v1.34.9")
    expect(page.locator("#editor-release")).to_contain_text("asked for")
    snap(page, "editor-release")
    page.click("#run-button")
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    header = page.locator("#run-release")
    expect(header).to_contain_text("v1.34.9")
    expect(header).to_contain_text("replayed as kube-scheduler v1.34.9 (asked for)")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    snap(page, "run-release")
    page.locator("#run-upgrade").click()  # from this run's release to the next newer one
    expect(page.locator("#upgrade-dialog #upgrade-from")).to_have_value("v1.34")
    expect(page.locator("#upgrade-dialog #upgrade-to")).to_have_value("v1.35")
    page.locator("#upgrade-dialog button", has_text="Close").click()

    # The choice is the run's: the scenario's own text says nothing of it, and a reload keeps the selector.
    page.go_back()
    expect(page.locator("#release-select")).to_have_value("v1.34")
    expect(page.locator("#editor-release")).to_contain_text("v1.34.9")
    selector.select_option("")
    expect(page.locator("#editor-release")).to_contain_text("v1.35.4")


def test_a_fleet_check_fills_its_table_in_as_each_scenario_s_comparison_finishes(page, snap):
    moves = api_post(page, "/api/scenarios", {"name": "moves on upgrade", "text": MOVES_ON_UPGRADE})
    newest = api_post(
        page, "/api/scenarios", {"name": "already newest", "text": said_to_run(MOVES_ON_UPGRADE, "v1.36.2")}
    )
    page.goto(page.base_url + "/")
    for scenario in (moves, newest):
        page.locator(f"input.scenario-select[data-id='{scenario['id']}']").check()
    button = page.locator("#fleet-check")
    expect(button).to_have_text("Check upgrade to v1.36 (2 selected)")
    button.click()
    page.wait_for_url(re.compile(r"/upgrades/fleet/\d+/$"))
    expect(page.locator("#fleet-root")).to_have_attribute("data-finished", "true", timeout=ANSWER_MS)
    row = page.locator(f"#fleet-table tr[data-scenario='{moves['id']}']")
    expect(row).to_have_attribute("data-status", "succeeded")
    expect(row.locator(".fleet-release")).to_contain_text("v1.35.4")
    expect(row.locator(".fleet-elsewhere")).to_have_text("1")
    expect(row.locator(".fleet-rescored")).to_have_text("1")
    expect(row.locator(".fleet-causes")).to_contain_text("balanced_allocation_scores_the_change")
    skipped = page.locator(f"#fleet-table tr[data-scenario='{newest['id']}']")
    expect(skipped).to_have_attribute("data-status", "skipped")
    expect(skipped.locator(".fleet-release")).to_contain_text("serverVersion v1.36.2")
    snap(page, "upgrade-fleet", full_page=True)
    page.reload()  # the check is its URL: it survives a reload
    expect(row.locator(".fleet-elsewhere")).to_have_text("1")
    page.goto(page.base_url + "/")
    expect(page.locator("#fleet-list")).to_contain_text("to v1.36 · 2 scenario(s)")


# A v1.33 dump whose pod has a claim: that release has DynamicResourceAllocation off by default.
CLAIMING_V133 = """apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  nodeInfo: {kubeletVersion: v1.33.13}
---
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: gpus, namespace: default}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: default}
spec:
  containers: [{name: c, image: pause, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimName: gpus}]
"""


def test_a_dump_whose_pods_have_claims_where_dra_is_off_turns_it_on_in_one_click(page):
    page.goto(page.base_url + "/")
    scenario = api_post(page, "/api/scenarios", {"name": "v1.33 with claims", "text": CLAIMING_V133})
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/")
    finding = page.locator("#finding-list > li[data-code=dra-off]")
    expect(finding).to_contain_text("DynamicResourceAllocation is off in v1.33")
    page.click("#fix-dra-on")
    expect(page.locator("#feature-gates")).to_have_value("DynamicResourceAllocation=true")
    expect(page.locator("#editor-release")).to_contain_text("DynamicResourceAllocation=true")
    expect(finding).to_have_count(0)
    expect(page.locator("#save-status")).not_to_contain_text("version 2")  # the text is not changed for it
