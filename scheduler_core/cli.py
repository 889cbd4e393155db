"""`python -m scheduler_core trace|timeline SCENARIO [--json]`, `bench FILE` and `snapshot [-o FILE]`.

Exit codes: 0 success, 2 invalid input (every problem listed on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

from scheduler_core import snapshot
from scheduler_core.loop import run_to_the_end
from scheduler_core.report import TimelineReport, render_comparison, render_notices, render_report
from scheduler_core.scenario import Limits, ScenarioInvalid, load_scenario
from scheduler_core.scheduler import TIE_BREAK_FIRST, TIE_BREAK_RANDOM, simulate
from scheduler_core.timeline import TimelineBuilder
from scheduler_core.trace import TraceBuilder

EXIT_INVALID = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core",
                                     description="Replay kube-scheduler v1.35's decisions on a scenario file.")
    commands = parser.add_subparsers(dest="command", required=True)
    trace = commands.add_parser("trace", help="schedule the pending pods and report every step")
    trace.add_argument("scenario", help="scenario YAML file ('-' for standard input)")
    trace.add_argument("--json", action="store_true", help="print the trace summary JSON of the spec")
    trace.add_argument("--events", action="store_true", help="print the raw event stream as JSON lines")
    trace.add_argument("--tie-break", choices=(TIE_BREAK_FIRST, TIE_BREAK_RANDOM), default=TIE_BREAK_FIRST,
                       help="first node in document order (default) or the real scheduler's random pick")
    trace.add_argument("--seed", type=int, default=None, help="random seed for --tie-break random")
    timeline = commands.add_parser("timeline", help="run the scheduler to the end: queue, retries, preemption")
    timeline.add_argument("scenario", help="scenario YAML file ('-' for standard input)")
    timeline.add_argument("--json", action="store_true", help="print the timeline JSON of spec/TIMELINE.md")
    timeline.add_argument("--events", action="store_true", help="print the raw event stream as JSON lines")
    timeline.add_argument("--tie-break", choices=(TIE_BREAK_FIRST, TIE_BREAK_RANDOM), default=TIE_BREAK_FIRST,
                          help="first node in document order (default) or the real scheduler's random pick")
    timeline.add_argument("--seed", type=int, default=None, help="random seed for --tie-break random")
    bench = commands.add_parser("bench", help="measure scheduling speed and memory on a scenario")
    bench.add_argument("scenario")
    bench.add_argument("--percentage", type=int, default=None,
                       help="override percentageOfNodesToScore (0 = adaptive)")
    bench.add_argument("--limit", type=int, default=None, help="schedule only the first N pending pods")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--loop", action="store_true",
                       help="run the scheduler to the end (queue, retries, preemption): attempts/s and pods bound/s")
    for command in (trace, timeline, bench):
        _add_limit_flags(command)
    compare = commands.add_parser("compare", help="two runs to the end side by side: scenarios or configurations")
    compare.add_argument("scenarios", nargs="+", metavar="SCENARIO", help="A [B]: one scenario with two --config, or two")
    compare.add_argument("--config", action="append", default=[], metavar="FILE",
                         help="a KubeSchedulerConfiguration for A, then one for B (replaces the scenario's own)")
    compare.add_argument("--pod", default=None, help="also compare this pod's weighted scores per node and plugin")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    whatif = commands.add_parser("whatif", help="the smallest single changes that would let a pending pod fit")
    whatif.add_argument("scenario")
    whatif.add_argument("pod", help="namespace/name of a pending pod")
    whatif.add_argument("--json", action="store_true", help="print the suggestions as JSON")
    snapshot = commands.add_parser("snapshot", help="write a scenario file from a live cluster (kubeconfig)")
    snapshot.add_argument("-o", "--output", default="-", help="file to write ('-', the default: standard output)")
    snapshot.add_argument("--kubeconfig", default=None, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    snapshot.add_argument("--context", default=None, help="kubeconfig context (default: the current one)")
    return parser


def _limit_flag(name: str) -> str:
    """--max-pending-pods for Limits.max_pending_pods."""
    return "--" + name.replace("_", "-")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_limit_flags(command: argparse.ArgumentParser) -> None:
    """One flag per size limit the loader enforces (scenario.limits.Limits), defaulting to its value."""
    group = command.add_argument_group("size limits (a larger scenario is refused, naming the flag)")
    for limit in dataclasses.fields(Limits):
        group.add_argument(_limit_flag(limit.name), dest=limit.name, type=_positive, default=limit.default,
                           metavar="N", help=f"default {limit.default}")


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the flags ask for (the defaults when a command has none)."""
    defaults = Limits()
    return Limits(**{limit.name: getattr(args, limit.name, getattr(defaults, limit.name))
                     for limit in dataclasses.fields(Limits)})


def _with_flag(message: str) -> str:
    """A size-limit message names its field ("(Limits.max_pending_pods)"): add the flag that raises it."""
    for limit in dataclasses.fields(Limits):
        if message.endswith(f"(Limits.{limit.name})"):
            return f"{message}; raise it with {_limit_flag(limit.name)}"
    return message


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _load(path: str, limits: Optional[Limits] = None):
    try:
        return load_scenario(_read(path), limits=limits or Limits())
    except OSError as err:
        print(f"error: cannot read {path}: {err.strerror}", file=sys.stderr)
    except ScenarioInvalid as err:
        print(f"error: {path} is not a valid scenario ({len(err.errors)} problem(s)):", file=sys.stderr)
        for problem in err.errors:
            print(f"  {_with_flag(str(problem))}", file=sys.stderr)
    return None


def run_trace(args: argparse.Namespace) -> int:
    scenario = _load(args.scenario, limits_from(args))
    if scenario is None:
        return EXIT_INVALID
    builder = TraceBuilder()
    events = []
    for event in simulate(scenario, tie_break=args.tie_break, seed=args.seed):
        builder.add(event)
        if args.events:
            print(json.dumps(event.to_json(), sort_keys=True))
        elif not args.json:
            events.append(event)
    if args.json:
        print(json.dumps(builder.summary(), sort_keys=True))
    elif not args.events:
        print(render_report(events, scenario))
    return 0


def run_timeline(args: argparse.Namespace) -> int:
    scenario = _load(args.scenario, limits_from(args))
    if scenario is None:
        return EXIT_INVALID
    builder = TimelineBuilder()
    report = TimelineReport()
    for event in run_to_the_end(scenario, tie_break=args.tie_break, seed=args.seed):
        builder.add(event)
        if args.events:
            print(json.dumps(event.to_json(), sort_keys=True))
        elif not args.json:
            report.add(event)
    if args.json:
        print(json.dumps(builder.summary(), sort_keys=True))
    elif not args.events:
        print("\n".join([*render_notices(scenario), *report.lines]))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    import time

    from scheduler_core.bench import BenchResult, LoopBenchResult, run_benchmark, run_loop_benchmark

    load_started = time.perf_counter()
    scenario = _load(args.scenario, limits_from(args))
    load_s = time.perf_counter() - load_started
    if scenario is None:
        return EXIT_INVALID
    result: BenchResult | LoopBenchResult
    if args.loop:
        result = dataclasses.replace(run_loop_benchmark(scenario, percentage=args.percentage), load_s=load_s)
    else:
        result = run_benchmark(scenario, percentage=args.percentage, limit=args.limit)
    if args.json:
        print(json.dumps(result.to_json(), sort_keys=True))
    else:
        print(result.render(args.scenario))
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from scheduler_core.compare import compare

    if len(args.scenarios) > 2 or len(args.config) not in (0, 2) or (len(args.scenarios) == 1 and len(args.config) != 2):
        print("error: give two scenarios, or one scenario and two --config files (or two of each)", file=sys.stderr)
        return EXIT_INVALID
    paths = args.scenarios * (2 // len(args.scenarios))
    sides = []
    for index, path in enumerate(paths):
        scenario = _load(path)
        if scenario is None:
            return EXIT_INVALID
        if args.config:
            configured = _load(args.config[index])
            if configured is None:
                return EXIT_INVALID
            scenario = dataclasses.replace(scenario, config=configured.config)
        sides.append((e.to_json() for e in run_to_the_end(scenario)))
    result = compare(sides[0], sides[1], pod=args.pod)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(render_comparison(result))
    return 0


def run_whatif(args: argparse.Namespace) -> int:
    from scheduler_core.whatif import NotPending, what_if

    scenario = _load(args.scenario)
    if scenario is None:
        return EXIT_INVALID
    try:
        answer = what_if(scenario, args.pod)
    except NotPending as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(answer, sort_keys=True))
        return 0
    lines = [answer["summary"]]
    for suggestion in answer["suggestions"]:
        lines.append(f"  {suggestion['text']}: fits on {suggestion['nodeCount']} node(s) ({', '.join(suggestion['nodes'][:5])}"
                     f"{', …' if suggestion['nodeCount'] > 5 else ''})")
    if answer["moreSuggestions"]:
        lines.append(f"  …and {answer['moreSuggestions']} more, more intrusive or opening fewer nodes (only the first 25 are listed)")
    print("\n".join(lines))
    return 0


def run_snapshot(args: argparse.Namespace) -> int:
    try:
        read_page, source = snapshot.kubeconfig_reader(args.kubeconfig, args.context)
        taken = snapshot.take(read_page, source)
    except snapshot.SnapshotError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    text = taken.to_yaml()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    read = ", ".join(f"{n} {kind}" for kind, n in taken.counts.items())
    print(f"read {read}" + "".join(f"; not read: {kind} ({why})" for kind, why in taken.skipped.items()), file=sys.stderr)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "trace":
            return run_trace(args)
        if args.command == "timeline":
            return run_timeline(args)
        if args.command == "snapshot":
            return run_snapshot(args)
        if args.command == "compare":
            return run_compare(args)
        if args.command == "whatif":
            return run_whatif(args)
        return run_bench(args)
    except BrokenPipeError:
        return 0
