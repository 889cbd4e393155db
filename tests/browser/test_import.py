"""Importing a file from the scenario list: upload progress, the server's check, then the editor."""

from __future__ import annotations

import re
import zipfile

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


# A file of SCHEDLAB_BIG_UPLOAD_BYTES (8 MiB) or more is a big upload: its raw body streamed to disk, read by
# the long-work worker with its progress over /ws/uploads/<id>/ (issue 50).
BIG_UPLOAD_BYTES = 8 * 1024 * 1024


def _watch_progress(page) -> list[str]:
    phases: list[str] = []
    page.expose_function("notePhase", lambda text: phases.append(text))
    page.evaluate("""() => new MutationObserver(() => {
        const text = document.querySelector('#import-progress .progress-text')?.textContent;
        if (text) window.notePhase(text);
    }).observe(document.querySelector('#import-progress'), { subtree: true, childList: true, characterData: true })""")
    return phases


def test_a_big_file_is_read_by_a_worker_with_its_progress_then_opens_in_the_editor(page, tmp_path):
    big = tmp_path / "zones.yaml"
    text = zoned_scenario(600, 5)
    padding = "# " + "x" * 98 + "\n"  # a dump's bulk the loader skips: comments
    big.write_text(padding * (BIG_UPLOAD_BYTES // len(padding) + 1) + text)
    page.goto(page.base_url + "/")
    page.set_input_files("#import-file", str(big))
    phases = _watch_progress(page)
    page.click("#import-form button[type=submit]")
    page.wait_for_url(lambda url: "/scenarios/" in url, timeout=IMPORT_DONE_MS)
    expect(page.locator("#validity")).to_have_text("✓ valid · 600 node(s), 5 pod(s), 5 pending", timeout=IMPORT_DONE_MS)
    assert any(p.startswith("Uploading ") or p.startswith("Starting") for p in phases), phases
    assert any(re.fullmatch(r"Saved: 60\d object\(s\) read\.", p) for p in phases), (
        phases
    )  # the worker's end, over the websocket
    assert phases[-1] == "✓ valid · 600 node(s), 5 pod(s), 5 pending. Opening the editor…", phases


def test_a_big_archive_that_does_not_read_names_file_object_field_and_line(page, tmp_path):
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("cluster/nodes.yaml", zoned_scenario(3, 0))
        archive.writestr(
            "cluster/pods.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\nspec:\n  nodeSelectr: {}\n"
            "  containers:\n  - name: c\n",
        )
        archive.writestr("logs/kubelet.log", "a log line the reader lists, not opens\n" * (BIG_UPLOAD_BYTES // 38 + 1))
    page.goto(page.base_url + "/")
    page.set_input_files("#import-file", str(bundle))
    page.click("#import-form button[type=submit]")
    problem = page.locator("#import-errors li").first
    expect(problem).to_contain_text("bundle.zip:cluster/pods.yaml, line 7: ", timeout=IMPORT_DONE_MS)
    expect(problem).to_contain_text('spec.nodeSelectr: unknown field "spec.nodeSelectr"')
    expect(page.locator("#notices")).to_contain_text("Not imported: ")
    assert "/scenarios/" not in page.url
