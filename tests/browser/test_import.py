"""Importing a file from the scenario list: upload progress, the server's check, then the editor."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import expect_editor_text, zoned_scenario

pytestmark = pytest.mark.browser

# The import is the server's work on the whole file (upload, check, save) and the navigation is its
# event; how long it takes follows the machine's load, so the bound is only there to report a hang.
IMPORT_DONE_MS = 180_000

KUBECTL_LIST = """apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    labels:
      zone: a
    managedFields:
    - manager: kubelet
      operation: Update
    name: n1
    uid: 1f2e
  status:
    allocatable:
      cpu: "2"
      memory: 4Gi
      pods: "10"
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
    namespace: default
  spec:
    containers:
    - name: c
kind: List
metadata:
  resourceVersion: ""
"""


def test_an_imported_file_shows_its_progress_then_opens_in_the_editor(page, tmp_path):
    big = tmp_path / "zones.yaml"
    big.write_text(zoned_scenario(600, 5))
    page.goto(page.base_url + "/")
    page.set_input_files("#import-file", str(big))
    phases = []
    page.expose_function("notePhase", lambda text: phases.append(text))
    page.evaluate("""() => new MutationObserver(() => {
        const text = document.querySelector('#import-progress .progress-text')?.textContent;
        if (text) window.notePhase(text);
    }).observe(document.querySelector('#import-progress'), { subtree: true, childList: true, characterData: true })""")
    page.click("#import-form button[type=submit]")
    page.wait_for_url(lambda url: "/scenarios/" in url, timeout=IMPORT_DONE_MS)
    expect(page.locator("#validity")).to_have_text("✓ valid · 600 node(s), 5 pod(s), 5 pending", timeout=IMPORT_DONE_MS)
    expect(page.locator("body")).to_have_attribute("data-import-usable-ms", re.compile(r"^\d+$"))
    assert any(p.startswith("Uploading") or p.startswith("Starting") for p in phases), phases
    assert any(p.startswith("Saved. Opening the editor") for p in phases), phases  # checked meanwhile


def test_a_kubectl_list_is_imported_as_a_tidy_stream(page, tmp_path):
    dump = tmp_path / "dump.yaml"
    dump.write_text(KUBECTL_LIST)
    page.goto(page.base_url + "/")
    page.set_input_files("#import-file", str(dump))
    page.click("#import-form button[type=submit]")
    page.wait_for_url(lambda url: "/scenarios/" in url, timeout=IMPORT_DONE_MS)
    text = expect_editor_text(page, re.compile(r"^apiVersion: v1\nkind: Node\n"))
    assert "managedFields" not in text and "uid:" not in text and "\n---\napiVersion: v1\nkind: Pod\n" in text
    expect(page.locator("#validity")).to_contain_text("✓ valid · 1 node(s), 1 pod(s), 1 pending")
