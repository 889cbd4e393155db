"""A pending GPU pod in the browser: the devices map, the Filter step's per-request explanation,
and a what-if suggestion for its claim that lets it in (DynamicResources, dynamicresources.go)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, open_step, start_run

pytestmark = pytest.mark.browser

PENDING_GPU = (Path(__file__).resolve().parents[1] / "fixtures" / "dra" / "pending_gpu.yaml").read_text()


def test_a_pending_gpu_pod_shows_its_devices_why_no_node_has_enough_and_a_smaller_claim_lets_it_in(page, snap):
    created = api_post(page, "/api/scenarios", {"name": "pending gpu", "text": PENDING_GPU})

    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/")
    section = page.locator("section.devices-by-node")
    expect(section.locator("h3")).to_have_text("Devices per node (3 device(s), 2 free)")
    expect(section.locator(".device-map.js-plotly-plot")).to_be_visible(timeout=30_000)
    expect(section.locator(".device-map .scatterlayer .point")).to_have_count(3)
    section.locator("summary").click()
    expect(section.locator("tr[data-node=node-1] td").nth(2)).to_have_text(
        "allocated to default/train-1-gpu (reserved for train-1)"
    )
    expect(page.locator("table.pod-claims tr[data-pod='default/train-2'] td").nth(1)).to_have_text(
        "gpu: 2 x gpu.example.com"
    )
    snap(page, "cluster-devices", full_page=True)

    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    run_id = start_run(page)
    open_step(page, run_id, 0, "PreFilter")
    expect(page.locator("table.dra-claims tbody tr").first).to_contain_text("default/train-2-gpu")
    open_step(page, run_id, 0, "Filter")
    expect(page.locator("tr[data-node=node-1] .dra-sentence")).to_have_text(
        "request `gpu`: 2 device(s) of class `gpu.example.com` — node-1 has 1 free: "
        "gpu-0 allocated to default/train-1 (claim train-1-gpu)"
    )
    expect(page.locator("tr[data-node=node-2] .dra-sentence")).to_have_text(
        "request `gpu`: 2 device(s) of class `gpu.example.com` — node-2 has 1 free"
    )
    expect(page.locator(".dra-why")).to_have_text(re.compile(r"no node has more than 1 free \(node-1, node-2\)"))
    snap(page, "run-filter-dra", full_page=True)

    open_step(page, run_id, 0, "PostFilter")
    page.click("#whatif-button")
    first = page.locator(".whatif-list li").first
    expect(first.locator(".text")).to_have_text(
        "ask for 1 device(s) instead of 2 in request `gpu` of claim default/train-2-gpu"
    )
    expect(page.locator(".whatif-list li[data-kind=evictHolder] .text")).to_have_text(
        "evict default/train-1 from node-1, freeing the devices of default/train-1-gpu"
    )
    first.locator(".whatif-apply").click()
    page.wait_for_url(re.compile(r"/runs/(?!%d/)\d+/" % run_id))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    applied = int(re.search(r"/runs/(\d+)/", page.url).group(1))
    open_step(page, applied, 0, "Bind")
    expect(page.locator(".outcome.pass")).to_contain_text("Bound to")
    expect(page.locator("table.dra-allocations tbody tr")).to_have_count(2)  # Reserve, then PreBind
    expect(page.locator("table.dra-allocations tbody tr").nth(1)).to_contain_text("default/train-2-gpu")


PARTITIONED = (Path(__file__).resolve().parents[2] / "examples" / "dra_partitioned_gpu.yaml").read_text()


def test_partitions_show_under_their_nodes_and_a_pending_pod_shows_the_counters_used_up(page):
    """DRAPartitionableDevices (v1.36, from the kubelets): each node's whole GPU and halves in the
    devices map; infer-2's Filter step gives each node's counter set as the allocated devices leave it."""
    created = api_post(page, "/api/scenarios", {"name": "partitioned gpu", "text": PARTITIONED})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/")
    section = page.locator("section.devices-by-node")
    expect(section.locator("h3")).to_have_text("Devices per node (6 device(s), 6 free)")

    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    run_id = start_run(page)
    open_step(page, run_id, 3, "Filter")
    expect(page.locator("tr.dra-counter[data-node=gpu-node-1] .dra-sentence")).to_have_text(
        "counter set `gpu-0` of pool gpu.example.com/gpu-node-1: 0 of 40Gi memory left"
    )
    expect(page.locator("tr[data-node=gpu-node-2][data-request=gpu] .dra-sentence")).to_contain_text(
        "gpu-node-2 has 0 free"
    )
    expect(page.locator(".dra-why")).to_contain_text("the partitions draw on counters that allocated devices have used")


SHARED_NIC = (Path(__file__).resolve().parents[2] / "examples" / "dra_shared_nic.yaml").read_text()


def test_a_shared_device_shows_its_shares_and_a_pending_pod_shows_the_capacity_used_up(page):
    """DRAConsumableCapacity (v1.36, from the kubelets): the devices table says who holds shares of
    each NIC and the bandwidth left; web-2's Filter step gives each NIC's bandwidth as the shares
    before it leave it, and why in one sentence."""
    created = api_post(page, "/api/scenarios", {"name": "shared nic", "text": SHARED_NIC})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/cluster/")
    section = page.locator("section.devices-by-node")
    expect(section.locator("h3")).to_have_text("Devices per node (2 device(s), 2 free)")
    section.locator("summary").click()
    expect(section.locator("tr[data-node=node-1] td").nth(2)).to_have_text(
        "shared by default/db-0-nic (bandwidth: 4Gi of 10Gi left)"
    )

    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    run_id = start_run(page)
    open_step(page, run_id, 2, "Filter")
    expect(page.locator("tr.dra-share[data-node=node-1] .dra-sentence")).to_have_text(
        "shared device `nic-0` of pool net.example.com/node-1: 0 of 10Gi bandwidth left"
    )
    expect(page.locator(".dra-why")).to_contain_text("what earlier shares left of their capacity")


BINDING = (Path(__file__).resolve().parents[2] / "examples" / "dra_binding_conditions.yaml").read_text()


def test_a_binding_that_waits_for_device_binding_conditions_reads_as_such_in_the_timeline(page):
    """DRADeviceBindingConditions (v1.36, from the kubelets): the scenario page names the devices
    nobody attaches in a replay; the run's timeline says train-1's binding waits and fails 10 min
    later, then the attempt that finds its claim timed out."""
    created = api_post(page, "/api/scenarios", {"name": "fabric gpus", "text": BINDING})
    page.goto(f"{page.base_url}/scenarios/{created['id']}/")
    expect(page.locator("#validity")).to_contain_text("valid")
    expect(page.locator("body")).to_contain_text("2 device(s) have binding conditions")
    run_id = start_run(page)
    page.goto(f"{page.base_url}/runs/{run_id}/")
    attempts = page.locator("#timeline-panel li.attempt")
    waited = attempts.filter(has_text="default/train-1 (attempt 1)")
    expect(waited.locator(".text")).to_have_text(
        "default/train-1 (attempt 1): chose node-1, binding waits for device binding conditions and fails 10 min "
        'later — running PreBind plugin "DynamicResources": device binding timeout: context deadline exceeded'
    )
    expect(attempts.filter(has_text="default/train-1 (attempt 2)").locator(".text")).to_contain_text(
        "2 resourceclaim not available on the node"
    )
