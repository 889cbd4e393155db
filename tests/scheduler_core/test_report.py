"""The readable report of `trace` without --json."""

from __future__ import annotations

from pathlib import Path

from scheduler_core import load_scenario, simulate
from scheduler_core.report import render_report

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "public"


def test_it_explains_a_pending_pod_with_the_kubectl_message():
    scenario = load_scenario((CORPUS / "seed_pts_conflict.yaml").read_bytes())
    text = render_report(list(simulate(scenario)), scenario)
    assert "=> unschedulable: 0/" in text
    assert "PodTopologySpread" in text


def test_it_cuts_long_node_lists():
    scenario = load_scenario((CORPUS / "large_710000.yaml").read_bytes())
    text = render_report(list(simulate(scenario)), scenario)
    assert "… (+" in text
