"""A big cluster's run (issue 50): every view draws a bounded form of it — the cluster view a page of
nodes with counts of the whole (more, search, a domain a click away), the Filter matrix grouped by
domain, the score heatmap its top nodes, the timeline its attempts — and the whole cluster never
comes to the browser at once. The cluster is our real dumps copied 30 times (tools/envelope_dump.py):
450 nodes, 1,470 pods."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import api_post, run_to_end

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
# Five real dumps whose objects' names differ (kubeadm_coredns_partial repeats kubeadm_calico's nodes, and
# istio_nodelocaldns_10 defines kube-system's kube-dns Service as they do): one copy of them is one cluster.
DUMPS = [
    REPO / "tests" / "fixtures" / "dumps" / name
    for name in (
        "aks_mid_preemption.yaml",
        "eks_notready_recorded.yaml",
        "kubeadm_calico.yaml",
        "onprem_sidecars_resize.yaml",
        "rollout_match_label_keys.yaml",
    )
]
COPIES = 30


@pytest.fixture
def big_text(tmp_path: Path) -> str:
    out = tmp_path / "big.yaml"
    command = [sys.executable, str(REPO / "tools" / "envelope_dump.py"), *map(str, DUMPS), "--copies", str(COPIES)]
    subprocess.run([*command, "--out", str(out)], check=True, cwd=REPO)
    return out.read_text()


def test_a_big_clusters_views_show_what_a_person_can_read_with_the_rest_a_click_away(page, big_text, snap):
    page.goto(page.base_url + "/")
    scenario = api_post(page, "/api/scenarios", {"name": "big", "text": big_text})
    run = run_to_end(page, scenario["id"], timeout=120)
    assert run["status"] == "succeeded", run
    nodes = page.request.get(f"{page.base_url}/api/scenarios/{scenario['id']}/nodes").json()["nodes"]
    assert len(nodes) == 450

    # The cluster view: counts of the whole, the domains, a page of nodes; more, a search, a domain.
    page.goto(f"{page.base_url}/scenarios/{scenario['id']}/cluster/?version=1&run={run['id']}")
    root = page.locator("#cluster-root")
    expect(root).to_have_attribute("data-paged", "true")
    expect(page.locator("#cluster-counts")).to_contain_text("450 nodes")
    expect(page.locator("#cluster-shown")).to_have_text("showing 50 of 450 nodes")
    expect(page.locator("#cluster-root div.node")).to_have_count(50)
    snap(page, "big-cluster-page")
    page.click("#cluster-more")
    expect(page.locator("#cluster-shown")).to_have_text("showing 100 of 450 nodes")
    expect(page.locator("#cluster-root div.node")).to_have_count(100)
    wanted = nodes[-1]["name"]
    page.fill("#cluster-search", wanted)
    page.click("#cluster-search-form button[type=submit]")
    expect(page.locator("#cluster-shown")).to_contain_text(f"showing 1 of 1 nodes matching “{wanted}”")
    expect(page.locator(f"#cluster-root div.node[data-node='{wanted}']")).to_have_count(1)
    page.click("#cluster-all")
    expect(page.locator("#cluster-shown")).to_have_text("showing 50 of 450 nodes")
    first = page.locator("button.domain-pick").first
    domain = first.get_attribute("data-domain")
    count = int(re.search(r"(\d+) node", page.locator(".domain-list li").first.inner_text()).group(1))
    first.click()
    expect(page.locator("#cluster-shown")).to_contain_text(f"of {count} nodes in ")
    expect(page.locator("#cluster-shown")).to_contain_text(f"={domain}")
    page.select_option("#group-key", "kubernetes.io/hostname")
    expect(page.locator(".domain-counts h3")).to_have_text("450 domain(s) by kubernetes.io/hostname")
    expect(page.locator(".domain-list li")).to_have_count(200)

    # The run view: the Filter matrix grouped by domain, the scores' heatmap its top nodes, the timeline.
    cycles = page.request.get(f"{page.base_url}/api/runs/{run['id']}/cycles").json()
    failed = next(c["cycle"] for c in cycles if not c["nodeName"])
    placed = next(c["cycle"] for c in cycles if c["nodeName"])
    page.goto(f"{page.base_url}/runs/{run['id']}/?cycle={failed}&step=Filter")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#step-heading")).to_contain_text("Filter")
    expect(page.locator("#filter-group-key")).to_be_visible()
    expect(page.locator("#step-view")).to_contain_text("Evaluated 450 node(s)")
    page.goto(f"{page.base_url}/runs/{run['id']}/?cycle={placed}&step=Score")
    expect(page.locator("#step-heading")).to_contain_text("Score")
    expect(page.locator("#step-view")).to_contain_text(re.compile(r"\d+ scored nodes in \d+ domain\(s\)"))
    expect(page.locator("#step-view")).to_contain_text("(best 30)")  # the heatmap's nodes: the top ones
    # The timeline: a page of 200 entries (the one holding the attempt shown), the next a click away.
    base = f"{page.base_url}/api/runs/{run['id']}/timeline"
    entries = page.request.get(f"{base}/summary").json()["counts"]["entries"]
    assert entries > 400, entries
    first = page.request.get(f"{base}/entries?cycle={placed}&limit=200").json()["offset"]
    drawn = page.locator("#timeline-panel .timeline-list > li:not(.timeline-more)")
    counts = page.locator("#timeline-counts")
    expect(counts).to_have_text(f"entries {first + 1}–{min(first + 200, entries)} of {entries}")
    expect(drawn).to_have_count(min(200, entries - first))
    expect(page.locator(f"#timeline-panel li.attempt[data-cycle='{placed}']")).to_have_class(re.compile("current"))
    page.click("#timeline-prev") if first else page.click("#timeline-next")
    expect(counts).to_have_text(re.compile(rf"entries \d+–\d+ of {entries}$"))
    expect(counts).not_to_have_text(f"entries {first + 1}–{min(first + 200, entries)} of {entries}")
    expect(drawn).to_have_count(200)
    page.goto(f"{page.base_url}/runs/{run['id']}/?cycle={cycles[-1]['cycle']}&step=Filter")  # the last attempt
    expect(page.locator("#timeline-panel li.attempt.current")).to_have_attribute("data-cycle", str(cycles[-1]["cycle"]))
