"""A dump through the app's own path, as a user of `make run` meets it (issue 50): seconds and peak RSS.

    .venv/bin/python tools/app_bench.py DUMP [--json] [--env SCHEDLAB_X=N ...] [--timeout 1800]
        [--through import|uploads] [--stop-after check|run]

Starts the embedded app (`manage.py runembedded`: daphne and the Celery workers, SQLite and the
file-system broker in a fresh temporary `SCHEDLAB_VAR_DIR`, the settings' defaults unless `--env`
says otherwise), then does over HTTP what the browser does:

- **upload**: the importer's `POST /api/scenarios/import` (multipart, `check=later`), until it answers;
  with `--through uploads`, a big upload as the browser sends it (`POST /api/uploads/file`, the file as
  the raw body, streamed to disk and answered at once), then
  **read**: until `GET /api/uploads/{id}` says the long-work worker read, checked and saved it (that
  worker, `long@`, is sampled too);
- **check**: the editor's `GET /api/scenarios/{id}`, which answers once the server has read and
  checked the text (the web process does both);
- **first cycle**: from the answer of `POST /api/scenarios/{id}/runs` until the run view can draw the
  first cycle: `GET /api/runs/{id}` says a cycle is done, then its `/names`, `/cycles` and
  `/segment?cycle=0`, as the run view reads them (`static/js/cycleloader.js`);
- **run**: from the same answer until `GET /api/runs/{id}` says the run ended (it ran in the worker).

With `--against-cli`, the run's story as the app answers it (`GET /api/runs/{id}/timeline`) is held
against `python -m scheduler_core timeline DUMP --json` of the same file: every attempt in order (the
CLI's fields of it: the pod, its node or FailedScheduling message, nomination, victims) and every
pod's final node; the report says whether they agree and, when not, the first difference.
The web process (daphne) and the runs' worker (the Celery worker of the default queue with its pool
and engine processes, summed) are sampled every `--sample` seconds; each phase reports the peak of
each over its interval, and the end every process's own peak (`VmHWM`). The answers' sizes are said
too. Exit code 1 when a phase failed (a refusal, a failed run): the report says which and why.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import requests

ROOT = Path(__file__).resolve().parents[1]
PAGE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024
FINISHED = {"succeeded", "failed", "cancelled"}
# The app's own environment must not leak in: the bench is the embedded mode as `make run` starts it.
DROPPED_ENV = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "SCHEDLAB_VAR_DIR", "CELERY_TASK_ALWAYS_EAGER")


@dataclass
class Phase:
    name: str
    seconds: float = 0.0
    web_peak_mb: float = 0.0  # daphne's RSS, its peak over the phase
    worker_peak_mb: float = 0.0  # the largest process of the runs' Celery worker (its pool and engine processes)
    worker_tree_peak_mb: float = 0.0  # the same processes summed (idle pool processes included)
    long_worker_peak_mb: float = 0.0  # the long-work worker's largest process (--through uploads only)
    web_cpu_s: float = 0.0  # CPU seconds the web process spent in the phase
    worker_cpu_s: float = 0.0  # the same for the worker's processes (a finished engine process included)
    ok: bool = True
    detail: str = ""
    answer_bytes: int = 0  # the bytes of the answers the phase read


@dataclass
class Report:
    file: str
    bytes: int
    phases: list[Phase] = field(default_factory=list)
    process_peaks_mb: dict[str, float] = field(default_factory=dict)  # each process's VmHWM at the end
    cycles: int = 0
    events: int = 0  # the run's events, as stored
    stored_mb: float = 0.0  # their compressed bytes (SCHEDLAB_MAX_STORED_BYTES_PER_RUN bounds them)
    status: str = ""
    error: str = ""
    run_id: int | None = None
    cli_attempts: int | None = None  # --against-cli: the CLI's attempts
    cli_difference: str | None = None  # --against-cli: "" when the app's story is the CLI's, else the first difference


# --- the processes ------------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(tree.get(current, []))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds of the process and of its children it has waited for (utime, stime, cutime, cstime)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / TICKS


def _hwm(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Sampler(threading.Thread):
    """The web process's RSS and the runs' worker tree's, every ``interval`` seconds."""

    def __init__(self, supervisor: int, interval: float, track_long: bool = False) -> None:
        super().__init__(daemon=True)
        self.supervisor, self.interval, self.track_long = supervisor, interval, track_long
        self.long_samples: list[tuple[float, int]] = []  # time, the long-work worker's largest process
        self.samples: list[tuple[float, int, int, int]] = []  # time, web, worker's largest process, worker's sum
        self.cpu: list[tuple[float, float, float]] = []  # time, web CPU seconds, worker CPU seconds
        self.hwm: dict[str, int] = {}
        self.stopped = threading.Event()
        self.lock = threading.Lock()

    def roots(self) -> tuple[list[int], list[int], list[int]]:
        tree = _children()
        web: list[int] = []
        worker: list[int] = []
        long: list[int] = []
        for child in tree.get(self.supervisor, []):
            line = _cmdline(child)
            if "daphne" in line:
                web = _descendants(child, tree)
            elif "celery" in line and "default@" in line:
                worker = _descendants(child, tree)
            elif "celery" in line and "long@" in line and self.track_long:
                long = _descendants(child, tree)
        return web, worker, long

    def sample(self) -> None:
        web, worker, long = self.roots()
        workers = [_rss(pid) for pid in worker]
        now = time.monotonic()
        with self.lock:
            self.samples.append((now, sum(map(_rss, web)), max(workers, default=0), sum(workers)))
            self.long_samples.append((now, max(map(_rss, long), default=0)))
            self.cpu.append((now, sum(map(_cpu, web)), sum(map(_cpu, worker))))
            for role, pids in (("web", web), ("worker", worker), ("long", long)):
                for pid in pids:
                    key = f"{role} {pid} {_cmdline(pid)[:60].strip()}"
                    self.hwm[key] = max(self.hwm.get(key, 0), _hwm(pid))

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            self.sample()

    def cpu_between(self, start: float, end: float) -> tuple[float, float]:
        """CPU seconds of the web process and of the worker's processes from ``start`` to ``end``."""
        with self.lock:
            before = [c for c in self.cpu if c[0] <= start] or self.cpu[:1]
            upto = [c for c in self.cpu if c[0] <= end] or self.cpu[-1:]
        return (upto[-1][1] - before[-1][1], upto[-1][2] - before[-1][2])

    def peaks(self, start: float, end: float) -> tuple[float, float, float]:
        """The web process's, the worker's largest process's and the worker tree's peaks (MB) in [start, end]."""
        with self.lock:
            inside = [s for s in self.samples if start <= s[0] <= end] or self.samples[-1:]
        return tuple(max((s[i] for s in inside), default=0) / MB for i in (1, 2, 3))  # type: ignore[return-value]

    def long_peak(self, start: float, end: float) -> float:
        with self.lock:
            return max((s[1] for s in self.long_samples if start <= s[0] <= end), default=0) / MB


# --- the app --------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_app(var_dir: Path, port: int, extra_env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(SCHEDLAB_VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1", **extra_env)
    return subprocess.Popen(
        [sys.executable, "manage.py", "runembedded", "--port", str(port), "--long-concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_bench if sys.platform.startswith("linux") else None,
    )


def _die_with_bench() -> None:
    """In the app's supervisor, before exec: SIGTERM it when the bench dies, even when the bench is
    killed (its children die with it: runembedded), so no orphaned app keeps running a run (and
    restarting the workers killed by hand) while the next measurement is taken."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def wait_until_served(base: str, app: subprocess.Popen[bytes], timeout: float) -> requests.Session:
    """A session holding the CSRF cookie once the app answers (it migrates and loads the demos first)."""
    deadline = time.monotonic() + timeout
    http = requests.Session()
    while True:
        if app.poll() is not None:
            raise RuntimeError(f"the app exited with code {app.returncode} before serving")
        try:
            answer = http.get(f"{base}/api/session", timeout=10)
            if answer.ok:
                http.headers["X-CSRFToken"] = answer.json()["csrfToken"]
                http.headers["Referer"] = base + "/"
                return http
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the app did not answer in time")
        time.sleep(0.2)


def stop_app(app: subprocess.Popen[bytes]) -> None:
    if app.poll() is None:
        os.killpg(app.pid, signal.SIGTERM)
        try:
            app.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(app.pid, signal.SIGKILL)
            app.wait()


# --- the phases -----------------------------------------------------------------------------------


def _error(answer: requests.Response) -> str:
    try:
        error = answer.json().get("error") or {}
        return f"{answer.status_code} {error.get('code')}: {error.get('message')}"
    except ValueError:
        return f"{answer.status_code}: {answer.text[:300]}"


def measure(
    dump: Path,
    base: str,
    http: requests.Session,
    sampler: Sampler,
    timeout: float,
    poll: float,
    end_poll: float,
    through: str = "import",
    stop_after: str = "run",
) -> Report:
    report = Report(file=str(dump), bytes=dump.stat().st_size)

    def phase(name: str, start: float, end: float, ok: bool = True, detail: str = "", size: int = 0) -> Phase:
        sampler.sample()  # a phase shorter than the sampling interval still has its own sample
        web, worker, tree = sampler.peaks(start, time.monotonic())
        web_cpu, worker_cpu = sampler.cpu_between(start, time.monotonic())
        done = Phase(name, round(end - start, 2), round(web, 1), round(worker, 1), round(tree, 1))
        done.web_cpu_s, done.worker_cpu_s = round(web_cpu, 2), round(worker_cpu, 2)
        done.ok, done.detail, done.answer_bytes = ok, detail, size
        done.long_worker_peak_mb = round(sampler.long_peak(start, time.monotonic()), 1)
        report.phases.append(done)
        return done

    if through == "uploads":
        found = upload_through_uploads(dump, base, http, phase, timeout, poll)
        if isinstance(found, str):
            report.error = found
            return report
        scenario = found
    else:
        found = upload_through_import(dump, base, http, phase, timeout)
        if isinstance(found, str):
            report.error = found
            return report
        scenario = found
    return check_and_run(scenario, report, base, http, sampler, phase, timeout, poll, end_poll, stop_after)


def upload_through_import(dump: Path, base: str, http: requests.Session, phase: Any, timeout: float) -> int | str:
    """The importer's request, the check left to the server's background: the scenario, or the error."""
    start = time.monotonic()
    with dump.open("rb") as data:
        answer = http.post(
            f"{base}/api/scenarios/import",
            files={"file": (dump.name, data, "application/octet-stream")},
            data={"name": dump.stem, "check": "later"},
            timeout=timeout,
        )
    if answer.status_code != 201:
        phase("upload", start, time.monotonic(), False, _error(answer))
        return _error(answer)
    phase("upload", start, time.monotonic(), size=len(answer.content))
    return int(answer.json()["id"])


def upload_through_uploads(
    dump: Path, base: str, http: requests.Session, phase: Any, timeout: float, poll: float
) -> int | str:
    """A big upload as the browser sends it (POST /api/uploads/file, the file as the raw body), then its
    read in the long-work worker: the scenario, or the error."""
    start = time.monotonic()
    with dump.open("rb") as data:
        answer = http.post(
            f"{base}/api/uploads/file",
            params={"filename": dump.name, "name": dump.stem},
            data=data,  # streamed from the file
            headers={"Content-Type": "application/octet-stream"},
            timeout=timeout,
        )
    if answer.status_code != 202:
        phase("upload", start, time.monotonic(), False, _error(answer))
        return _error(answer)
    phase("upload", start, time.monotonic(), size=len(answer.content))
    upload = answer.json()["id"]
    start = time.monotonic()
    answer, body, late = _asked_until(
        http, f"{base}/api/uploads/{upload}", timeout, poll, lambda read: read.get("status") in ("succeeded", "failed")
    )
    if late:
        phase("read", start, time.monotonic(), False, f"not read in {timeout:g} s")
        return f"the upload was not read in {timeout:g} s"
    saved = answer.ok and body.get("status") == "succeeded"
    detail = (
        ""
        if saved
        else (_error(answer) if not answer.ok else body.get("error") or json.dumps(body.get("errors", [])[:3]))
    )
    phase("read", start, time.monotonic(), saved, detail, len(answer.content))
    return int(body["scenario"]) if saved else detail


def check_and_run(
    scenario: int,
    report: Report,
    base: str,
    http: requests.Session,
    sampler: Sampler,
    phase: Any,
    timeout: float,
    poll: float,
    end_poll: float,
    stop_after: str = "run",
) -> Report:
    # read + check: the editor's read, answered once the text is checked
    sampler.sample()
    start = time.monotonic()
    answer, body = _checked_scenario(http, f"{base}/api/scenarios/{scenario}", timeout, poll)
    valid = answer.ok and body.get("valid") is True
    detail = "" if valid else (_error(answer) if not answer.ok else _invalid(body))
    phase("check", start, time.monotonic(), valid, detail, len(answer.content))
    if not valid:
        report.error = detail
        return report
    if stop_after == "check":
        return report

    # the run: started, its first cycle as the run view gets it, then its end
    sampler.sample()
    start = time.monotonic()
    answer = http.post(f"{base}/api/scenarios/{scenario}/runs", timeout=timeout)
    if answer.status_code != 201:
        phase("first cycle", start, time.monotonic(), False, _error(answer))
        report.error = _error(answer)
        return report
    run = answer.json()["id"]
    started = time.monotonic()
    deadline = started + timeout
    first_seen = False
    index: list[dict[str, Any]] = []
    status = answer.json()["status"]
    while True:
        current = http.get(f"{base}/api/runs/{run}", timeout=timeout).json()
        status, cycles = current["status"], current["progress"]["cycle"]  # cycles done (not "cycles", the pods to try)
        if not first_seen and cycles >= 1:
            # The run view's reads; a cycle counted but not stored yet (404) is asked again at the next poll.
            size, failed, pending = 0, "", False
            for path in ("names", "cycles", "segment"):
                if path == "segment":  # the first cycle the index lists
                    path = f"segment?cycle={index[0]['cycle']}" if index else "segment?cycle=0"
                got = http.get(f"{base}/api/runs/{run}/{path}", timeout=timeout)
                size += len(got.content)
                if path == "cycles" and got.ok:
                    index = got.json()
                if got.status_code == 404 and path.startswith("segment") and status not in FINISHED:
                    pending = True
                elif not got.ok:
                    failed = failed or f"/{path}: {_error(got)}"
            if not pending:
                phase("first cycle", started, time.monotonic(), not failed, failed, size)
                first_seen = True
        if status in FINISHED:
            break
        if time.monotonic() > deadline:
            report.error = f"the run did not end in {timeout:g} s"
            break
        time.sleep(poll if not first_seen else end_poll)
    end = time.monotonic()
    if not first_seen:
        phase("first cycle", started, end, False, f"the run ended ({status}) with no cycle")
    report.status, report.cycles = status, current["progress"]["cycle"]
    report.events, report.stored_mb = current["eventCount"], round(current["storedBytes"] / MB, 1)
    phase("run", started, end, status == "succeeded", current.get("error") or "")
    if status != "succeeded" and not report.error:
        report.error = current.get("error") or status
    report.run_id = run
    return report


# --- the app's answers against the CLI's ----------------------------------------------------------

# What the CLI's limits would refuse at the envelope's size: the app's embedded defaults take it.
CLI_LIMITS = ("--max-nodes", "60000", "--max-documents", "400000", "--max-pending-pods", "200000")


def cli_timeline(dump: Path, timeout: float) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "timeline", str(dump), "--json", *CLI_LIMITS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the CLI's timeline failed: {done.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def first_difference(app: dict[str, Any], cli: dict[str, Any]) -> str:
    """Where the app's story (GET /timeline) departs from the CLI's `timeline --json`: each attempt
    is compared on the fields the CLI gives (the story adds its cycle, time and attempt number)."""
    fields = sorted({key for attempt in cli["attempts"] for key in attempt})
    mine = [{key: attempt[key] for key in fields if key in attempt} for attempt in app.get("attempts", [])]
    theirs = [{key: attempt[key] for key in fields if key in attempt} for attempt in cli["attempts"]]
    for number, (a, c) in enumerate(zip(mine, theirs)):
        if a != c:
            return f"attempt {number}: the app {json.dumps(a)[:400]}, the CLI {json.dumps(c)[:400]}"
    if len(mine) != len(theirs):
        return f"the app has {len(mine)} attempts, the CLI {len(theirs)}"
    final_app, final_cli = app.get("final", {}), cli.get("final", {})
    for pod in sorted(set(final_app) | set(final_cli)):
        if final_app.get(pod) != final_cli.get(pod):
            return f"final {pod}: the app {final_app.get(pod)}, the CLI {final_cli.get(pod)}"
    return ""


def against_cli(report: Report, dump: Path, base: str, http: requests.Session, timeout: float) -> None:
    answer = http.get(f"{base}/api/runs/{report.run_id}/timeline", timeout=timeout)
    if not answer.ok:
        report.cli_difference = f"GET /timeline: {_error(answer)}"
        return
    cli = cli_timeline(dump, timeout)
    report.cli_attempts = len(cli["attempts"])
    report.cli_difference = first_difference(answer.json(), cli)


def _checked_scenario(http: Any, url: str, timeout: float, poll: float) -> tuple[Any, dict[str, Any]]:
    """The editor's answer once it holds the whole check: a big scenario ("objects" mode) answers
    ``checked: false`` at once while a long-work worker makes it (one made by an engine of other
    code, say), and the editor asks again, as this does until ``timeout``."""
    answer, body, _late = _asked_until(http, url, timeout, poll, lambda scenario: scenario.get("checked", True))
    return answer, body


def _asked_until(
    http: Any, url: str, timeout: float, poll: float, done: Callable[[dict[str, Any]], bool]
) -> tuple[Any, dict[str, Any], bool]:
    """GET ``url`` every ``poll`` seconds until ``done`` says so of its body (or it answers an
    error): the last answer, its body, and whether ``timeout`` passed first."""
    deadline = time.monotonic() + timeout
    while True:
        answer = http.get(url, timeout=timeout)
        body: dict[str, Any] = answer.json() if answer.ok else {}
        if not answer.ok or done(body):
            return answer, body, False
        if time.monotonic() > deadline:
            return answer, body, True
        time.sleep(poll)


def _invalid(body: dict[str, Any]) -> str:
    if body.get("checked") is False:
        return "the scenario was not checked in time (the editor's answer still said checked: false)"
    return json.dumps(body.get("errors", [])[:3])


def bench(
    dump: Path,
    extra_env: dict[str, str],
    timeout: float,
    poll: float,
    sample: float,
    end_poll: float = 1.0,
    through: str = "import",
    stop_after: str = "run",
    against: bool = False,
) -> Report:
    with tempfile.TemporaryDirectory(prefix="app_bench_") as tmp:
        var_dir = Path(tmp)
        port = _free_port()
        log = var_dir / "app.log"
        app = start_app(var_dir, port, extra_env, log)
        sampler = Sampler(app.pid, sample, track_long=through == "uploads")
        try:
            http = wait_until_served(f"http://127.0.0.1:{port}", app, timeout)
            sampler.sample()
            sampler.start()
            report = measure(
                dump, f"http://127.0.0.1:{port}", http, sampler, timeout, poll, end_poll, through, stop_after
            )
            if against and report.status == "succeeded":
                against_cli(report, dump, f"http://127.0.0.1:{port}", http, timeout)
        except Exception as err:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{err}\n--- the app's log, last lines:\n{tail}") from err
        finally:
            sampler.stopped.set()
            if sampler.is_alive():
                sampler.join()
            stop_app(app)
        report.process_peaks_mb = {k: round(v / MB, 1) for k, v in sorted(sampler.hwm.items()) if v}
        return report


def markdown(report: Report) -> str:
    lines = [
        f"{report.file}: {report.bytes / MB:.1f} MB ({report.bytes} bytes), run {report.status or '-'} after {report.cycles} cycles "
        f"({report.events} events, {report.stored_mb} MB stored)",
        "",
        "| phase | seconds | CPU s web / worker | web peak RSS MB | worker peak RSS MB (its processes summed) "
        "| answer bytes | ok |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for p in report.phases:
        ok = "yes" if p.ok else f"no: {p.detail}"
        worker = f"{p.worker_peak_mb} ({p.worker_tree_peak_mb})"
        cpu = f"{p.web_cpu_s} / {p.worker_cpu_s}"
        lines.append(f"| {p.name} | {p.seconds} | {cpu} | {p.web_peak_mb} | {worker} | {p.answer_bytes} | {ok} |")
    lines += ["", "each process's own peak (VmHWM, MB):"]
    lines += [f"  {name}: {mb}" for name, mb in report.process_peaks_mb.items()]
    if report.cli_difference is not None:
        verdict = report.cli_difference or f"the same {report.cli_attempts} attempts and final nodes"
        lines += ["", f"against the CLI's timeline: {verdict}"]
    if report.error:
        lines += ["", f"error: {report.error}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="a setting for the app")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds any one phase may take")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between reads until the first cycle")
    parser.add_argument("--end-poll", type=float, default=1.0, help="seconds between reads after it (the run's end)")
    parser.add_argument("--sample", type=float, default=0.1, help="seconds between memory samples")
    parser.add_argument(
        "--through",
        choices=("import", "uploads"),
        default="import",
        help="the importer's POST /api/scenarios/import, or a big upload's POST /api/uploads read by the long-work worker",
    )
    parser.add_argument("--stop-after", choices=("check", "run"), default="run", help="stop after the check (no run)")
    parser.add_argument(
        "--against-cli", action="store_true", help="hold the run's story against the CLI's `timeline --json`"
    )
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    report = bench(
        args.dump.resolve(),
        extra,
        args.timeout,
        args.poll,
        args.sample,
        args.end_poll,
        args.through,
        args.stop_after,
        args.against_cli,
    )
    print(json.dumps(asdict(report), indent=2) if args.json else markdown(report))
    agrees = not report.cli_difference
    return 0 if not report.error and all(p.ok for p in report.phases) and agrees else 1


if __name__ == "__main__":
    sys.exit(main())
