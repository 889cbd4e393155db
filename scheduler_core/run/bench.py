"""`python -m scheduler_core bench FILE`: scheduling speed and memory on a scenario.

Schedules the pending pods exactly as `trace` does — the same engine, every plugin on every
candidate node, the same typed event stream with every verdict and score — and times each cycle.
It does not render that stream as JSON text (that is output formatting, done by whoever prints it).
Speed is measured here, never asserted by a test.
"""

from __future__ import annotations

import dataclasses
import itertools
import resource
import statistics
import time
from dataclasses import dataclass
from typing import Any, Optional

from scheduler_core.encoding.events import ExtensionPoint
from scheduler_core.model import Scenario, SchedulerConfig, SchedulerConfiguration
from scheduler_core.run.schedule_one import Scheduler, fresh_copy
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.gcfreeze import frozen_after_first


@dataclass(frozen=True)
class BenchResult:
    cycles: int
    nodes: int
    running_pods: int
    percentage: Optional[int]
    total_s: float
    cycle_ms: list[float]
    peak_rss_mb: float

    @property
    def pods_per_s(self) -> float:
        return self.cycles / self.total_s if self.total_s else 0.0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.cycle_ms) if self.cycle_ms else 0.0

    @property
    def p90_ms(self) -> float:
        if len(self.cycle_ms) < 2:
            return self.median_ms
        return statistics.quantiles(self.cycle_ms, n=10, method="inclusive")[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "pods_per_s": round(self.pods_per_s, 1),
            "median_ms": round(self.median_ms, 3),
            "p90_ms": round(self.p90_ms, 3),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "cycles": self.cycles,
        }

    def render(self, name: str) -> str:
        return (
            f"{name}: {self.nodes} nodes, {self.running_pods} running pods, {self.cycles} cycles, "
            f"percentageOfNodesToScore {self.percentage}\n"
            f"  {self.pods_per_s:.1f} pods/s, median {self.median_ms:.2f} ms, p90 {self.p90_ms:.2f} ms "
            f"per cycle, peak RSS {self.peak_rss_mb:.0f} MB"
        )


def with_percentage(scenario: Scenario, percentage: Optional[int]) -> Scenario:
    if percentage is None:
        return scenario
    config = scenario.config or SchedulerConfiguration((SchedulerConfig(),))
    profiles = tuple(dataclasses.replace(p, percentage_of_nodes_to_score=percentage) for p in config.profiles)
    return dataclasses.replace(scenario, config=dataclasses.replace(config, profiles=profiles))


def run_benchmark(scenario: Scenario, *, percentage: Optional[int] = None, limit: Optional[int] = None) -> BenchResult:
    # Set up as ``timeline`` sets up a run: the collector paused while the snapshot is built and
    # until the first event, where the objects alive are frozen (util/gcfreeze): none is garbage.
    with collector_paused():
        scenario = fresh_copy(with_percentage(scenario, percentage))
        scheduler = Scheduler(scenario)
        if limit is not None:
            scheduler.queue = scheduler.queue[:limit]
        started = time.perf_counter()
        events = frozen_after_first(scheduler.run())
        first = next(events, None)
    running = len(scenario.running_pods)
    cycle_ms: list[float] = []
    cycle_started = started
    for event in itertools.chain([] if first is None else [first], events):
        if event.extension_point is ExtensionPoint.CYCLE_END:
            now = time.perf_counter()
            cycle_ms.append((now - cycle_started) * 1000)
            cycle_started = now
    total = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return BenchResult(
        len(cycle_ms),
        len(scenario.nodes),
        running,
        scheduler.framework.percentage_of_nodes_to_score,
        total,
        cycle_ms,
        peak_kb / 1024,
    )


@dataclass(frozen=True)
class LoopBenchResult:
    """The scheduler run to the end (`bench --loop`): every attempt, retries and preemption included."""

    attempts: int
    bound: int
    pending_at_start: int
    nodes: int
    running_pods: int
    total_s: float
    attempt_ms: list[float]
    peak_rss_mb: float
    load_s: Optional[float] = None  # reading and validating the file, before the run (set by the CLI)
    cpu_s: Optional[float] = None  # the run's CPU time (process_time): its wall time on an idle machine

    @property
    def attempts_per_s(self) -> float:
        return self.attempts / self.total_s if self.total_s else 0.0

    @property
    def pods_per_s(self) -> float:
        """Pods bound per second of the whole run."""
        return self.bound / self.total_s if self.total_s else 0.0

    def to_json(self) -> dict[str, Any]:
        median = statistics.median(self.attempt_ms) if self.attempt_ms else 0.0
        return {
            "attempts": self.attempts,
            "bound": self.bound,
            "pending_at_start": self.pending_at_start,
            "attempts_per_s": round(self.attempts_per_s, 1),
            "pods_per_s": round(self.pods_per_s, 1),
            "median_attempt_ms": round(median, 3),
            "total_s": round(self.total_s, 2),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            **({"load_s": round(self.load_s, 2)} if self.load_s is not None else {}),
            **(
                {"cpu_s": round(self.cpu_s, 2), "attempts_per_cpu_s": round(self.attempts / self.cpu_s, 1)}
                if self.cpu_s
                else {}
            ),
        }

    def render(self, name: str) -> str:
        out = self.to_json()
        loading = f"; loading {out['load_s']} s apart" if "load_s" in out else ""
        if "cpu_s" in out:
            loading = f" ({out['cpu_s']} s CPU, {out['attempts_per_cpu_s']} attempts per CPU second){loading}"
        return (
            f"{name}: {self.nodes} nodes, {self.running_pods} running pods, {self.pending_at_start} pending, "
            f"run to the end\n  {out['attempts']} attempts ({out['attempts_per_s']}/s), {out['bound']} pods bound "
            f"({out['pods_per_s']}/s), median {out['median_attempt_ms']} ms per attempt, {out['total_s']} s run"
            f"{loading}, peak RSS {out['peak_rss_mb']:.0f} MB"
        )


def run_loop_benchmark(scenario: Scenario, *, percentage: Optional[int] = None) -> LoopBenchResult:
    from scheduler_core.encoding.events import ClusterChangeKind, ClusterChanged
    from scheduler_core.run.loop import run_to_the_end

    scenario = fresh_copy(with_percentage(scenario, percentage))
    running, pending = len(scenario.running_pods), len(scenario.pending_pods)
    attempt_ms: list[float] = []
    bound = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    attempt_started = started
    for event in run_to_the_end(scenario):
        point = event.extension_point
        if point is ExtensionPoint.CYCLE_START:
            attempt_started = time.perf_counter()
        elif point is ExtensionPoint.CYCLE_END:
            attempt_ms.append((time.perf_counter() - attempt_started) * 1000)
        elif (
            point is ExtensionPoint.CLUSTER
            and isinstance(event.payload, ClusterChanged)
            and event.payload.kind is ClusterChangeKind.POD_BOUND
        ):
            bound += 1
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return LoopBenchResult(
        len(attempt_ms), bound, pending, len(scenario.nodes), running, total, attempt_ms, peak_kb / 1024, cpu_s=cpu
    )
