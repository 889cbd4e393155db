"""`python -m scheduler_core trace|bench`, run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.scheduler_core.conformance import diff_traces

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance" / "public"
SEED = CORPUS / "seed_pts_single_constraint.yaml"


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scheduler_core", *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=120)


def test_trace_json_prints_exactly_the_expected_summary():
    result = _run("trace", str(SEED), "--json")
    assert result.returncode == 0, result.stderr.decode()
    expected = json.loads((CORPUS / "seed_pts_single_constraint.expected.json").read_text())
    assert diff_traces(expected, json.loads(result.stdout)) == []


def test_trace_without_json_prints_a_readable_report():
    result = _run("trace", str(SEED))
    out = result.stdout.decode()
    assert result.returncode == 0
    assert "cycle 1/1: pod default/mypod" in out
    assert "node1: Unschedulable: node(s) didn't match pod topology spread constraints" in out
    assert "=> bound to node4" in out


def test_trace_reads_standard_input():
    result = _run("trace", "-", "--json", stdin=SEED.read_bytes())
    assert json.loads(result.stdout)["cycles"][0]["nodeName"] == "node4"


def test_events_prints_one_json_event_per_line():
    lines = _run("trace", str(SEED), "--events").stdout.decode().splitlines()
    events = [json.loads(line) for line in lines]
    assert events[0]["extensionPoint"] == "CycleStart"
    assert events[-1] == {"cycle": 0, "pod": "default/mypod", "extensionPoint": "CycleEnd", "plugin": None,
                          "payload": {"nodeName": "node4"}}


def test_it_exits_2_listing_every_problem_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\nspec:\n  nodeName: Ghost\n"
                   "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n")
    result = _run("trace", str(bad), "--json")
    err = result.stderr.decode()
    assert result.returncode == 2
    assert "Traceback" not in err
    assert "Pod default/web-1" in err and "line 11" in err and "Ghost" in err
    assert result.stdout == b""


def test_it_exits_2_for_a_missing_file(tmp_path):
    result = _run("trace", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2 and b"cannot read" in result.stderr


def test_bench_json_reports_the_documented_keys():
    result = _run("bench", str(SEED), "--json", "--percentage", "0")
    data = json.loads(result.stdout)
    assert set(data) == {"pods_per_s", "median_ms", "p90_ms", "peak_rss_mb", "cycles"}
    assert data["cycles"] == 1
