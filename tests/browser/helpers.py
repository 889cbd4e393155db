"""Small steps the browser tests share."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

SEED_DEMO = "seed_pts_single_constraint"


def create_from_demo(page: Page, slug: str = SEED_DEMO) -> int:
    page.goto(page.base_url + "/")
    page.click(f"button.demo-create[data-slug={slug}]")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    expect(page.locator("#validity")).to_contain_text("valid")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def api_post(page: Page, path: str, body: dict) -> dict:
    """A write through the page's own session (cookie + CSRF header, as the UI sends it)."""
    if not any(c["name"] == "csrftoken" for c in page.context.cookies()):
        page.goto(page.base_url + "/")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(page.base_url + path, data=json.dumps(body),
                                 headers={"Content-Type": "application/json", "X-CSRFToken": token})
    assert response.ok, response.text()
    return response.json()


def set_editor_text(page: Page, text: str) -> None:
    """Replace the YAML as a person would (select all, type), so input events fire."""
    area = page.locator("#yaml-text")
    area.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)


def start_run(page: Page) -> int:
    page.click("#run-button")
    page.wait_for_url(re.compile(r"/runs/\d+/"))
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    return int(re.search(r"/runs/(\d+)/", page.url).group(1))


def open_step(page: Page, run_id: int, cycle: int, step: str, base: str | None = None) -> None:
    page.goto(f"{base or page.base_url}/runs/{run_id}/?cycle={cycle}&step={step}")
    expect(page.locator("#run-root")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    expect(page.locator("#step-heading")).to_contain_text(step if step != "Bind" else "Bind")


def table_rows(page: Page, selector: str) -> list[list[str]]:
    return page.locator(f"{selector} tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))")
