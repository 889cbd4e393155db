"""`python -m scheduler_core trace|timeline|check|capacity SCENARIO... [--json]`, `explain-pod SCENARIO NS/POD`, `bench FILE`
and `snapshot [-o FILE]`.

A SCENARIO is a file, several files, a directory or an archive (.tar, .tar.gz/.tgz, .zip) of
YAML/JSON, or '-' for standard input (scenario/sources.py; docs/INPUT_FORMS.md).

Exit codes: 0 success, 2 invalid input (every problem listed on stderr, no traceback), 3 for
`trace`/`timeline` when the scenario holds no Node: there is nothing to schedule against, so the
answer ("every pending pod stays pending") says nothing about a cluster — most often the dump was
read without its nodes.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

from scheduler_core.scenario import live_cluster as snapshot
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.events import Event, ExtensionPoint
from scheduler_core.answers.filter_details import cycles_with_details
from scheduler_core.model import NoticeCode, Scenario
from scheduler_core.cluster.node_lifecycle import NodeTaintChange, controller_taint_changes, with_controller_taints
from scheduler_core.answers.recorded import (
    RecordedComparison,
    Replayed,
    compare_recorded,
    replayed_from_timeline,
    replayed_from_trace,
    with_recorded,
)
from scheduler_core.answers.report import (
    MAX_NODES_LISTED,
    TimelineReport,
    render_comparison,
    cycle_report_lines,
    render_notices,
    report_header,
)
from scheduler_core.scenario import Limits, ScenarioInvalid
from scheduler_core.scenario.limits import in_own_words, setting_value
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.gcfreeze import collector_frozen
from scheduler_core.scenario.sources import load_paths
from scheduler_core.run.schedule_one import TIE_BREAK_FIRST, TIE_BREAK_RANDOM, simulate
from scheduler_core.answers.capacity_json import CAPACITY_ANSWERS
from scheduler_core.answers.findings import Finding
from scheduler_core.answers.upgrade import UpgradeComparison, UpgradeCounts
from scheduler_core.encoding.schema import schema_text
from scheduler_core.encoding.timeline import TIMELINE_READS, TimelineBuilder
from scheduler_core.encoding.trace import TRACE_READS, TraceBuilder
from scheduler_core.util.wire import Wire
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.gates import FeatureGateError, parse_feature_gates
from scheduler_core.release.versions import DEFAULT_RELEASE, Release, UnknownRelease, release_named, supported_names

EXIT_INVALID = 2
EXIT_NO_NODES = 3
SCENARIO_HELP = (
    "scenario: YAML/JSON file(s), a directory or an archive (.tar, .tar.gz, .zip) of a dump; '-' for standard input"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scheduler_core",
        description="Replay kube-scheduler's decisions on a scenario file, with the rules of your cluster's release (v1.32 to v1.36: --release, else as the dump says).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    trace = _add_run_command(
        commands, "trace", "schedule the pending pods and report every step", "print the trace summary JSON of the spec"
    )
    timeline = _add_run_command(
        commands,
        "timeline",
        "run the scheduler to the end: queue, retries, preemption",
        "print the timeline JSON of ../shared/spec/TIMELINE.md",
    )
    check = commands.add_parser("check", help="what was read, what was left out, what the dump lacks (no run)")
    check.add_argument("scenario", nargs="+", help=SCENARIO_HELP)
    check.add_argument("--json", action="store_true", help="print the check as JSON (docs/CHECK.md)")
    _add_taints_flag(check)
    _add_release_flags(check)
    explain_pod = commands.add_parser("explain-pod", help="why is this running pod on its node? (its cycle re-run now)")
    explain_pod.add_argument("scenario", help="scenario: a YAML/JSON file, a directory or an archive of a dump")
    explain_pod.add_argument("pod", help="namespace/name of a running pod")
    explain_pod.add_argument("--json", action="store_true", help="print the answer as JSON")
    _add_taints_flag(explain_pod)
    _add_release_flags(explain_pod)
    bench = commands.add_parser("bench", help="measure scheduling speed and memory on a scenario")
    bench.add_argument("scenario", nargs="+", help=SCENARIO_HELP)
    bench.add_argument("--percentage", type=int, default=None, help="override percentageOfNodesToScore (0 = adaptive)")
    bench.add_argument("--limit", type=int, default=None, help="schedule only the first N pending pods")
    bench.add_argument("--json", action="store_true")
    bench.add_argument(
        "--loop",
        action="store_true",
        help="run the scheduler to the end (queue, retries, preemption): attempts/s and pods bound/s",
    )
    for command in (trace, timeline, bench, check, explain_pod):
        _add_limit_flags(command)
    _add_release_flags(bench)
    compare = commands.add_parser("compare", help="two runs to the end side by side: scenarios or configurations")
    compare.add_argument(
        "scenarios",
        nargs="+",
        metavar="SCENARIO",
        help="A [B]: one scenario with two --config, or two (each a file, a directory or an archive)",
    )
    compare.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="a KubeSchedulerConfiguration for A, then one for B (replaces the scenario's own)",
    )
    compare.add_argument(
        "--release",
        action="append",
        type=_release,
        default=[],
        metavar="v1.3X",
        help="one scenario with --release OLD --release NEW: what changes if the cluster is upgraded, and why "
        "(each difference traced to the feature gate or code change behind it); one --release: both sides "
        f"replayed as that release ({supported_names()})",
    )
    compare.add_argument("--pod", default=None, help="also compare this pod's weighted scores per node and plugin")
    _add_limit_flags(compare)
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    whatif = commands.add_parser("whatif", help="the smallest single changes that would let a pending pod fit")
    whatif.add_argument("scenario", help="scenario: a YAML/JSON file, a directory or an archive of a dump")
    whatif.add_argument("pod", help="namespace/name of a pending pod")
    whatif.add_argument("--json", action="store_true", help="print the suggestions as JSON")
    _add_release_flags(whatif)
    _add_limit_flags(whatif)
    capacity = commands.add_parser("capacity", help="how many more fit, nodes needed, nodes that can go, fragmentation")
    capacity.add_argument("scenario", nargs="+", help=SCENARIO_HELP)
    question = capacity.add_mutually_exclusive_group(required=True)
    question.add_argument("--workload", metavar="NS/NAME", help="how many more replicas of this workload fit")
    question.add_argument("--pod", metavar="NS/NAME", help="how many more copies of this pod fit")
    question.add_argument(
        "--add-like",
        action="append",
        metavar="NODE",
        help="how many nodes like NODE the pending pods need (repeat to compare templates)",
    )
    question.add_argument("--removable", action="store_true", help="which nodes can be drained and removed")
    question.add_argument(
        "--fragmentation", action="store_true", help="free capacity against the largest request that fits"
    )
    capacity.add_argument(
        "--max",
        type=int,
        default=None,
        help="the most copies (--workload/--pod) or nodes to try; the answer says when it stopped there",
    )
    capacity.add_argument(
        "--method",
        choices=("auto", "place", "trials"),
        default="auto",
        help="--pod only. auto (default): copies counted per node when they are independent "
        "(resources, pod slots, ports, node constraints), else placed one by one in one "
        "pass (cluster-capacity's way), else — pods still pending after the scenario's run, "
        "copies that could preempt, claims — the trial search; place: always the one pass; "
        "trials: always the trial search (docs/CAPACITY.md)",
    )
    capacity.add_argument("--json", action="store_true", help="print the answer as JSON (docs/CAPACITY.md)")
    _add_release_flags(capacity)
    _add_limit_flags(capacity)
    capacity.add_argument(
        "--progress",
        action="store_true",
        help="on stderr: each trial run as it starts, copies placed (and per second) in a pass",
    )
    commands.add_parser("schema", help="print the JSON Schema of every payload (static/schema/payloads.json)")
    snapshot = commands.add_parser("snapshot", help="write a scenario file from a live cluster (kubeconfig)")
    snapshot.add_argument("-o", "--output", default="-", help="file to write ('-', the default: standard output)")
    snapshot.add_argument("--kubeconfig", default=None, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    snapshot.add_argument("--context", default=None, help="kubeconfig context (default: the current one)")
    return parser


def _add_run_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, summary: str, json_help: str
) -> argparse.ArgumentParser:
    """``trace`` and ``timeline``: the same scenario, output and tie-break arguments."""
    parser = commands.add_parser(name, help=summary)
    parser.add_argument("scenario", nargs="+", help=SCENARIO_HELP)
    parser.add_argument("--json", action="store_true", help=json_help)
    parser.add_argument("--events", action="store_true", help="print the raw event stream as JSON lines")
    parser.add_argument(
        "--tie-break",
        choices=(TIE_BREAK_FIRST, TIE_BREAK_RANDOM),
        default=TIE_BREAK_FIRST,
        help="first node in document order (default) or the real scheduler's random pick",
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed for --tie-break random")
    _add_taints_flag(parser)
    _add_release_flags(parser)
    return parser


def _add_release_flags(command: argparse.ArgumentParser) -> None:
    """--release and --feature-gates: which kube-scheduler to replay (unasked: what the dump says)."""
    command.add_argument(
        "--release",
        type=_release,
        default=None,
        metavar="v1.3X",
        help=f"replay with this release's rules ({supported_names()}); default: the release the dump says "
        f"(kube-scheduler's image, kubectl version, the kubelets), else {DEFAULT_RELEASE.name}",
    )
    command.add_argument(
        "--feature-gates",
        type=_gates,
        default=None,
        metavar="A=true,B=false",
        help="kube-scheduler's --feature-gates (default: the release's defaults, or those the dump's kube-scheduler has)",
    )


def _release(text: str) -> Release:
    try:
        return release_named(text)
    except UnknownRelease as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _gates(text: str) -> dict[str, bool]:
    try:
        return parse_feature_gates(text)
    except FeatureGateError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def release_request(args: argparse.Namespace) -> ReleaseRequest:
    """What --release and --feature-gates ask for (nothing: the dump decides)."""
    return ReleaseRequest(getattr(args, "release", None), getattr(args, "feature_gates", None))


def _add_taints_flag(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--add-node-taints",
        action="store_true",
        help="first give nodes the taints the node lifecycle controller keeps in step with their "
        "conditions (not-ready, unreachable, pressure, unschedulable)",
    )


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
        group.add_argument(
            _limit_flag(limit.name),
            dest=limit.name,
            type=_positive,
            default=limit.default,
            metavar="N",
            help=f"default {limit.default}",
        )


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the flags ask for (the defaults when a command has none)."""
    defaults = Limits()
    return Limits(
        **{limit.name: getattr(args, limit.name, getattr(defaults, limit.name)) for limit in dataclasses.fields(Limits)}
    )


def _with_flag(message: str) -> str:
    """A size-limit message ends with its field ("(Limits.max_pending_pods)"): the flag that raises
    it, with the value that would take this scenario when the message says it, in its place."""
    return in_own_words(
        message, lambda limit, value: f"raise it with {_limit_flag(limit)} {setting_value(limit, value)}"
    )


def _load(
    paths: Sequence[str] | str, limits: Optional[Limits] = None, release: ReleaseRequest = ReleaseRequest()
) -> Optional[Scenario]:
    """The scenario in ``paths`` (one path, or several read as one), or None once every problem is on stderr."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    try:
        # A command line's process may fork: a big text's second half is read meanwhile by a child.
        return load_paths(paths, limits=limits or Limits(), release=release, second_process=True)
    except OSError as err:
        print(f"error: cannot read {' '.join(paths)}: {err.strerror}", file=sys.stderr)
    except ScenarioInvalid as err:
        print(f"error: {' '.join(paths)} is not a valid scenario ({len(err.errors)} problem(s)):", file=sys.stderr)
        for problem in err.errors:
            print(f"  {_with_flag(str(problem))}", file=sys.stderr)
    return None


def _with_taints(scenario: Scenario, args: argparse.Namespace) -> tuple[Scenario, Optional[list[NodeTaintChange]]]:
    """--add-node-taints: the scenario with the controller's taint changes made, and those changes."""
    if not getattr(args, "add_node_taints", False):
        return scenario, None
    changes = controller_taint_changes(scenario)
    return with_controller_taints(scenario, changes), changes


def _taint_lines(changes: Optional[list[NodeTaintChange]]) -> list[str]:
    if changes is None:
        return []
    if not changes:
        return ["note: --add-node-taints: every node already carries the taints its conditions call for"]
    return [f"note: --add-node-taints: {change.text}" for change in changes]


def _exit_code(scenario: Scenario) -> int:
    """0, or 3 when there is no node to schedule against (said on stderr, beside the output)."""
    for notice in scenario.notices:
        if notice.code is NoticeCode.NO_NODES:
            print(f"error: {notice.message}", file=sys.stderr)
            return EXIT_NO_NODES
    return 0


def _drive(
    args: argparse.Namespace,
    scenario: Scenario,
    events: Iterable[Event],
    builder: Union[TraceBuilder, TimelineBuilder],
    replayed_from: Callable[[dict[str, Any]], dict[str, Replayed]],
    keep: Callable[[Event], None],
) -> Optional[RecordedComparison]:
    """What trace and timeline do with their event stream: every event goes to the builder and is
    printed as a JSON line (--events) or handed to ``keep`` for the text report; --json then prints
    the summary beside the recorded outcome. Returns that comparison when the text report is wanted
    (neither flag), None when there is nothing more to print."""
    for event in events:
        builder.add(event)
        if args.events:
            print(json.dumps(event.to_json(), sort_keys=True))
        elif not args.json:
            keep(event)
    if args.json or args.events:  # the JSON is the spec's, exactly: the release is said beside it
        print(f"release: {scenario.release.sentence()}", file=sys.stderr)
    if args.events and not args.json:
        return None
    # The stream's end thawed the run's objects (util/gcfreeze): the summary's few hundred thousand
    # new objects would make the collector walk all of them in full passes that free nothing.
    with collector_paused():
        summary = builder.summary()
        recorded = compare_recorded(scenario, replayed_from(summary))
        if args.json:
            print(json.dumps(with_recorded(summary, recorded), sort_keys=True))
            return None
    return recorded


def _stream_trace_json(scenario: Scenario, events: Iterable[Event]) -> None:
    """`trace --json`, written a cycle at a time: the bytes ``json.dumps(summary, sort_keys=True)``
    would print, without the whole summary in memory (3,340 pending pods on 5,000 nodes are 1.5 GB
    of JSON: held whole, 5.7 GB of Python objects). Only each pod's outcome is kept, for the
    recorded answer that follows the cycles."""
    builder = TraceBuilder()
    outcomes: dict[str, Replayed] = {}
    out = sys.stdout
    separator = ""
    out.write('{"cycles": [')

    def write_done() -> None:
        nonlocal separator
        for cycle in builder.take():
            outcomes.update(replayed_from_trace({"cycles": [cycle]}))
            out.write(separator + json.dumps(cycle, sort_keys=True))
            separator = ", "

    for event in events:
        if event.extension_point is ExtensionPoint.CYCLE_START:
            write_done()  # the cycle before it is complete
        builder.add(event)
    write_done()
    print(f"release: {scenario.release.sentence()}", file=sys.stderr)
    recorded = compare_recorded(scenario, outcomes)
    tail = f', "recorded": {json.dumps(recorded.to_json(), sort_keys=True)}' if recorded.outcomes else ""
    out.write(f"]{tail}}}\n")


def _load_frozen(args: argparse.Namespace, frozen: contextlib.ExitStack) -> Optional[Scenario]:
    """_load, and what the read made frozen (util/gcfreeze) before the collector is on again, until
    ``frozen`` closes: the collector's first passes would walk every one of those objects (~0.3 s
    at 5,000 nodes), none of them garbage while the command runs."""
    with collector_paused():
        scenario = _load(args.scenario, limits_from(args), release_request(args))
        frozen.enter_context(collector_frozen())
    return scenario


def run_trace(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as frozen:
        return _trace(args, _load_frozen(args, frozen))


def _trace(args: argparse.Namespace, scenario: Optional[Scenario]) -> int:
    if scenario is None:
        return EXIT_INVALID
    scenario, changes = _with_taints(scenario, args)
    if args.json and not args.events:
        # --json alone reads the builder's summary: the pass writes only the events the builder reads.
        _stream_trace_json(scenario, simulate(scenario, tie_break=args.tie_break, seed=args.seed, reads=TRACE_READS))
        return _exit_code(scenario)
    if not args.json and not args.events:
        _stream_trace_text(args, scenario, changes)
        return _exit_code(scenario)
    _drive(
        args,
        scenario,
        simulate(scenario, tie_break=args.tie_break, seed=args.seed),
        TraceBuilder(),
        replayed_from_trace,
        lambda event: None,
    )
    return _exit_code(scenario)


def _stream_trace_text(args: argparse.Namespace, scenario: Scenario, changes: Optional[list[NodeTaintChange]]) -> None:
    """`trace`'s text report, written a cycle at a time from one replay (each cycle's events with the
    facts behind its rejections): only each pod's outcome is kept, for the recorded answer after the
    cycles. Held whole, 5,000 pending pods on 5,000 nodes grew past 8 GB."""
    out = sys.stdout
    builder = TraceBuilder()
    outcomes: dict[str, Replayed] = {}
    for line in [*_taint_lines(changes), *report_header(scenario)]:
        out.write(line + "\n")
    cycles = cycles_with_details(scenario, tie_break=args.tie_break, seed=args.seed, per_plugin=MAX_NODES_LISTED)
    for events, details in cycles:
        for event in events:
            builder.add(event)
        for line in cycle_report_lines(events, details, args.tie_break):
            out.write(line + "\n")
        for cycle in builder.take():  # the group is the whole cycle: the next one began
            outcomes.update(replayed_from_trace({"cycles": [cycle]}))
    for line in compare_recorded(scenario, outcomes).lines():
        out.write(line + "\n")


def run_timeline(args: argparse.Namespace) -> int:
    # The collector stays off from the read to the run's first event, where the run freezes what
    # is alive (util/gcfreeze): on in between, its first passes walk every object the read and the
    # scheduler's set-up made, none of them garbage (~0.1 s of a 5,000-node timeline).
    with collector_paused():
        scenario = _load(args.scenario, limits_from(args), release_request(args))
        if scenario is None:
            return EXIT_INVALID
        scenario, changes = _with_taints(scenario, args)
        if not scenario.nodes:
            # Without a node a pending pod is retried with back-off for ever (ErrNoNodesAvailable is
            # no unschedulable status that would park it): there is no end to run to.
            print("\n".join(render_notices(scenario)))
            return _exit_code(scenario)
        # --json alone reads the builder's summary: the run writes only the events the builder reads.
        reads = TIMELINE_READS if args.json and not args.events else None
        events = _started(run_to_the_end(scenario, tie_break=args.tie_break, seed=args.seed, reads=reads))
    report = TimelineReport()
    recorded = _drive(args, scenario, events, TimelineBuilder(), replayed_from_timeline, report.add)
    if recorded is not None:
        print("\n".join([*_taint_lines(changes), *render_notices(scenario), *report.lines, *recorded.lines()]))
    return _exit_code(scenario)


def _started(events: Iterator[Event]) -> Iterator[Event]:
    """The same events, the first one already made (the scheduler's set-up done by then)."""
    first = next(events, None)
    return events if first is None else itertools.chain([first], events)


def run_check(args: argparse.Namespace) -> int:
    from scheduler_core.answers.check import check_scenario

    scenario = _load(args.scenario, limits_from(args), release_request(args))
    if scenario is None:
        return EXIT_INVALID
    scenario, changes = _with_taints(scenario, args)
    report = check_scenario(scenario, changes)
    if args.json:
        print(json.dumps(_with_release(report.to_json(), scenario), sort_keys=True))
    else:
        print("\n".join([_release_line(scenario), *report.lines()]))
    return 0


def _with_release(answer: dict[str, Any], scenario: Scenario) -> dict[str, Any]:
    """An answer's JSON (SchedLab's own formats) with the release it was computed with."""
    return {**answer, "release": scenario.release.to_json()}


def _release_line(scenario: Scenario) -> str:
    return f"release: {scenario.release.sentence()}"


def run_explain_pod(args: argparse.Namespace) -> int:
    from scheduler_core.answers.explain_pod import NotBound, explain_pod

    scenario = _load(args.scenario, limits_from(args), release_request(args))
    if scenario is None:
        return EXIT_INVALID
    scenario, changes = _with_taints(scenario, args)
    try:
        answer = explain_pod(scenario, args.pod)
    except NotBound as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(_with_release(answer.to_json(), scenario), sort_keys=True))
    else:
        print("\n".join([_release_line(scenario), *_taint_lines(changes), *answer.lines()]))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    import time

    load_started = time.perf_counter()
    with contextlib.ExitStack() as frozen:  # as for `trace`
        scenario = _load_frozen(args, frozen)
        load_s = time.perf_counter() - load_started
        return _bench(args, scenario, load_s)


def _bench(args: argparse.Namespace, scenario: Optional[Scenario], load_s: float) -> int:
    from scheduler_core.run.bench import BenchResult, LoopBenchResult, run_benchmark, run_loop_benchmark

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
        print(result.render(" ".join(args.scenario)))
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from scheduler_core.answers.compare import compare_events

    if len(args.release) == 2:
        return _run_upgrade(args)
    if len(args.release) > 2:
        print(
            "error: give --release twice at most: the release the cluster runs, then the one to upgrade to",
            file=sys.stderr,
        )
        return EXIT_INVALID
    if (
        len(args.scenarios) > 2
        or len(args.config) not in (0, 2)
        or (len(args.scenarios) == 1 and len(args.config) != 2)
    ):
        print("error: give two scenarios, or one scenario and two --config files (or two of each)", file=sys.stderr)
        return EXIT_INVALID
    paths = args.scenarios * (2 // len(args.scenarios))
    sides = []
    for index, path in enumerate(paths):
        scenario = _load(path, limits_from(args), ReleaseRequest(args.release[0] if args.release else None))
        if scenario is None:
            return EXIT_INVALID
        if args.config:
            configured = _load(args.config[index], limits_from(args))
            if configured is None:
                return EXIT_INVALID
            scenario = dataclasses.replace(scenario, config=configured.config)
        sides.append(run_to_the_end(scenario))
    result = compare_events(sides[0], sides[1], pod=args.pod)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(render_comparison(result))
    return 0


def _run_upgrade(args: argparse.Namespace) -> int:
    """compare SCENARIO --release OLD --release NEW: the upgrade's effect, each difference with its cause."""
    from scheduler_core.answers.upgrade import compare_releases

    if len(args.scenarios) != 1 or args.config:
        print("error: an upgrade comparison takes one scenario and two --release (no --config)", file=sys.stderr)
        return EXIT_INVALID
    old, new = args.release
    scenario = _load(args.scenarios[0], limits_from(args))
    if scenario is None:
        return EXIT_INVALID
    try:
        result = compare_releases(scenario, old, new, run_to_the_end)
    except ScenarioInvalid as err:  # a release keeps DRA fields SchedLab does not replay
        print(
            f"error: {args.scenarios[0]} cannot be replayed as both releases ({len(err.errors)} problem(s)):",
            file=sys.stderr,
        )
        for problem in err.errors:
            print(f"  {_with_flag(str(problem))}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(result.to_json(), sort_keys=True))
    else:
        print("\n".join(result.lines()))
    return 0


def run_whatif(args: argparse.Namespace) -> int:
    from scheduler_core.answers.whatif import NotPending, what_if

    scenario = _load(args.scenario, limits_from(args), release_request(args))
    if scenario is None:
        return EXIT_INVALID
    try:
        answer = what_if(scenario, args.pod)
    except NotPending as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(_with_release(answer, scenario), sort_keys=True))
        return 0
    lines = [_release_line(scenario), answer["summary"]]
    for suggestion in answer["suggestions"]:
        lines.append(
            f"  {suggestion['text']}: fits on {suggestion['nodeCount']} node(s) ({', '.join(suggestion['nodes'][:5])}"
            f"{', …' if suggestion['nodeCount'] > 5 else ''})"
        )
    if answer["moreSuggestions"]:
        lines.append(
            f"  …and {answer['moreSuggestions']} more, more intrusive or opening fewer nodes (only the first 25 are listed)"
        )
    print("\n".join(lines))
    return 0


def run_capacity(args: argparse.Namespace) -> int:
    from scheduler_core.answers import capacity
    from scheduler_core.scenario.sources import read_sources

    try:
        limits = limits_from(args)
        base = capacity.TrialBase.from_sources(
            read_sources(args.scenario, limits).sources, release_request(args), limits
        )
        if args.pod is not None:
            from scheduler_core.answers import capacity_pass

            answer = capacity_pass.how_many_copies(
                base,
                args.pod,
                max_count=args.max,
                method=args.method,
                progress=_say_trial if args.progress else None,
                copy_progress=_say_copies if args.progress else None,
            )
        elif args.add_like:
            from scheduler_core.answers import capacity_rounds

            answer = capacity_rounds.nodes_needed(
                base, args.add_like, max_count=args.max, progress=_say_trial if args.progress else None
            )
        else:
            answer = capacity.answer(
                base,
                workload=args.workload,
                pod=args.pod,
                removable=args.removable,
                fragmentation=args.fragmentation,
                max_count=args.max,
                progress=_say_trial if args.progress else None,
            )
    except ScenarioInvalid as err:
        print(
            f"error: {' '.join(args.scenario)} is not a valid scenario ({len(err.errors)} problem(s)):", file=sys.stderr
        )
        for problem in err.errors:
            print(f"  {_with_flag(str(problem))}", file=sys.stderr)
        return EXIT_INVALID
    except capacity.CapacityError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    said = [_release_line(base.scenario), *_unusable_lines(base.scenario)]
    if args.json:  # the served schema's answer, exactly: the release and what was set aside are said beside it
        print("\n".join(said), file=sys.stderr)
        print(json.dumps(answer.to_json(), sort_keys=True))
    else:
        print("\n".join([*said, *answer.lines()]))
    return 0


def _unusable_lines(scenario: Scenario) -> list[str]:
    """The workloads the controllers cannot use, each named with why (the question went on without them)."""
    return [
        f"note: {notice.message}:" + "".join(f"\n  {text}" for text in notice.objects)
        for notice in scenario.notices
        if notice.code is NoticeCode.UNUSABLE_WORKLOADS
    ]


def _say_trial(number: int, label: str) -> None:
    print(f"trial {number}: {label}", file=sys.stderr, flush=True)


def _say_copies(copies: int, seconds: float) -> None:
    rate = f", {copies / seconds:.0f}/s" if seconds >= 0.5 else ""  # a count takes no time to speak of
    print(f"{copies} copies placed or counted ({seconds:.1f} s of CPU{rate})", file=sys.stderr, flush=True)


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
    print(
        f"read {read}" + "".join(f"; not read: {kind} ({why})" for kind, why in taken.skipped.items()), file=sys.stderr
    )
    return 0


# Payloads declared above the encoding layer, in the schema beside the event stream's and the story's.
ANSWER_PAYLOADS: tuple[type[Wire], ...] = (Finding, *CAPACITY_ANSWERS, UpgradeComparison, UpgradeCounts)


def payload_schema_text() -> str:
    """The JSON Schema the web app serves (static/schema/payloads.json), as ``schema`` prints it."""
    return schema_text(extra=ANSWER_PAYLOADS)


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
        if args.command == "check":
            return run_check(args)
        if args.command == "capacity":
            return run_capacity(args)
        if args.command == "explain-pod":
            return run_explain_pod(args)
        if args.command == "schema":
            sys.stdout.write(payload_schema_text())
            return 0
        return run_bench(args)
    except BrokenPipeError:
        return 0
