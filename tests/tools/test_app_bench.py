"""tools/app_bench.py: a dump through the embedded app's own path (upload, check, the run's first cycle
as the run view reads it, the run to the end in the worker), each phase with its seconds and the web
and worker processes' peak memory; a refusal is reported in the user's words, not as a crash."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "app_bench.py"
DUMP = ROOT / "tests" / "fixtures" / "dumps" / "aks_mid_preemption.yaml"
spec = importlib.util.spec_from_file_location("app_bench", TOOL)
assert spec is not None and spec.loader is not None
app_bench = importlib.util.module_from_spec(spec)
sys.modules["app_bench"] = app_bench  # its dataclasses look their module up
spec.loader.exec_module(app_bench)


def _bench(*args: str) -> tuple[int, dict]:
    result = subprocess.run(
        [sys.executable, str(TOOL), str(DUMP), "--json", "--timeout", "120", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.stdout, result.stderr[-3000:]
    return result.returncode, json.loads(result.stdout)


def test_it_reports_every_phase_with_its_time_and_both_processes_memory_and_holds_the_run_against_the_cli():
    code, report = _bench("--against-cli")
    assert code == 0, report
    assert [phase["name"] for phase in report["phases"]] == ["upload", "check", "first cycle", "run"]
    for phase in report["phases"]:
        assert phase["ok"], phase
        assert phase["seconds"] >= 0 and phase["web_peak_mb"] > 0 and phase["worker_peak_mb"] > 0, phase
        assert phase["worker_tree_peak_mb"] >= phase["worker_peak_mb"]
    upload, check, first, run = report["phases"]
    assert check["answer_bytes"] > DUMP.stat().st_size  # the editor's read carries the text and its check
    assert first["answer_bytes"] > 0 and first["seconds"] <= run["seconds"]
    assert (report["status"], report["error"]) == ("succeeded", "")
    assert report["cycles"] >= 1 and report["events"] > 0
    roles = {name.split()[0] for name in report["process_peaks_mb"]}
    assert roles == {"web", "worker"}
    assert report["cli_difference"] == "" and report["cli_attempts"] >= report["cycles"]


CLI = {
    "attempts": [
        {"pod": "default/a", "nodeName": "n1"},
        {"pod": "default/b", "failedSchedulingMessage": "0/2 nodes are available: ...", "nominatedNodeName": "n2"},
    ],
    "final": {"default/a": "n1"},
}


def _story(**final: str) -> dict:
    """The app's /timeline: the CLI's attempts with the story's own fields besides."""
    attempts = [
        {**attempt, "cycle": number, "attempt": 1, "timeMs": 0} for number, attempt in enumerate(CLI["attempts"])
    ]
    return {"attempts": attempts, "final": final or dict(CLI["final"]), "moves": []}


def test_the_app_s_story_agrees_with_the_cli_on_the_cli_s_fields_of_every_attempt_and_the_final_nodes():
    assert app_bench.first_difference(_story(), CLI) == ""
    moved = _story()
    moved["attempts"][0]["nodeName"] = "n2"
    assert app_bench.first_difference(moved, CLI).startswith('attempt 0: the app {"nodeName": "n2"')
    unnominated = _story()
    del unnominated["attempts"][1]["nominatedNodeName"]
    assert app_bench.first_difference(unnominated, CLI).startswith("attempt 1:")
    shorter = _story()
    shorter["attempts"].pop()
    assert app_bench.first_difference(shorter, CLI) == "the app has 1 attempts, the CLI 2"
    assert app_bench.first_difference(_story(**{"default/a": "n3"}), CLI) == "final default/a: the app n3, the CLI n1"


def test_a_refusal_ends_the_bench_with_the_app_s_own_words():
    code, report = _bench("--env", "SCHEDLAB_MAX_BYTES=1000")
    assert code == 1
    [upload] = report["phases"]
    assert not upload["ok"] and upload["detail"].startswith("413 limit_exceeded: the scenario is ")
    assert "raises it with SCHEDLAB_MAX_BYTES=1048576 (1 MB)" in upload["detail"] and "Limits." not in upload["detail"]
    assert report["error"] == upload["detail"]


def test_through_a_big_upload_the_long_work_worker_reads_it_and_is_measured_too():
    code, report = _bench("--through", "uploads", "--stop-after", "check")
    assert code == 0, report
    assert [phase["name"] for phase in report["phases"]] == ["upload", "read", "check"]
    upload, read, check = report["phases"]
    assert all(phase["ok"] for phase in report["phases"]), report
    assert read["long_worker_peak_mb"] > 0 and check["answer_bytes"] > DUMP.stat().st_size
    assert {name.split()[0] for name in report["process_peaks_mb"]} == {"web", "worker", "long"}


class _Answer:
    def __init__(self, body: dict) -> None:
        self.ok, self.body = True, body

    def json(self) -> dict:
        return self.body


class _Editor:
    """GET answers in turn, as the web process gave them."""

    def __init__(self, *bodies: dict) -> None:
        self.bodies = list(bodies)
        self.asked = 0

    def get(self, url: str, timeout: float) -> _Answer:
        self.asked += 1
        return _Answer(self.bodies.pop(0) if len(self.bodies) > 1 else self.bodies[0])


def test_the_check_of_a_big_scenario_is_waited_for_while_the_editor_says_not_checked_yet():
    editor = _Editor({"checked": False, "valid": False, "errors": []}, {"checked": True, "valid": True})
    answer, body = app_bench._checked_scenario(editor, "http://x/api/scenarios/1", timeout=60, poll=0)
    assert body["valid"] is True and editor.asked == 2


def test_a_check_never_made_is_said_as_such_not_as_an_empty_error_list():
    editor = _Editor({"checked": False, "valid": False, "errors": []})
    answer, body = app_bench._checked_scenario(editor, "http://x/api/scenarios/1", timeout=0, poll=0)
    assert "not checked in time" in app_bench._invalid(body)
