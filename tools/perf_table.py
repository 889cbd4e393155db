"""Measure kube-scheduler's own performance workloads (../shared/bench/perf) run to the end.

    python tools/perf_table.py [--perf-dir DIR] [--jobs N] [FILE ...]

Each file is run as a user runs it — the whole process of
``python -m scheduler_core timeline FILE --json --max-pending-pods 20000`` (loading, the run to the
end, the JSON written) — and the table row gives: attempts, pods bound, wall and CPU seconds of the
process, pods bound per second (per wall second and per CPU second: on a shared machine the CPU
figure is what an idle machine would show), attempts per CPU second, peak RSS, and the upstream
threshold from the folder's README with the ratio. ``--jobs`` runs that many files at once
(each process is single-threaded). The printed table is Markdown (docs/PERFORMANCE.md).

**Calibration.** The machine's speed drifts (shared cores, frequency): right before and right after
each file this process times a fixed pure-Python workload (``fixed_workload``, the least CPU time of
three runs). ``calibrated pods/s`` is pods/s (CPU) × (that time, the mean of before and after) /
``REFERENCE_LOOP_S``, the workload's CPU time on this project's 2-core machine at its usual speed:
what the run would have shown on that machine at that speed. ``--perf-dir`` measures another
folder written the same way (``tools/perf_dra.py``'s DRA workloads).

**Bytecode.** The engine's modules are compiled to bytecode first, as any installed copy and any
checkout run once has them: where ``PYTHONDONTWRITEBYTECODE`` is set (this project's machines set
it) every process would otherwise compile the engine's 200 modules again, ~0.25 s of CPU each time.
"""

from __future__ import annotations

import argparse
import compileall
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
PERF_DIR = ROOT.parent / "shared" / "bench" / "perf"
MAX_PENDING = "20000"
# fixed_workload's CPU seconds (least of three) on the project's 2-core machine, 2026-11-25
# (0.220-0.223 s in 9 runs, two other CPU-bound jobs running): the speed calibrated figures refer to.
REFERENCE_LOOP_S = 0.22


def fixed_workload() -> int:
    """A fixed pure-Python workload (dict writes and reads, integer arithmetic), ~0.2 s of CPU."""
    total, table = 0, {}
    for i in range(2_000_000):
        table[i & 1023] = i
        total += table.get((i * 7) & 1023, 0)
    return total


def loop_seconds() -> float:
    """fixed_workload's CPU time in this thread (``--jobs`` runs files from several), the least of
    three runs."""
    best = float("inf")
    for _ in range(3):
        started = time.thread_time()
        fixed_workload()
        best = min(best, time.thread_time() - started)
    return best


@dataclass(frozen=True)
class Row:
    file: str
    attempts: int
    bound: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    threshold: Optional[float]
    error: str = ""
    loop_s: float = REFERENCE_LOOP_S

    @property
    def calibrated(self) -> float:
        """Pods bound per CPU second as the machine at REFERENCE_LOOP_S would have run them."""
        return self.bound / self.cpu_s * self.loop_s / REFERENCE_LOOP_S

    def cells(self) -> list[str]:
        if self.error:
            return [f"`{self.file}`", self.error] + [""] * (len(HEADER) - 2)
        per_wall, per_cpu = self.bound / self.wall_s, self.bound / self.cpu_s
        ratio = f"{per_wall / self.threshold:.2f} / {per_cpu / self.threshold:.2f}" if self.threshold else "—"
        calibrated_ratio = f"**{self.calibrated / self.threshold:.2f}**" if self.threshold else "—"
        return [
            f"`{self.file}`",
            str(self.attempts),
            str(self.bound),
            f"{self.wall_s:.1f}",
            f"{self.cpu_s:.1f}",
            f"{per_wall:.0f}",
            f"{per_cpu:.0f}",
            f"{self.attempts / self.cpu_s:.0f}",
            f"{self.threshold:.0f}" if self.threshold else "—",
            ratio,
            f"{self.loop_s:.3f}",
            f"{self.calibrated:.0f}",
            calibrated_ratio,
            f"{self.peak_rss_mb:.0f}",
        ]


HEADER = [
    "file",
    "attempts",
    "pods bound",
    "wall s",
    "CPU s",
    "pods/s (wall)",
    "pods/s (CPU)",
    "attempts/s (CPU)",
    "threshold",
    "ratio (wall / CPU)",
    "loop s",
    "calibrated pods/s",
    "calibrated ratio",
    "peak RSS MB",
]


def thresholds(readme: Path) -> dict[str, float]:
    """The README's table: file name -> upstream threshold (pods/s), where it has one."""
    found: dict[str, float] = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and cells[0].startswith("`") and cells[0].endswith(".yaml`"):
            try:
                found[cells[0].strip("`")] = float(cells[5].replace(",", ""))
            except ValueError:
                continue  # "— (none)"
    return found


# The child reports its own CPU time and peak RSS when it exits (whole process, interpreter included).
_CHILD = (
    "import atexit, json, resource, sys\n"
    "def _report():\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    sys.stderr.write('\\nRUSAGE ' + json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss]) + '\\n')\n"
    "atexit.register(_report)\n"
    "from scheduler_core.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def measure(path: Path, threshold: Optional[float]) -> Row:
    """One whole `timeline --json` process: wall time, its own CPU time and peak RSS, and the fixed
    workload's time around it."""
    before = loop_seconds()
    row = _measure(path, threshold)
    return replace(row, loop_s=(before + loop_seconds()) / 2)


def _measure(path: Path, threshold: Optional[float]) -> Row:
    command = [sys.executable, "-c", _CHILD, "timeline", str(path), "--json", "--max-pending-pods", MAX_PENDING]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - started
    err = done.stderr.decode(errors="replace")
    if done.returncode:
        return Row(path.name, 0, 0, wall, 0.0, 0.0, threshold, f"exit {done.returncode}: {err[-200:]}")
    cpu, rss_kb = json.loads(err.rsplit("RUSAGE ", 1)[1])
    attempts = json.loads(done.stdout)["attempts"]
    bound = sum(1 for attempt in attempts if attempt.get("nodeName"))
    return Row(path.name, len(attempts), bound, wall, cpu, rss_kb / 1024, threshold)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="file names in the folder (default: every *.yaml)")
    parser.add_argument("--perf-dir", type=Path, default=PERF_DIR)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    limits = thresholds(args.perf_dir / "README.md")
    compileall.compile_dir(ROOT / "scheduler_core", quiet=1)
    paths = [args.perf_dir / name for name in args.files] if args.files else sorted(args.perf_dir.glob("*.yaml"))
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for row in pool.map(lambda p: measure(p, limits.get(p.name)), paths):
            print("| " + " | ".join(row.cells()) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
