"""Rollouts a step starts (run/steps/rollout_status.py): the controllers replacing the pods, and
`kubectl rollout status` reporting each rollout at StepEnd until it is complete."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.backend.queue import LogicalClock
from scheduler_core.cluster.controllers.availability import Resyncs
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.model import ObjectRef
from scheduler_core.run.steps.rollout_status import Rollouts
from tests.scheduler_core.builders import (
    budget_text,
    changes_text,
    cluster_state,
    controlled_workload,
    node_text,
    scenario_text,
    workload_text,
)
from tests.scheduler_core.run.steps.support import changes_of, run


def _rollout_run(cpu_per_node: str, strategy: str = ""):
    deployment = workload_text("Deployment", "web", replicas=3, cpu="1", extra_spec=strategy)
    return run(
        scenario_text(
            node_text("n1", cpu=cpu_per_node),
            node_text("n2", cpu=cpu_per_node),
            node_text("n3", cpu=cpu_per_node),
            deployment,
            changes_text(["set: {name: web, requests: {cpu: '2'}}"]),
        )
    )


def test_a_rollout_with_room_replaces_every_pod_one_at_a_time_and_is_reported_complete():
    """rolloutRolling with the defaults (surge 1, unavailable 0 for 3 replicas): a new pod runs,
    then an old one goes — the one sharing its node with it (the related-pods rank)."""
    loop, events, timeline = _rollout_run("4")
    [rollout] = timeline["rollouts"]
    assert (rollout["step"], rollout["revision"], rollout["complete"], rollout["pending"]) == (1, 2, True, [])
    assert rollout["status"] == 'deployment "web" successfully rolled out'
    new_set = rollout["updateRevision"].split("/")[1]
    placed = [(a["pod"], a["nodeName"]) for a in timeline["attempts"] if a["step"] == 1]
    assert placed == [(f"default/{new_set}-1", "n1"), (f"default/{new_set}-2", "n2"), (f"default/{new_set}-3", "n3")]
    old = sorted(pod for pod in timeline["final"] if not pod.startswith(f"default/{new_set}"))
    assert timeline["steps"][1]["deleted"] == old  # web-<old>-1 on n1 first, then -2, -3
    assert all(timeline["final"][pod] == "deleted" for pod in old)
    assert "rollouts" not in timeline["steps"][1]


def test_a_rollout_without_room_is_stuck_with_the_new_pod_pending_and_the_old_pods_kept():
    """The new pod asks 2 CPUs where 1 is free on each node: it stays Pending, maxUnavailable 0
    keeps the three old pods, and the step goes quiet with the rollout unfinished."""
    _, _, timeline = _rollout_run("2")
    [rollout] = timeline["rollouts"]
    assert (rollout["desired"], rollout["updated"], rollout["available"], rollout["complete"]) == (3, 1, 3, False)
    assert len(rollout["oldPods"]) == 3 and timeline["steps"][1]["deleted"] == []
    [pending] = rollout["pending"]
    assert pending["failedSchedulingMessage"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    assert (
        rollout["status"]
        == 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
    )


def test_a_recreate_rollout_starts_the_new_pods_only_after_every_old_pod_is_gone():
    _, events, timeline = _rollout_run("2", "  strategy: {type: Recreate}\n")
    removed = changes_of(events, ClusterChangeKind.POD_REMOVED)
    first_new = next(a for a in timeline["attempts"] if a["step"] == 1)
    assert len(removed) == 3 and timeline["rollouts"][0]["complete"]
    assert first_new["nodeName"] is not None and max(e.payload.time_ms for e in removed) == 1900


def test_the_stuck_rollout_example_says_which_new_pod_waits_and_why():
    """examples/rollout_stuck.yaml: 2Gi where no node has 2Gi free; the three old pods stay."""
    text = (Path(__file__).resolve().parents[4] / "examples" / "rollout_stuck.yaml").read_text()
    _, _, timeline = run(text)
    [rollout] = timeline["rollouts"]
    assert not rollout["complete"] and rollout["updated"] == 1 and len(rollout["oldPods"]) == 3
    assert "3 Insufficient memory" in rollout["pending"][0]["failedSchedulingMessage"]


def test_a_partitioned_stateful_set_rollout_replaces_only_the_pods_from_the_partition_up():
    """RollingUpdate with partition 1: db-2 then db-1 are deleted, made again at the new revision
    (same names) and placed; db-0 keeps the old template; kubectl calls it complete."""
    stateful_set = workload_text(
        "StatefulSet", "db", replicas=3, cpu="1", extra_spec="  updateStrategy: {rollingUpdate: {partition: 1}}\n"
    )
    _, _, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            stateful_set,
            changes_text(["set: {kind: StatefulSet, name: db, requests: {cpu: '2'}}"]),
        )
    )
    [rollout] = timeline["rollouts"]
    assert (rollout["kind"], rollout["updated"], rollout["oldPods"], rollout["complete"]) == (
        "StatefulSet",
        2,
        ["default/db-0"],
        True,
    )
    assert rollout["status"] == "partitioned roll out complete: 2 new pods have been updated..."
    assert timeline["steps"][1]["deleted"] == ["default/db-2", "default/db-1"]
    assert timeline["steps"][1]["created"] == ["default/db-2", "default/db-1"]


def test_a_daemon_set_rollout_moves_on_as_soon_as_a_new_pod_is_bound():
    """maxUnavailable 50 % of 4 nodes: n1 and n2 go first; the binding of n1's new pod (1.3 s,
    when the kubelet stand-in removed the old one) lets n3 go at once, not when n2 is removed."""
    daemon_set = workload_text(
        "DaemonSet", "agent", cpu="1", extra_spec="  updateStrategy: {rollingUpdate: {maxUnavailable: 50%}}\n"
    )
    _, events, timeline = run(
        scenario_text(
            *[node_text(f"n{i}") for i in range(1, 5)],
            daemon_set,
            changes_text(["set: {kind: DaemonSet, name: agent, requests: {cpu: '2'}}"]),
        )
    )
    terminating = [(e.payload.time_ms, e.pod) for e in changes_of(events, ClusterChangeKind.POD_TERMINATING)]
    assert terminating == [
        (1000, "default/agent-n1"),
        (1000, "default/agent-n2"),
        (1300, "default/agent-n3"),
        (1600, "default/agent-n4"),
    ]
    assert timeline["rollouts"][0]["status"] == 'daemon set "agent" successfully rolled out'


def _replica_sets(events) -> list[str]:
    return [e.payload.detail for e in changes_of(events, ClusterChangeKind.WORKLOAD_CHANGED)]


def test_a_scale_in_the_middle_of_a_rollout_is_shared_in_proportion():
    """sync/scale: 3 -> 6 while the new set has 1 of 4 (surge 25 %: max-replicas 4): 6 + 2 surge
    is shared 3 * 8 / 4 = 6 to the old set, 1 * 8 / 4 = 2 to the new one; then the rollout goes on."""
    deployment = workload_text("Deployment", "web", replicas=3, cpu="1")
    _, events, timeline = run(
        scenario_text(
            *[node_text(f"n{i}", cpu="2") for i in range(1, 4)],
            deployment,
            changes_text(
                ["set: {name: web, requests: {cpu: '3'}}"], ["scale: {kind: Deployment, name: web, replicas: 6}"]
            ),
        )
    )
    scaled = [d for d in _replica_sets(events) if d.startswith("ReplicaSet replicas")]
    assert scaled[:2] == [
        "ReplicaSet replicas 3 → 6 (Deployment default/web)",
        "ReplicaSet replicas 1 → 2 (Deployment default/web)",
    ]
    assert [r["desired"] for r in timeline["rollouts"]] == [3, 6]


def test_a_paused_deployment_rolls_out_only_once_resumed():
    """spec.paused: the template changed while paused makes no new set; the patch that resumes it
    starts the rollout, its progress deadline counted from then."""
    deployment = workload_text(
        "Deployment", "web", replicas=2, cpu="1", extra_spec="  paused: true\n  progressDeadlineSeconds: 30\n"
    )
    _, _, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            deployment,
            changes_text(
                ["set: {name: web, requests: {cpu: '5'}}"],
                ["patch: {kind: Deployment, name: web, patch: {spec: {paused: false}}}"],
            ),
        )
    )
    paused, resumed = timeline["rollouts"]
    assert (paused["step"], paused["paused"], paused["updated"], paused["updateRevision"]) == (1, True, 0, "")
    assert "progressDeadline" not in paused and "paused" not in resumed
    assert (resumed["step"], resumed["updated"], resumed["progressDeadline"]) == (
        2,
        1,
        {"seconds": 30, "passesAt": "0:32.000", "exceeded": False},
    )


def test_a_stuck_rollout_reports_its_progress_deadline_passed_once_the_step_outlasts_it():
    """DeploymentTimedOut: a 1 s deadline; the step waits 10 s on a refused eviction before it
    goes quiet, so the deadline passed: kubectl's error."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  progressDeadlineSeconds: 1\n")
    other = workload_text("Deployment", "db", replicas=1, cpu="1")
    _, _, timeline = run(
        scenario_text(
            node_text("n1", cpu="2"),
            deployment,
            other,
            budget_text("db", "db", "1"),
            changes_text(["set: {name: web, requests: {cpu: '2'}}", "drain: {node: n1}"]),
        )
    )
    [rollout] = timeline["rollouts"]
    assert rollout["progressDeadline"] == {"seconds": 1, "passesAt": "0:02.000", "exceeded": True}
    assert rollout["status"] == 'deployment "web" exceeded its progress deadline'


def test_a_complete_rollout_deletes_old_replica_sets_beyond_the_history_limit():
    """cleanupDeployment: revisionHistoryLimit 0: the old set goes once it has no pod left."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  revisionHistoryLimit: 0\n")
    _, events, timeline = run(
        scenario_text(node_text("n1"), deployment, changes_text(["set: {name: web, requests: {cpu: '2'}}"]))
    )
    assert timeline["rollouts"][0]["complete"]
    [deleted] = [d for d in _replica_sets(events) if "deleted" in d]
    assert deleted == "ReplicaSet deleted (revisionHistoryLimit of Deployment default/web)"


def test_min_ready_seconds_holds_the_rollout_until_the_new_pod_is_available():
    """minReadySeconds 5: the new pod bound at 1 s is available after 6 s; the old one goes at the
    ReplicaSet's resync 7 s (1 s + 5 s + 1 s), not at the binding."""
    deployment = workload_text("Deployment", "web", replicas=1, cpu="1", extra_spec="  minReadySeconds: 5\n")
    _, events, timeline = run(
        scenario_text(node_text("n1"), deployment, changes_text(["set: {name: web, requests: {cpu: '2'}}"]))
    )
    terminating = [e.payload.time_ms for e in changes_of(events, ClusterChangeKind.POD_TERMINATING)]
    assert terminating == [7000] and timeline["rollouts"][0]["complete"]


def test_a_daemon_set_surge_rollout_runs_the_new_pod_beside_the_old_one():
    """maxSurge 1, maxUnavailable 0: agent-n1-2 runs beside agent-n1 until it is available, then
    agent-n1 goes and n2 surges."""
    daemon_set = workload_text(
        "DaemonSet",
        "agent",
        cpu="1",
        extra_spec="  updateStrategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n",
    )
    _, events, timeline = run(
        scenario_text(
            node_text("n1"),
            node_text("n2"),
            daemon_set,
            changes_text(["set: {kind: DaemonSet, name: agent, requests: {cpu: '2'}}"]),
        )
    )
    assert timeline["steps"][1]["created"] == ["default/agent-n1-2", "default/agent-n2-2"]
    assert timeline["steps"][1]["deleted"] == ["default/agent-n1", "default/agent-n2"]
    assert timeline["rollouts"][0]["status"] == 'daemon set "agent" successfully rolled out'


def test_a_rollout_started_twice_is_watched_once_and_a_deployment_is_synced_as_rolling():
    web = controlled_workload("Deployment", "web", replicas=1)
    state = cluster_state(workloads=[web])
    rollouts = Rollouts(state, Resyncs(state), LogicalClock())
    rollouts.start(web)
    rollouts.start(web)
    assert rollouts.under_way == [ObjectRef("Deployment", "default", "web")] and state.rolling == {"default/web"}
    assert not rollouts.daemon_set_rolling()


def test_a_rollout_whose_workload_is_gone_is_no_longer_reported():
    agent = controlled_workload("DaemonSet", "agent")
    state = cluster_state()
    rollouts = Rollouts(state, Resyncs(state), LogicalClock())
    rollouts.start(agent)
    assert rollouts.daemon_set_rolling()
    assert rollouts.statuses() == [] and rollouts.under_way == []
