"""Capacity in the cluster view (static/js/capacity.js): "How many more fit?" on the capacity demo's
workload runs its trials on the worker, names what stops the next copy, and opens the deciding
trial's run at the step where that copy stays pending; the share link opens the same run."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import create_from_demo

pytestmark = pytest.mark.browser
ANSWER_MS = 180_000  # trial runs on the one embedded worker of a machine shared with others


def test_how_many_more_fit_opens_the_deciding_step(page):
    scenario_id = create_from_demo(page, "capacity_web")
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    page.locator("tr[data-workload='default/web'] button.capacity-fit").click()
    answer = page.locator("#capacity-answer")
    expect(answer.locator(".capacity-progress")).to_have_text(re.compile(r"Queued|trial \d+ of ~\d+"))
    expect(answer.locator(".capacity-verdict")).to_contain_text("8 more fit", timeout=ANSWER_MS)
    expect(answer).to_contain_text("node-1 3, node-2 2, node-3 3")
    stopper = answer.locator(".capacity-stopper")
    expect(stopper).to_contain_text("Copy 9 stays pending")
    expect(stopper).to_contain_text("3 Insufficient cpu")
    expect(answer.locator(".capacity-why")).to_contain_text("No node passed every Filter plugin")
    stopped = re.search(r"\((default/web-[\w-]+)\)", stopper.inner_text()).group(1)

    answer.locator("#capacity-share").click()
    share_url = answer.locator("a.capacity-share-link").get_attribute("href", timeout=30_000)

    answer.locator("#capacity-deciding-link").click()
    page.wait_for_url(re.compile(r"/runs/\d+/\?cycle=\d+&step=Filter&changeStep=1"))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=ANSWER_MS)
    expect(page.locator("#step-heading")).to_contain_text("Filter")
    expect(page.locator("#run-root")).to_contain_text(stopped)
    expect(page.locator("#run-root")).to_contain_text("Insufficient cpu")

    page.goto(share_url if share_url.startswith("http") else page.base_url + share_url)
    expect(page.locator("body")).to_contain_text(stopped, timeout=60_000)


def test_can_this_node_go_names_the_budget_that_keeps_it(page):
    scenario_id = create_from_demo(page, "capacity_web")
    page.goto(f"{page.base_url}/scenarios/{scenario_id}/cluster/")
    page.locator(".node[data-node='node-1'] button.capacity-node-go").click()
    answer = page.locator("#capacity-answer")
    expect(answer.locator("h3")).to_have_text("Can node-1 go?")
    verdict = answer.locator(".capacity-verdicts li[data-node='node-1']")
    expect(verdict).to_contain_text("must stay", timeout=ANSWER_MS)
    expect(verdict).to_contain_text("blocked by budget default/web-pdb")
    expect(answer.locator("#capacity-deciding-link")).to_have_attribute("href", re.compile(r"/runs/\d+/\?changeStep=1$"))
