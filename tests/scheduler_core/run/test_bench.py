"""The bench command's measurements (shape only: tests never assert on wall-clock time)."""

from __future__ import annotations

import gc
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.run.bench import run_benchmark, with_percentage

BENCH = Path(__file__).resolve().parents[4] / "shared" / "bench"


def test_it_schedules_only_the_first_n_pods_with_limit():
    scenario = load_scenario((BENCH / "basic_500.yaml").read_bytes())
    result = run_benchmark(scenario, percentage=0, limit=5)
    assert result.cycles == 5 and len(result.cycle_ms) == 5
    assert result.nodes == 500 and result.percentage == 0
    assert result.peak_rss_mb > 0
    assert set(result.to_json()) == {"pods_per_s", "median_ms", "p90_ms", "peak_rss_mb", "cycles"}


def test_the_scheduler_is_set_up_and_run_as_a_trace_is_then_the_collector_left_as_it_was():
    scenario = load_scenario((BENCH / "basic_500.yaml").read_bytes())
    frozen_before, enabled_before = gc.get_freeze_count(), gc.isenabled()
    seen: list[tuple[bool, int]] = []

    def watch(phase, info):  # every pass the run makes: none while the set-up builds the snapshot
        if phase == "start":
            seen.append((gc.isenabled(), gc.get_freeze_count()))

    gc.callbacks.append(watch)
    try:
        result = run_benchmark(scenario, limit=200)
    finally:
        gc.callbacks.remove(watch)
    assert result.cycles == 200
    assert seen and all(count > frozen_before for _, count in seen), "every pass ran with the set-up's objects frozen"
    assert (gc.get_freeze_count(), gc.isenabled()) == (frozen_before, enabled_before)


def test_percentage_override_keeps_the_rest_of_the_configuration():
    scenario = load_scenario((BENCH / "basic_500.yaml").read_bytes())
    assert with_percentage(scenario, 30).config.profiles[0].percentage_of_nodes_to_score == 30
    assert with_percentage(scenario, None) is scenario


def test_the_loop_bench_counts_attempts_and_bindings_of_the_run_to_the_end():
    from scheduler_core.run.bench import run_loop_benchmark
    from scheduler_core.run.loop import run_to_the_end
    from scheduler_core.encoding.timeline import timeline_summary

    # A preemption case of the timeline corpus: 5 attempts, one of them a retry while a victim terminates.
    text = (
        Path(__file__).resolve().parents[4] / "shared" / "conformance-timeline" / "public" / "preempt_3.yaml"
    ).read_text()
    result = run_loop_benchmark(load_scenario(text))
    summary = timeline_summary(run_to_the_end(load_scenario(text)))
    assert result.attempts == len(summary["attempts"]) == len(result.attempt_ms) == 5
    assert result.bound == sum(1 for a in summary["attempts"] if a["nodeName"]) == 3
    assert set(result.to_json()) >= {"attempts", "attempts_per_s", "pods_per_s", "bound"}
