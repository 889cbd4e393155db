"""`python -m scheduler_core trace|bench`, run as a user runs it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.scheduler_core.conformance import diff_traces

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance" / "public"
SEED = CORPUS / "seed_pts_single_constraint.yaml"


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scheduler_core", *args], cwd=ROOT, input=stdin, capture_output=True, timeout=120
    )


def test_trace_json_prints_exactly_the_expected_summary():
    result = _run("trace", str(SEED), "--json")
    assert result.returncode == 0, result.stderr.decode()
    expected = json.loads((CORPUS / "seed_pts_single_constraint.expected.json").read_text())
    assert diff_traces(expected, json.loads(result.stdout)) == []


@pytest.mark.parametrize(
    "scenario",
    [SEED, ROOT / "examples" / "cluster-info-dump", ROOT / "examples" / "preemption.yaml"],
    ids=["corpus", "recorded-answer", "preemption"],
)
def test_trace_json_is_written_a_cycle_at_a_time_as_the_whole_summary_would_print(scenario):
    """The streamed `trace --json` is byte for byte ``json.dumps(summary, sort_keys=True)``, the
    recorded answer included where the dump has one."""
    from scheduler_core import load_scenario, simulate, trace_summary
    from scheduler_core.answers.recorded import compare_recorded, replayed_from_trace, with_recorded
    from scheduler_core.scenario.sources import load_paths

    result = _run("trace", str(scenario), "--json")
    assert result.returncode == 0, result.stderr.decode()
    loaded = load_paths([str(scenario)]) if scenario.is_dir() else load_scenario(scenario.read_bytes())
    summary = trace_summary(simulate(loaded, tie_break="first"))
    whole = with_recorded(summary, compare_recorded(loaded, replayed_from_trace(summary)))
    assert result.stdout.decode() == json.dumps(whole, sort_keys=True) + "\n"
    assert ("recorded" in whole) == (scenario.name == "cluster-info-dump")


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
    assert events[-1] == {
        "cycle": 0,
        "pod": "default/mypod",
        "extensionPoint": "CycleEnd",
        "plugin": None,
        "payload": {"nodeName": "node4"},
    }


def test_it_exits_2_listing_every_problem_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\nspec:\n  nodeName: Ghost\n"
        "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n"
    )
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


FORMS = ROOT / "tests" / "fixtures" / "dumps" / "forms"


def test_trace_reads_a_dump_directory():
    result = _run("trace", str(FORMS / "cluster-info-dump-dir"), "--json")
    assert result.returncode == 0, result.stderr.decode()
    [cycle] = json.loads(result.stdout)["cycles"]
    assert (cycle["pod"], cycle["nodeName"]) == ("default/web-6b7f6d9f4c-pq8rn", None)


def test_timeline_reads_an_archive_and_reports_what_it_did_not_read(tmp_path):
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(FORMS / "troubleshoot", arcname="troubleshoot")
    result = _run("timeline", str(archive))
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert "file(s) that are not YAML/JSON" in out and "default/web-6b7f6d9f4c-pq8rn" in out


def test_trace_reads_several_files_as_one_scenario():
    lists = FORMS / "raw-api-lists"
    result = _run("trace", str(lists / "nodes.json"), str(lists / "pods.json"), "--json")
    assert result.returncode == 0 and len(json.loads(result.stdout)["cycles"]) == 1


def test_trace_exits_3_when_there_is_no_node_to_schedule_against(tmp_path):
    only_pods = tmp_path / "pods.json"
    only_pods.write_bytes((FORMS / "raw-api-lists" / "pods.json").read_bytes())
    result = _run("trace", str(only_pods), "--json")
    assert result.returncode == 3
    assert "no Node objects were read" in result.stderr.decode() and json.loads(result.stdout)["cycles"]


def test_timeline_exits_3_without_nodes_at_once_with_its_notices(tmp_path):
    only_pods = tmp_path / "pods.json"
    only_pods.write_bytes((FORMS / "raw-api-lists" / "pods.json").read_bytes())
    result = _run("timeline", str(only_pods))
    assert result.returncode == 3 and "no Node objects were read" in result.stdout.decode()


def test_an_error_inside_an_archive_names_the_member_and_line(tmp_path):
    archive = tmp_path / "dump.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr(
            "dump/pods.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\nspec:\n  priority: high\n"
            "  containers:\n  - name: c\n",
        )
    result = _run("trace", str(archive))
    assert result.returncode == 2
    assert f"{archive}:dump/pods.yaml: line 6: Pod default/web-1: spec.priority" in result.stderr.decode()


def _example_commands() -> list[list[str]]:
    """The `python -m scheduler_core ...` commands of examples/README.md, as argument lists."""
    text = (ROOT / "examples" / "README.md").read_text()
    return [command.split()[1:] for command in re.findall(r"`\.venv/bin/python -m (scheduler_core [^`]+)`", text)]


def test_every_example_path_the_readmes_name_exists():
    named = set(
        re.findall(
            r"\bexamples/[\w./-]+", (ROOT / "README.md").read_text() + (ROOT / "examples" / "README.md").read_text()
        )
    )
    assert named and all((ROOT / path.rstrip(".")).exists() for path in named), named
    assert "../shared" not in "".join(re.findall(r"python -m scheduler_core [^\n]*", (ROOT / "README.md").read_text()))


@pytest.mark.parametrize("command", [c for c in _example_commands() if c[0] != "bench"], ids=lambda c: " ".join(c))
def test_every_example_command_runs_from_a_fresh_clone(command):
    result = _run(*command)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout


def _pending_pods(count: int) -> bytes:
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
    pods = "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c}}]}}\n"
        for i in range(count)
    )
    return (node + pods).encode()


def test_a_size_limit_names_the_flag_that_raises_it():
    result = _run("trace", "-", "--json", "--max-pending-pods", "2", stdin=_pending_pods(3))
    assert result.returncode == 2
    assert b"3 pending pods, more than 2; raise it with --max-pending-pods 3\n" in result.stderr
    assert b"Limits." not in result.stderr


def test_a_size_refusal_says_the_size_and_the_limit_in_mb_and_the_flag_with_a_value_that_takes_it(tmp_path):
    text = _pending_pods(300)
    (tmp_path / "big.yaml").write_bytes(text)
    result = _run("check", str(tmp_path / "big.yaml"), "--max-bytes", "10000")
    assert result.returncode == 2
    said = result.stderr.decode()
    assert f"the scenario is {len(text)} bytes, more than the limit of 10000 bytes; " in said
    assert said.count("raise it with --max-bytes 1048576 (1 MB)") == 1 and "Limits." not in said


@pytest.mark.parametrize(
    "command",
    [
        ["trace", "-"],
        ["timeline", "-"],
        ["bench", "-"],
        ["check", "-"],
        ["explain-pod", "-", "default/p0"],
        ["whatif", "-", "default/p0"],
        ["compare", "-", "--release", "v1.34", "--release", "v1.35"],
        ["capacity", "-", "--pod", "default/p0", "--max", "2"],
    ],
    ids=lambda command: command[0],
)
def test_every_loading_command_takes_the_size_limits_as_flags(command):
    """Every command that reads a scenario refuses one over a limit naming the flag, and takes the flag."""
    text = _pending_pods(3)
    refused = _run(*command, "--json", "--max-pending-pods", "2", stdin=text)
    assert refused.returncode == 2
    assert b"more than 2; raise it with --max-pending-pods 3" in refused.stderr and b"Limits." not in refused.stderr
    accepted = _run(*command, "--json", "--max-pending-pods", "3", "--max-nodes", "1", stdin=text)
    assert b"Limits." not in accepted.stderr, accepted.stderr.decode()[-500:]


def test_the_default_limits_are_the_loaders():
    """Without flags, scheduler_core.scenario.limits.Limits: at most 20,000 pending pods."""
    refused = _run("timeline", "-", "--json", stdin=_pending_pods(20_001))
    assert refused.returncode == 2 and b"20001 pending pods, more than 20000; raise it with" in refused.stderr


def test_a_limit_flag_must_be_a_positive_whole_number():
    result = _run("timeline", "-", "--max-nodes", "0", stdin=b"")
    assert result.returncode == 2 and b"--max-nodes: must be at least 1, got 0" in result.stderr


def test_the_flags_build_the_loaders_limits():
    from scheduler_core.cli import _parser, limits_from
    from scheduler_core.scenario import Limits

    args = _parser().parse_args(["bench", "x.yaml", "--max-pending-pods", "20000", "--max-bytes", "99"])
    assert limits_from(args) == Limits(max_pending_pods=20000, max_bytes=99)
    assert limits_from(_parser().parse_args(["timeline", "x.yaml"])) == Limits()


def test_bench_loop_reports_loading_apart_from_the_run():
    result = _run("bench", str(SEED), "--loop", "--json")
    data = json.loads(result.stdout)
    assert {"attempts", "attempts_per_s", "bound", "pods_per_s", "total_s", "load_s", "peak_rss_mb"} <= set(data)
    assert (data["attempts"], data["bound"]) == (1, 1)
    text = _run("bench", str(SEED), "--loop").stdout.decode()
    assert "1 attempts" in text and "loading" in text and "peak RSS" in text


# --- capacity on a dump whose workloads were trimmed (examples/cluster-info-dump)

CLUSTER_INFO_DUMP = ROOT / "examples" / "cluster-info-dump"


def test_capacity_answers_a_dump_whose_workloads_the_controllers_cannot_use_and_names_each_with_why():
    """Its Deployments lack a pod template, its ReplicaSets and DaemonSet have one without containers:
    `trace` reads the dump, so `capacity` answers it too, naming what it left out (it refused it)."""
    result = _run("capacity", str(CLUSTER_INFO_DUMP), "--fragmentation")
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert "note: 5 workload(s) the controllers cannot use, left out" in out
    assert (
        f"  Deployment default/web: spec.template: Required value ({CLUSTER_INFO_DUMP}/default/deployments.json line 15)"
    ) in out.splitlines()
    assert "after the scenario's own run" in out


def test_capacity_add_like_tells_each_trial_as_it_starts_and_answers_each_template():
    """--add-like runs the rounds' nodes search one trial at a time: numbered across the templates,
    each round's trials in order (every template's most nodes tried, here one per pending pod)."""
    first, second = "ip-10-0-1-10.ec2.internal", "ip-10-0-2-20.ec2.internal"
    result = _run("capacity", str(CLUSTER_INFO_DUMP), "--add-like", first, "--add-like", second, "--progress")
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr.decode().splitlines() == [
        "trial 1: the scenario's own run",
        f"trial 2: 1 node(s) like {first}",
        f"trial 3: 1 node(s) like {second}",
    ]
    out = result.stdout.decode()
    assert "1 pod(s) pending after the scenario's run (3 trial runs)" in out
    assert f"nodes like {first}: 1 needed" in out and f"nodes like {second}: 1 needed" in out


def test_capacity_of_a_workload_the_controllers_cannot_use_says_why_in_one_line():
    result = _run("capacity", str(CLUSTER_INFO_DUMP), "--workload", "default/web")
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == (
        "error: Deployment default/web cannot be used by the controllers: spec.template: Required value "
        f"({CLUSTER_INFO_DUMP}/default/deployments.json line 15)\n"
    )


def test_capacity_reads_a_dumps_workloads_with_the_api_servers_defaults(tmp_path: Path):
    """Typed lists whose items carry no apiVersion, workloads without replicas, strategy,
    revisionHistoryLimit or updateStrategy: read as the API server defaults them, as the controllers see them."""
    (tmp_path / "default").mkdir()
    node = {"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    nodes = [{"metadata": {"name": name}, **node} for name in ("n1", "n2")]
    (tmp_path / "nodes.json").write_text(json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": nodes}))

    def workload(name: str, cpu: str) -> dict:
        template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
        template["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
        return {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": template},
        }

    for kind, item in (
        ("Deployment", workload("web", "1")),
        ("StatefulSet", workload("db", "500m")),
        ("DaemonSet", workload("agent", "100m")),
    ):
        listed = {"kind": f"{kind}List", "apiVersion": "apps/v1", "items": [item]}
        (tmp_path / "default" / f"{kind.lower()}s.json").write_text(json.dumps(listed))
    result = _run("capacity", str(tmp_path), "--workload", "default/web", "--json")
    assert result.returncode == 0, result.stderr.decode()
    answer = json.loads(result.stdout)
    # 8 CPUs; the agent on each node (0.1), db's one replica (0.5) and web's one (1, the default): 5 more fit
    assert (answer["target"], answer["fits"]) == ("Deployment default/web", 5), answer
    assert "cannot use" not in result.stderr.decode()


def test_timeline_keeps_the_collector_off_from_the_read_to_the_runs_first_event(monkeypatch, capsys):
    # The run freezes what is alive at its first event; turned on before it, the collector would walk
    # every object the read and the scheduler's set-up made.
    import gc

    from scheduler_core import cli

    seen: list[bool] = []
    running = cli.run_to_the_end

    def watched(*args, **kwargs):
        events = running(*args, **kwargs)
        seen.append(gc.isenabled())  # after the scheduler's set-up
        for event in events:
            if len(seen) == 1:
                seen.append(gc.isenabled())  # at the first event
            yield event

    monkeypatch.setattr(cli, "run_to_the_end", watched)
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        assert cli.main(["timeline", "--json", str(ROOT / "examples" / "preemption.yaml")]) == 0
        assert seen == [False, False] and gc.isenabled()
    finally:
        if not was_enabled:
            gc.disable()
    assert json.loads(capsys.readouterr().out)


def test_the_shared_nic_example_replays_v1_36_consumable_capacity():
    """examples/dra_shared_nic.yaml: its kubelets say v1.36, where DRAConsumableCapacity is on: two
    web pods take shares of the NICs' bandwidth, the third finds none left; as v1.35 (the gate off)
    db-0 holds node-1's NIC whole and only one web pod gets a NIC."""
    example = str(ROOT / "examples" / "dra_shared_nic.yaml")
    final = json.loads(_run("timeline", example, "--json").stdout)["final"]
    assert final == {
        "default/db-0": "node-1",
        "default/web-0": "node-2",
        "default/web-1": "node-1",
        "default/web-2": None,
    }
    as_v1_35 = json.loads(_run("timeline", example, "--json", "--release", "v1.35").stdout)["final"]
    assert [as_v1_35[f"default/web-{i}"] for i in range(3)] == ["node-2", None, None]
    # web-2's Filter says why each NIC, free of owners, cannot take it
    trace = _run("trace", example).stdout.decode()
    assert "node-1 has 1 free; shared device `nic-0` of pool net.example.com/node-1: 0 of 10Gi bandwidth left" in trace
    assert "node-2 has 1 free; shared device `nic-0` of pool net.example.com/node-2: 0 of 4Gi bandwidth left" in trace


def test_the_partitioned_gpu_example_replays_v1_36_counters():
    """examples/dra_partitioned_gpu.yaml: its kubelets say v1.36, where DRAPartitionableDevices is on:
    the whole GPU uses its node's counters, the halves of the other node go to two pods, the fourth
    pod finds free partitions but no counters; as v1.35 (the gate off) the counters are dropped."""
    example = str(ROOT / "examples" / "dra_partitioned_gpu.yaml")
    final = json.loads(_run("timeline", example, "--json").stdout)["final"]
    assert final == {
        "default/infer-0": "gpu-node-2",
        "default/infer-1": "gpu-node-2",
        "default/infer-2": None,
        "default/train-0": "gpu-node-1",
    }
    as_v1_35 = json.loads(_run("timeline", example, "--json", "--release", "v1.35").stdout)["final"]
    assert None not in as_v1_35.values()
    # train-0 done: its claim goes, and with it the counters its whole GPU used
    step = "---\napiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- operations:\n  - delete: {kind: Pod, namespace: default, name: train-0}\n"
    text = (ROOT / "examples" / "dra_partitioned_gpu.yaml").read_bytes() + step.encode()
    after = json.loads(_run("timeline", "-", "--json", stdin=text).stdout)["final"]
    assert (after["default/infer-2"], after["default/train-0"]) == ("gpu-node-1", "deleted")


def test_what_the_read_made_stays_frozen_until_the_command_ends():
    import contextlib
    import gc

    from scheduler_core import cli

    args = cli._parser().parse_args(["trace", str(SEED)])
    before, enabled = gc.get_freeze_count(), gc.isenabled()
    with contextlib.ExitStack() as frozen:
        scenario = cli._load_frozen(args, frozen)
        assert scenario is not None and scenario.nodes
        # the collector is on again, and walks none of what the read made
        assert gc.get_freeze_count() > before and gc.isenabled() == enabled
    assert gc.get_freeze_count() == before
