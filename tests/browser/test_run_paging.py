"""A run too big to send whole (issue 50): the run view's timeline reads its entries a page at a time (next,
previous, "more", a pod's journey, a kind), and the cluster at the end of a step over 300 nodes is drawn a page
of nodes at a time with the step's counts — the browser never holds the whole story or the whole step."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, run_to_end

pytestmark = pytest.mark.browser

NODES = 320  # over the 300 a cluster is drawn whole below
REPLICAS = 150


def scenario() -> str:
    docs = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: node-{i}, labels: {{kubernetes.io/hostname: node-{i}, "
        f"zone: zone-{'abc'[i % 3]}}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 16Gi, pods: '110'}}}}"
        for i in range(NODES)
    ]
    docs.append(
        """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 100
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]"""
    )
    docs.append(
        f"""apiVersion: schedlab.io/v1alpha1
kind: Changes
steps:
- name: scale web to {REPLICAS}
  operations:
  - scale: {{kind: Deployment, namespace: default, name: web, replicas: {REPLICAS}}}"""
    )
    return "\n---\n".join(docs) + "\n"


def test_a_big_runs_timeline_and_step_cluster_are_read_a_page_at_a_time(page):
    page.goto(page.base_url + "/")
    created = api_post(page, "/api/scenarios", {"name": "paged", "text": scenario()})
    run = run_to_end(page, created["id"], timeout=120)
    assert run["status"] == "succeeded", run
    base = f"{page.base_url}/api/runs/{run['id']}/timeline"
    entries = page.request.get(f"{base}/summary").json()["counts"]["entries"]
    assert entries > 600, entries
    opened = page.request.get(f"{base}/entries?cycle=0&limit=200").json()["offset"]  # the page of the attempt shown

    page.goto(f"{page.base_url}/runs/{run['id']}/")
    panel = page.locator("#timeline-panel")
    counts = page.locator("#timeline-counts")
    drawn = panel.locator(".timeline-list > li:not(.timeline-more)")
    expect(counts).to_have_text(f"entries {opened + 1}–{opened + 200} of {entries}", timeout=30_000)
    expect(drawn).to_have_count(200)
    # Back to the first page, then forward a page, then 200 more under it.
    for _ in range(opened // 200):
        page.click("#timeline-prev")
    expect(counts).to_have_text(f"entries 1–200 of {entries}")
    expect(page.locator("#timeline-prev")).to_be_disabled()
    page.click("#timeline-next")
    expect(counts).to_have_text(f"entries 201–400 of {entries}")
    expect(panel.locator("li.timeline-more")).to_contain_text(f"{entries - 400} more")
    page.click("#timeline-more")
    expect(counts).to_have_text(f"entries 201–600 of {entries}")
    expect(drawn).to_have_count(400)
    # A pod's journey, found by part of its name: the server's entries of the pods that match.
    pod = page.request.get(f"{base}/entries?kind=attempt&limit=1").json()["entries"][0]["item"]["pod"]
    journey = page.request.get(f"{base}/entries?pod={pod}").json()["matched"]
    page.fill("#journey-pod", pod)
    page.press("#journey-pod", "Enter")
    expect(counts).to_have_text(
        f"entries 1–{min(journey, 200)} of {journey} (of pods matching “{pod}”; {entries} in all)"
    )
    expect(drawn.locator(".text").first).to_contain_text(re.compile(r"step|" + re.escape(pod)))
    # Only the attempts, every pod.
    page.click("#timeline-every-pod")
    page.select_option("#timeline-kind", "attempt")
    attempts = page.request.get(f"{base}/summary").json()["counts"]["attempts"]
    expect(counts).to_have_text(f"entries 1–{min(attempts, 200)} of {attempts} (attempts; {entries} in all)")
    expect(panel.locator(".timeline-list > li.attempt")).to_have_count(min(attempts, 200))
    expect(panel.locator(".timeline-list > li:not(.attempt):not(.timeline-more)")).to_have_count(0)

    # The cluster at the end of the step: over 300 nodes, a page of 50 with the step's counts.
    step = panel.locator("tr.step-row[data-step='1']")
    step.locator(".step-cluster-button").click()
    cluster = page.locator("#step-cluster")
    expect(cluster.locator("#cluster-shown")).to_have_text(f"showing 50 of {NODES} nodes", timeout=30_000)
    expect(cluster.locator("#step-marks")).to_contain_text(f"{REPLICAS - 100} new")
    expect(cluster.locator("#cluster-counts")).to_have_text(f"{NODES} nodes · {REPLICAS} pods · 0 pending")
    expect(cluster.locator(".paged-nodes .node")).to_have_count(50)
    cluster.locator("#cluster-more").click()
    expect(cluster.locator("#cluster-shown")).to_have_text(f"showing 100 of {NODES} nodes")
    expect(cluster.locator(".paged-nodes .node")).to_have_count(100)
    cluster.locator("#cluster-search").fill("node-31")
    cluster.locator("#cluster-search").press("Enter")
    # node-31 and node-310 … node-319
    expect(cluster.locator("#cluster-shown")).to_contain_text("showing 11 of 11 nodes matching “node-31”")
    expect(cluster.locator(".paged-nodes .node[data-node='node-315']")).to_be_visible()
    # A pod the step created, found on its node by searching the node: drawn marked new (+).
    whole = page.request.get(f"{page.base_url}/api/runs/{run['id']}/steps/1/cluster?limit=500").json()
    new = next(p for p in whole["pods"] if p["mark"] == "new" and p["node"])
    cluster.locator("#cluster-search").fill(new["node"])
    cluster.locator("#cluster-search").press("Enter")
    expect(cluster.locator(f".pod.mark-new[data-pod='{new['pod']}']")).to_be_visible()
