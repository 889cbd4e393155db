"""A bounded load against a running SchedLab on the loopback: concurrent runs plus readers.

Used by tests/webui/test_service_load.py for both modes (production and embedded). Every loop is
bounded by a deadline and a request count; every request goes to 127.0.0.1.
"""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tests.webui import support

FINISHED = ("succeeded", "failed", "cancelled")
MAX_REQUESTS_PER_READER = 100_000  # a second bound besides the deadline
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class LoadPlan:
    runs: int = 30
    readers: int = 20
    seconds: float = 60.0
    drain_seconds: float = 300.0  # after the reading window, how long runs may take to finish
    scenario: str = field(default_factory=lambda: support.scenario_text(nodes=80, pending=24, running=40))


@dataclass
class Sample:
    what: str
    status: int  # 0 for a transport error (refused, reset, timeout)
    at: float  # time.monotonic() when it was sent
    seconds: float
    detail: str = ""


@dataclass
class Recorder:
    samples: list[Sample] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def timed(
        self, client: support.HttpClient, what: str, method: str, path: str, body: object | None = None
    ) -> support.Response:
        started = time.monotonic()
        try:
            response = client.request(method, path, body)
        except OSError as exc:  # connection refused/reset, timeout: an error the user would see
            self._add(Sample(what, 0, started, time.monotonic() - started, f"{type(exc).__name__}: {exc}"))
            raise
        detail = "" if 200 <= response.status < 300 else str(response.body)[:300]
        self._add(Sample(what, response.status, started, time.monotonic() - started, detail))
        return response

    def _add(self, sample: Sample) -> None:
        with self.lock:
            self.samples.append(sample)

    @property
    def errors(self) -> list[Sample]:
        return [s for s in self.samples if not 200 <= s.status < 300]


@dataclass
class User:
    """One anonymous visitor (own session): one scenario, one run."""

    client: support.HttpClient
    scenario_id: int
    run_id: int | None = None
    final: dict | None = None
    finished_seen_at: float | None = None  # time.monotonic() when a poll first saw it finished


@dataclass(frozen=True)
class Figures:
    requests: int
    errors: int
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    runs: int
    runs_succeeded: int
    all_runs_finished_after_s: float

    def line(self) -> str:
        return (
            f"{self.requests} requests in the window ({self.requests_per_second:.0f}/s), {self.errors} errors, "
            f"p50 {self.p50_ms:.0f} ms, p99 {self.p99_ms:.0f} ms, max {self.max_ms:.0f} ms; "
            f"{self.runs_succeeded}/{self.runs} runs succeeded, the last {self.all_runs_finished_after_s:.1f} s after they were started"
        )


@dataclass
class LoadResult:
    users: list[User]
    recorder: Recorder
    started: float
    window_seconds: float

    def figures(self) -> Figures:
        """Over the requests sent inside the reading window (run polls after it are not counted)."""
        window_end = self.started + self.window_seconds
        latencies = sorted(s.seconds for s in self.recorder.samples if s.at < window_end)
        seen = [u.finished_seen_at for u in self.users if u.finished_seen_at is not None]

        def pct(q: float) -> float:
            return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0

        return Figures(
            requests=len(latencies),
            errors=len(self.recorder.errors),
            requests_per_second=len(latencies) / self.window_seconds,
            p50_ms=pct(0.50),
            p99_ms=pct(0.99),
            max_ms=latencies[-1] * 1000 if latencies else 0.0,
            runs=len(self.users),
            runs_succeeded=sum(1 for u in self.users if u.final and u.final["status"] == "succeeded"),
            all_runs_finished_after_s=max(seen) - self.started if seen else float("nan"),
        )


def _new_user(base: str, plan: LoadPlan, index: int) -> User:
    client = support.HttpClient(base)
    client.start_session()
    created = client.request("POST", "/api/scenarios", {"name": f"load-{index}", "text": plan.scenario})
    assert created.status == 201, created.body
    return User(client, created.body["id"])


def _start_and_watch(user: User, recorder: Recorder, gate: threading.Barrier, deadline: float) -> None:
    """Start the run together with everyone else, then poll it as the run page would until it ends."""
    gate.wait(timeout=60)
    started = recorder.timed(user.client, "start run", "POST", f"/api/scenarios/{user.scenario_id}/runs")
    if started.status != 201:
        return
    user.run_id = started.body["id"]
    while time.monotonic() < deadline:
        try:
            response = recorder.timed(user.client, "run status", "GET", f"/api/runs/{user.run_id}")
        except OSError:
            time.sleep(POLL_SECONDS)
            continue
        if response.status == 200 and response.body["status"] in FINISHED:
            user.final, user.finished_seen_at = response.body, time.monotonic()
            return
        time.sleep(POLL_SECONDS)


def _read(users: list[User], recorder: Recorder, seed: int, until: float) -> None:
    """A reader: a browser tab of one of the users, hitting what the pages read, back to back."""
    rng = random.Random(seed)
    user = users[seed % len(users)]
    for _ in range(MAX_REQUESTS_PER_READER):
        if time.monotonic() >= until:
            return
        run_id = user.run_id
        choices = [
            ("scenarios", "GET", "/api/scenarios"),
            ("scenario", "GET", f"/api/scenarios/{user.scenario_id}"),
            ("objects", "GET", f"/api/scenarios/{user.scenario_id}/objects"),
            ("page", "GET", "/"),
        ]
        if run_id is not None:
            choices += [
                ("run", "GET", f"/api/runs/{run_id}"),
                ("events", "GET", f"/api/runs/{run_id}/events?since={rng.randrange(0, 1000)}&limit=200"),
                ("cycles", "GET", f"/api/runs/{run_id}/cycles"),
                ("runs", "GET", "/api/runs"),
                ("run page", "GET", f"/runs/{run_id}/"),
            ]
        what, method, path = rng.choice(choices)
        try:
            recorder.timed(user.client, what, method, path)
        except OSError:
            time.sleep(0.1)


def run_load(base: str, plan: LoadPlan) -> LoadResult:
    """plan.runs users start their runs at once; plan.readers read for plan.seconds; wait for every run."""
    with ThreadPoolExecutor(8) as pool:
        users = list(pool.map(lambda i: _new_user(base, plan, i), range(plan.runs)))
    recorder = Recorder()
    gate = threading.Barrier(plan.runs)
    started = time.monotonic()
    window_end = started + plan.seconds
    deadline = window_end + plan.drain_seconds
    watchers = [
        threading.Thread(target=_start_and_watch, args=(u, recorder, gate, deadline), daemon=True) for u in users
    ]
    readers = [
        threading.Thread(target=_read, args=(users, recorder, i, window_end), daemon=True) for i in range(plan.readers)
    ]
    for thread in watchers + readers:
        thread.start()
    for thread in readers:
        thread.join(timeout=plan.seconds + 120)
    for thread in watchers:
        thread.join(timeout=max(1.0, deadline - time.monotonic()))
    return LoadResult(users, recorder, started, plan.seconds)
