"""The Deployment stand-in: the current ReplicaSet (highest revision) carries the replicas; a
Deployment without one gets <deployment>-<hash> (../shared/spec/CHANGES.md); a template a step changed rolls
out as pkg/controller/deployment's rolloutRolling and rolloutRecreate do."""

from __future__ import annotations

import hashlib
import json

import pytest

from scheduler_core.cluster.controllers import deployment, deployment_util, replicaset
from scheduler_core.model import OwnerReference
from tests.scheduler_core.builders import cluster_state, controlled_workload, make_node


def test_it_names_a_new_replica_set_by_the_sha256_of_the_canonical_template():
    """getNewReplicaSet with ../shared/spec/CHANGES.md's hash: sorted keys, no spaces, first 10 hex characters."""
    web = controlled_workload("Deployment", "web", replicas=3)
    state = cluster_state(workloads=[web])
    [created] = deployment.reconcile(state, web)
    canonical = json.dumps(web.template, sort_keys=True, separators=(",", ":"))
    hash_ = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    assert created.name == f"web-{hash_}" and created.replicas == 3 and created.revision == 1
    assert dict(created.selector.match_labels) == {"app": "web", "pod-template-hash": hash_}
    assert created.template["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_}
    assert created.owner == OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")


def test_it_scales_the_replica_set_with_the_highest_revision():
    """scale: until a step changes the template, only the newest ReplicaSet follows the Deployment."""
    web = controlled_workload("Deployment", "web", replicas=5)
    owner = OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")
    old = controlled_workload("ReplicaSet", "web-old", replicas=1, owner=owner, revision=1)
    new = controlled_workload("ReplicaSet", "web-new", replicas=2, owner=owner, revision=2)
    state = cluster_state(workloads=[web, old, new])
    assert deployment.reconcile(state, web) == []
    assert (state.current(old).replicas, state.current(new).replicas) == (1, 5)
    assert new.replicas == 2  # written as a new version, never in place


# ---------------------------------------------------------------------------- rollouts


def _rolling_web(replicas: int, strategy: str = ""):
    """Deployment web with its ReplicaSet of revision 1 and that many running pods, its
    template then changed by a step (a rollout under way)."""
    web = controlled_workload("Deployment", "web", replicas=replicas)
    if strategy:
        web.manifest = {"spec": {"strategy": json.loads(strategy)}}
    state = cluster_state(nodes=[make_node("n1", cpu=100_000)], workloads=[web])
    [old] = deployment.reconcile(state, web)
    for write in replicaset.reconcile(state, old):
        write.pod.node_name = "n1"
    web.template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
    }
    state.rolling.add(web.key)
    return web, old, state


def test_a_rolling_update_surges_one_new_replica_and_keeps_every_old_one_while_it_is_unavailable():
    """3 replicas, 25 % / 25 %: surge 1, unavailable 0: the new ReplicaSet (revision 2) gets one
    replica; the old ones stay until it is available."""
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    assert (new.revision, new.replicas, old.replicas) == (2, 1, 3)
    assert new.name == f"web-{deployment.template_hash(web.template)}"


def test_once_the_new_replica_runs_an_old_one_goes_and_the_new_set_grows():
    """reconcileOldReplicaSets: 4 available, at least 3 wanted: the old set loses one; then
    reconcileNewReplicaSet may surge again (total 3 + 1)."""
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    [created] = replicaset.reconcile(state, new)
    created.pod.node_name = "n1"
    assert deployment.reconcile(state, web) == []
    assert (state.current(new).replicas, state.current(old).replicas) == (2, 2)


def test_max_unavailable_lets_the_old_set_shrink_before_anything_new_runs():
    """4 replicas, maxSurge 0, maxUnavailable 2: the old set drops to 2 at once, the new one takes
    the 2 freed places."""
    web, old, state = _rolling_web(
        4, '{"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 2}}'
    )
    [new] = deployment.reconcile(state, web)
    assert (state.current(new).replicas, state.current(old).replicas) == (2, 2)


def test_recreate_scales_every_old_set_to_zero_and_waits_for_its_pods_to_go():
    """rolloutRecreate: no new ReplicaSet while an old pod exists (terminating ones included)."""
    web, old, state = _rolling_web(2, '{"type": "Recreate"}')
    assert deployment.reconcile(state, web) == [] and state.current(old).replicas == 0
    for pod in state.owned_pods(old):
        state.gone.add(pod.key)
    [new] = deployment.reconcile(state, web)
    assert (state.current(new).replicas, new.revision) == (2, 2)


def test_a_rollback_to_the_old_template_makes_the_old_set_current_again():
    """FindNewReplicaSet + the revision sync: the ReplicaSet with the template gets revision 3."""
    web, old, state = _rolling_web(2)
    first_template = old.template
    [new] = deployment.reconcile(state, web)
    web.template = {"metadata": {"labels": {"app": "web"}}, "spec": first_template["spec"]}
    assert deployment.reconcile(state, web) == []
    old, new = state.current(old), state.current(new)
    assert (old.revision, old.replicas, new.replicas) == (3, 2, 0)


def test_rollout_status_counts_like_the_deployment_status_and_names_pending_new_pods():
    web, old, state = _rolling_web(3)
    [new] = deployment.reconcile(state, web)
    replicaset.reconcile(state, new)
    status = deployment.rollout_status(state, web)
    assert (status.desired, status.updated, status.replicas, status.available, status.complete) == (3, 1, 4, 3, False)
    assert status.pending == [f"default/{new.name}-1"] and len(status.old_pods) == 3 and status.revision == 2


# ---------------------------------------------------------------------------- the release's tables
# pkg/controller/deployment/rolling_test.go and sync_test.go, transcribed case by case: each
# upstream case (its name, or its position where the table has none) is a case here comparing the
# outcome the upstream test compares (whether it scaled and to how many; the sizes after scale;
# the ReplicaSets cleanupDeployment deletes).

ROLLING = "RollingUpdate"


def _set(name: str, replicas: int, created_ms: int = 0, annotations=None, revision: int = 0):
    return controlled_workload(
        "ReplicaSet",
        name,
        replicas=replicas,
        created_ms=created_ms,
        annotations=dict(annotations or {}),
        revision=revision,
    )


def _available(counts: dict):
    return lambda rs: counts.get(rs.name, 0)


# TestDeploymentController_reconcileNewReplicaSet: (deploymentReplicas, maxSurge, oldReplicas,
# newReplicas) -> the new size, or None for no scaling; maxUnavailable 0.
@pytest.mark.parametrize(
    ("replicas", "surge", "old", "new", "expected"),
    [
        pytest.param(10, 0, 10, 0, None, id="0: should not scale up"),
        pytest.param(10, 2, 10, 0, 2, id="1"),
        pytest.param(10, 2, 5, 0, 7, id="2"),
        pytest.param(10, 2, 10, 2, None, id="3"),
        pytest.param(10, 2, 2, 11, 10, id="4: should scale down"),
    ],
)
def test_reconcile_new_replica_set(replicas, surge, old, new, expected):
    new_set, old_set = _set("foo-v2", new), _set("foo-v2", old)
    strategy = deployment.Strategy(ROLLING, surge, 0)
    assert deployment.plan_new_replica_set(replicas, strategy, [new_set, old_set], new_set) == expected


# TestDeploymentController_reconcileOldReplicaSets: maxSurge 0; the old and new sets' available
# pods are their ready ones.
@pytest.mark.parametrize(
    ("replicas", "unavailable", "old", "new", "ready_old", "ready_new", "expected_old"),
    [
        pytest.param(10, 0, 10, 0, 10, 0, 9, id="0"),
        pytest.param(10, 2, 10, 0, 10, 0, 8, id="1"),
        pytest.param(10, 2, 10, 0, 8, 0, 8, id="2: expect unhealthy replicas from old replica sets been cleaned up"),
        pytest.param(
            10,
            2,
            10,
            0,
            9,
            0,
            8,
            id="3: expect 1 unhealthy replica from old replica sets been cleaned up, and 1 ready pod been scaled down",
        ),
        pytest.param(
            10,
            2,
            8,
            2,
            8,
            0,
            None,
            id="4: the unavailable pods from the newRS would not make us scale down old RSs in a further step",
        ),
    ],
)
def test_reconcile_old_replica_sets(replicas, unavailable, old, new, ready_old, ready_new, expected_old):
    old_set, new_set = _set("foo-old", old), _set("foo-new", new)
    available = _available({"foo-old": ready_old, "foo-new": ready_new})
    writes = deployment.plan_old_replica_sets(
        replicas, deployment.Strategy(ROLLING, 0, unavailable), [old_set, new_set], [old_set], new_set, available
    )
    assert bool(writes) == (expected_old is not None)
    if expected_old is not None:
        assert writes[-1].replicas == expected_old


# TestDeploymentController_cleanupUnhealthyReplicas: an old set of 10 with readyPods available.
@pytest.mark.parametrize(
    ("old", "ready", "most", "expected"),
    [
        pytest.param(10, 8, 1, 1, id="0"),
        pytest.param(10, 8, 3, 2, id="1"),
        pytest.param(10, 8, 0, 0, id="2"),
        pytest.param(10, 10, 3, 0, id="3"),
    ],
)
def test_cleanup_unhealthy_replicas(old, ready, most, expected):
    old_set = _set("foo-v2", old)
    cleaned, failed = deployment.plan_cleanup_unhealthy([old_set], _available({"foo-v2": ready}), most)
    assert sum(old_set.replicas - size for _, size in cleaned) == expected and not failed


def test_cleanup_of_a_set_with_more_available_pods_than_its_size_is_the_releases_error_and_writes_nothing():
    """cleanupUnhealthyReplicas' "got invalid request to scale down": a set just scaled from 4 to
    1 whose status still counts 4 available would be scaled back up; the release returns an error
    and reconcileOldReplicaSets writes nothing that sync (the differential check's transient bounce)."""
    old_set, new_set = _set("foo-old", 1), _set("foo-new", 1)
    available = _available({"foo-old": 4, "foo-new": 1})
    cleaned, failed = deployment.plan_cleanup_unhealthy([old_set], available, 3)
    assert (cleaned, failed) == ([], True)
    writes = deployment.plan_old_replica_sets(
        2, deployment.Strategy(ROLLING, 1, 1), [old_set, new_set], [old_set], new_set, available
    )
    assert writes == []


# TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate: maxSurge 0; the only set is old.
@pytest.mark.parametrize(
    ("replicas", "unavailable", "ready", "old", "expected_old"),
    [
        pytest.param(10, 0, 10, 10, 9, id="0"),
        pytest.param(10, 2, 10, 10, 8, id="1"),
        pytest.param(10, 2, 8, 10, None, id="2"),
        pytest.param(10, 2, 10, 0, None, id="3"),
        pytest.param(10, 2, 1, 10, None, id="4"),
    ],
)
def test_scale_down_old_replica_sets_for_rolling_update(replicas, unavailable, ready, old, expected_old):
    old_set = _set("foo-v2", old)
    writes = deployment.plan_scale_down_old(
        replicas, deployment.Strategy(ROLLING, 0, unavailable), [old_set], [old_set], _available({"foo-v2": ready})
    )
    assert [w.replicas for w in writes] == ([] if expected_old is None else [expected_old])


NEW_TS, OLD_TS, OLDER_TS = 2, 1, 0  # newTimestamp, oldTimestamp, olderTimestamp


def _sizes(*pairs):
    return [_set(name, replicas, created) for name, replicas, created in pairs]


# TestScale (sync_test.go), the cases of v1.35 (the DeploymentPodReplacementPolicy ones are later
# than the release): (replicas, maxSurge, maxUnavailable), the old Deployment's replicas and
# maxSurge (the sets' desired-replicas and max-replicas annotations), the sets before and after.
_SCALE_CASES = [
    ("normal scaling event: 10 -> 12", (12, None, None), (10, None), ("foo-v1", 10, NEW_TS), [], 12, [], {}, {}),
    ("normal scaling event: 10 -> 5", (5, None, None), (10, None), ("foo-v1", 10, NEW_TS), [], 5, [], {}, {}),
    (
        "proportional scaling: 5 -> 10",
        (10, None, None),
        (5, None),
        ("foo-v2", 2, NEW_TS),
        [("foo-v1", 3, OLD_TS)],
        4,
        [6],
        {},
        {},
    ),
    (
        "proportional scaling: 5 -> 3",
        (3, None, None),
        (5, None),
        ("foo-v2", 2, NEW_TS),
        [("foo-v1", 3, OLD_TS)],
        1,
        [2],
        {},
        {},
    ),
    (
        "proportional scaling: 9 -> 4",
        (4, None, None),
        (9, None),
        ("foo-v2", 8, NEW_TS),
        [("foo-v1", 1, OLD_TS)],
        4,
        [0],
        {},
        {},
    ),
    (
        "proportional scaling: 7 -> 10",
        (10, None, None),
        (7, None),
        ("foo-v3", 2, NEW_TS),
        [("foo-v2", 3, OLD_TS), ("foo-v1", 2, OLDER_TS)],
        3,
        [4, 3],
        {},
        {},
    ),
    (
        "proportional scaling: 13 -> 8",
        (8, None, None),
        (13, None),
        ("foo-v3", 2, NEW_TS),
        [("foo-v2", 8, OLD_TS), ("foo-v1", 3, OLDER_TS)],
        1,
        [5, 2],
        {},
        {},
    ),
    (
        "leftover distribution: 3 -> 4",
        (4, None, None),
        (3, None),
        ("foo-v3", 1, NEW_TS),
        [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        2,
        [1, 1],
        {},
        {},
    ),
    (
        "leftover distribution: 3 -> 2",
        (2, None, None),
        (3, None),
        ("foo-v3", 1, NEW_TS),
        [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        1,
        [1, 0],
        {},
        {},
    ),
    (
        "proportional scaling (no new rs): 4 -> 5",
        (5, None, None),
        (4, None),
        None,
        [("foo-v2", 2, OLD_TS), ("foo-v1", 2, OLDER_TS)],
        None,
        [3, 2],
        {},
        {},
    ),
    (
        "proportional scaling: 6 -> 0",
        (0, None, None),
        (6, None),
        ("foo-v3", 3, NEW_TS),
        [("foo-v2", 2, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        0,
        [0, 0],
        {},
        {},
    ),
    (
        "proportional scaling: 0 -> 6",
        (6, None, None),
        (6, None),
        ("foo-v3", 0, NEW_TS),
        [("foo-v2", 0, OLD_TS), ("foo-v1", 0, OLDER_TS)],
        6,
        [0, 0],
        {"foo-v2", "foo-v1"},
        {},
    ),
    (
        "failed rs update",
        (5, None, None),
        (5, None),
        ("foo-v3", 2, NEW_TS),
        [("foo-v2", 1, OLD_TS), ("foo-v1", 1, OLDER_TS)],
        2,
        [2, 1],
        {"foo-v3", "foo-v1"},
        {"foo-v2": 3},
    ),
    (
        "deployment with surge pods",
        (20, 2, None),
        (10, 2),
        ("foo-v2", 6, NEW_TS),
        [("foo-v1", 6, OLD_TS)],
        11,
        [11],
        {},
        {},
    ),
    (
        "change both surge and size",
        (50, 6, None),
        (10, 3),
        ("foo-v2", 5, NEW_TS),
        [("foo-v1", 8, OLD_TS)],
        22,
        [34],
        {},
        {},
    ),
    (
        "change both size and template",
        (14, None, None),
        (10, None),
        None,
        [("foo-v2", 7, NEW_TS), ("foo-v1", 3, OLD_TS)],
        None,
        [10, 4],
        {},
        {},
    ),
    (
        "saturated but broken new replica set does not affect old pods",
        (2, 1, 1),
        (2, 1),
        ("foo-v2", 2, NEW_TS),
        [("foo-v1", 1, OLD_TS)],
        2,
        [1],
        {},
        {},
    ),
]


def _with_annotations(rs, old_replicas: int, old_surge: int, desired_overrides: dict):
    """The test's set-up: each set sized for the old Deployment (SetReplicasAnnotations)."""
    desired = desired_overrides.get(rs.name, old_replicas)
    strategy = deployment.Strategy(ROLLING, old_surge, 0)
    most = desired + deployment_util.max_surge(desired, strategy)
    rs.annotations = deployment_util.replicas_annotations(desired, most)
    return rs


@pytest.mark.parametrize(
    ("name", "spec", "old_spec", "new", "old", "expected_new", "expected_old", "wasnt_updated", "desired"),
    [pytest.param(*case, id=case[0]) for case in _SCALE_CASES],
)
def test_scale(name, spec, old_spec, new, old, expected_new, expected_old, wasnt_updated, desired):
    replicas, surge, unavailable = spec
    old_replicas, old_surge = old_spec
    old_surge = 0 if old_surge is None else old_surge
    new_set = _with_annotations(_sizes(new)[0], old_replicas, old_surge, desired) if new is not None else None
    old_sets = [_with_annotations(rs, old_replicas, old_surge, desired) for rs in _sizes(*old)]
    strategy = deployment.Strategy(ROLLING, 0 if surge is None else surge, 0 if unavailable is None else unavailable)
    broken = name.startswith("saturated but broken")  # its new set has no available replica

    def available(rs):
        return 0 if broken and rs is new_set else rs.replicas

    writes = deployment.plan_scale(replicas, strategy, 0, new_set, old_sets, available)
    sizes = {w.replica_set.name: w.replicas for w in writes if w.replica_set.name not in wasnt_updated}
    if new_set is not None and expected_new is not None:
        assert sizes.get(new_set.name, new_set.replicas) == expected_new
    assert [sizes.get(rs.name, rs.replicas) for rs in old_sets] == expected_old


# TestDeploymentController_cleanupDeployment: (name, spec.replicas, status.replicas) of the old
# sets; its case with a set already being deleted has no counterpart (a deleted set is gone from the
# stand-in's cluster) and its case with terminating replicas is the later DeploymentPodReplacementPolicy.
@pytest.mark.parametrize(
    ("sets", "limit", "expected"),
    [
        pytest.param([("foo-1", 0, 0), ("foo-2", 0, 0), ("foo-3", 0, 0)], 1, 2, id="0"),
        pytest.param(
            [("foo-1", 0, 0), ("foo-2", 0, 1), ("foo-3", 1, 0), ("foo-4", 1, 1)],
            0,
            1,
            id="1: only delete the replica set with Spec.Replicas = Status.Replicas = 0",
        ),
        pytest.param([("foo-1", 0, 0), ("foo-2", 0, 0)], 0, 2, id="3"),
        pytest.param([("foo-1", 1, 1), ("foo-2", 1, 1)], 0, 0, id="4"),
        pytest.param(
            [("foo-1", 0, 0), ("foo-2", 0, 0), ("foo-3", 0, 0)], None, 0, id="6: with unlimited revisionHistoryLimit"
        ),
    ],
)
def test_cleanup_deployment(sets, limit, expected):
    old = [_set(name, replicas) for name, replicas, _ in sets]
    status = {name: replicas for name, _, replicas in sets}
    doomed = deployment.plan_cleanup(limit, old, lambda rs: status[rs.name], lambda rs: True)
    assert len(doomed) == expected


# TestDeploymentController_cleanupDeploymentOrder: creation order foo-1 < foo-2 < foo-3 < foo-4;
# (name, replicas, revision) with status.replicas = spec.replicas; a missing revision is 0.
@pytest.mark.parametrize(
    ("sets", "limit", "expected"),
    [
        pytest.param([("foo-1", 0, 1), ("foo-2", 0, 2)], 1, {"foo-1"}, id="0: revision order: rs1 < rs2, delete rs1"),
        pytest.param([("foo-1", 0, 2), ("foo-2", 0, 1)], 1, {"foo-2"}, id="1: revision order: rs2 < rs1, delete rs2"),
        pytest.param(
            [("foo-1", 0, 1), ("foo-2", 0, 0)],
            1,
            {"foo-2"},
            id="2: rs1 has revision but rs2 doesn't have revision, delete rs2",
        ),
        pytest.param(
            [("foo-1", 0, 0), ("foo-2", 0, 2)],
            1,
            {"foo-1"},
            id="3: rs1 doesn't have revision while rs2 has revision, delete rs1",
        ),
        pytest.param(
            [("foo-1", 1, 1), ("foo-2", 0, 2), ("foo-3", 0, 3)],
            1,
            {"foo-2"},
            id="4: revision order: rs1 < rs2 < r3, but rs1 has replicas, delete rs2",
        ),
        pytest.param(
            [("foo-1", 1, 1), ("foo-2", 1, 2), ("foo-3", 0, 3)],
            1,
            set(),
            id="5: revision order: rs1 < rs2 < r3, both rs1 && rs2 have replicas, don't delete",
        ),
        pytest.param(
            [("foo-1", 0, 3), ("foo-2", 0, 1), ("foo-3", 0, 4), ("foo-4", 0, 2)],
            2,
            {"foo-2", "foo-4"},
            id="6: revision order: rs2 < rs4 < rs1 < rs3, delete rs2 && rs4",
        ),
    ],
)
def test_cleanup_deployment_order(sets, limit, expected):
    old = [_set(name, replicas, created_ms=i, revision=revision) for i, (name, replicas, revision) in enumerate(sets)]
    doomed = deployment.plan_cleanup(limit, old, lambda rs: rs.replicas, lambda rs: True)
    assert {rs.name for rs in doomed} == expected


# recreate_test.go TestScaleDownOldReplicaSets: an old set of 3 goes to 0.
def test_scale_down_old_replica_sets_for_recreate():
    old = _set("foo-0", 3)
    assert [(w.replica_set.name, w.replicas) for w in deployment.plan_recreate_scale_down([old])] == [("foo-0", 0)]


# recreate_test.go TestOldPodsRunning: the old sets' status.replicas and their pods' phases ("" for
# a pod without one, as podMapWithUIDs makes them).
@pytest.mark.parametrize(
    ("status_replicas", "phases", "expected"),
    [
        pytest.param([], [], False, id="no old RSs"),
        pytest.param([0, 0], ["", "", "", ""], True, id="old RSs with running pods"),
        pytest.param([1], [], True, id="old RSs without pods but with non-zero status replicas"),
        pytest.param([0], [], False, id="old RSs without pods or non-zero status replicas"),
        pytest.param(
            [0],
            ["Failed", "Succeeded"],
            False,
            id="old RSs with zero status replicas but pods in terminal state are present",
        ),
        pytest.param([0], ["Unknown"], True, id="old RSs with zero status replicas but pod in unknown phase present"),
        pytest.param([0], ["Pending"], True, id="old RSs with zero status replicas with pending pod present"),
        pytest.param([0], ["Running"], True, id="old RSs with zero status replicas with running pod present"),
        pytest.param(
            [0],
            ["Failed", "Succeeded", "Pending"],
            True,
            id="old RSs with zero status replicas but pods in terminal state and pending are present",
        ),
    ],
)
def test_old_pods_running(status_replicas, phases, expected):
    assert deployment.old_pods_running(status_replicas, phases) == expected


# progress_test.go TestSyncRolloutStatus: a Recreate Deployment (maxUnavailable 0) with
# progressDeadlineSeconds 60 (or none), its status (replicas, updated, available) and Progressing
# condition last written at testTime (0 here); the sets as (spec, status.replicas, available) with
# the new one last; synced ten minutes later. Compared: the Progressing condition's status and
# reason (absent without a deadline), and for the cases named so, its lastTransitionTime kept.
TEST_TIME, LATER = 0, 600_000
_TIMED_OUT = deployment_util.Condition("Progressing", "False", "ProgressDeadlineExceeded")
_NEW_RS_AVAILABLE = deployment_util.Condition("Progressing", "True", "NewReplicaSetAvailable", "", TEST_TIME, TEST_TIME)
_RS_UPDATED = deployment_util.Condition("Progressing", "True", "ReplicaSetUpdated", "", TEST_TIME, TEST_TIME)


@pytest.mark.parametrize(
    ("deadline", "spec", "status", "condition", "old", "new", "expected", "kept"),
    [
        pytest.param(
            None,
            3,
            (2, 2, 2),
            _RS_UPDATED,
            [(0, 1, 1)],
            (3, 2, 2),
            None,
            False,
            id="General: remove Progressing condition and do not estimate progress if deployment has no "
            "Progress Deadline",
        ),
        pytest.param(
            60,
            3,
            (3, 3, 3),
            _NEW_RS_AVAILABLE,
            [(3, 3, 3)],
            None,
            ("True", "NewReplicaSetAvailable"),
            True,
            id="General: do not estimate progress of deployment with only one active ReplicaSet",
        ),
        pytest.param(
            60,
            3,
            (2, 2, 2),
            _RS_UPDATED,
            [(0, 1, 1)],
            (3, 2, 2),
            ("True", "ReplicaSetUpdated"),
            True,
            id="DeploymentProgressing: dont update lastTransitionTime if deployment already has Progressing=True",
        ),
        pytest.param(
            60,
            3,
            (2, 2, 2),
            _TIMED_OUT,
            [(0, 1, 1)],
            (3, 2, 2),
            ("True", "ReplicaSetUpdated"),
            False,
            id="DeploymentProgressing: update everything if deployment has Progressing=False",
        ),
        pytest.param(
            60,
            3,
            (2, 2, 2),
            None,
            [(0, 1, 1)],
            (3, 2, 2),
            ("True", "ReplicaSetUpdated"),
            False,
            id="DeploymentProgressing: create Progressing condition if it does not exist",
        ),
        pytest.param(
            60,
            3,
            (3, 3, 3),
            _RS_UPDATED,
            [],
            (3, 3, 3),
            ("True", "NewReplicaSetAvailable"),
            True,
            id="DeploymentComplete: dont update lastTransitionTime if deployment already has Progressing=True",
        ),
        pytest.param(
            60,
            3,
            (3, 3, 3),
            _TIMED_OUT,
            [],
            (3, 3, 3),
            ("True", "NewReplicaSetAvailable"),
            False,
            id="DeploymentComplete: update everything if deployment has Progressing=False",
        ),
        pytest.param(
            60,
            3,
            (3, 3, 3),
            None,
            [],
            (3, 3, 3),
            ("True", "NewReplicaSetAvailable"),
            False,
            id="DeploymentComplete: create Progressing condition if it does not exist",
        ),
        pytest.param(
            60,
            0,
            (3, 3, 3),
            _RS_UPDATED,
            [(0, 0, 0)],
            None,
            ("True", "NewReplicaSetAvailable"),
            False,
            id="DeploymentComplete: defend against NPE when newRS=nil",
        ),
        pytest.param(
            60,
            3,
            (2, 2, 2),
            _RS_UPDATED,
            [],
            (3, 2, 2),
            ("False", "ProgressDeadlineExceeded"),
            False,
            id="DeploymentTimedOut: update status if rollout exceeds Progress Deadline",
        ),
        pytest.param(
            60,
            3,
            (2, 2, 2),
            _TIMED_OUT,
            [],
            (3, 2, 2),
            ("False", "ProgressDeadlineExceeded"),
            False,
            id="DeploymentTimedOut: do not update status if deployment has existing timedOut condition",
        ),
    ],
)
def test_sync_rollout_status(deadline, spec, status, condition, old, new, expected, kept):
    replicas, updated, available = status
    before = deployment_util.DeploymentStatus(
        replicas, updated, 0, available, conditions=(condition,) if condition else ()
    )
    counts = [deployment.SetCounts(s, r, 0, a) for s, r, a in old]
    new_counts = deployment.SetCounts(*new[:2], 0, new[2]) if new else None
    strategy = deployment.Strategy("Recreate", 0, 0)
    computed = deployment.calculate_status(
        spec, strategy, before, counts + ([new_counts] if new_counts else []), new_counts, LATER
    )
    after = deployment.rollout_conditions(spec, deadline, before, computed, "foo" if new else None, LATER)
    got = deployment_util.get_condition(after, "Progressing")
    assert (None if got is None else (got.status, got.reason)) == expected
    if kept:
        assert got.last_transition_ms == TEST_TIME


def test_scale_walks_the_old_replica_sets_newest_first_as_find_active_or_latest_left_them():
    """FindActiveOrLatest sorts the caller's old ReplicaSets in place, newest first, and scale()
    then scales them to 0 in that order once the new one is saturated (the differential check's
    write-order case: the sizes agreed, the order of the writes did not)."""
    annotations = {"deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4"}
    old1 = _set("rs-old1", 1, created_ms=1000, annotations=annotations)
    old2 = _set("rs-old2", 1, created_ms=2000, annotations=annotations)
    new = _set("rs-new", 3, created_ms=3000, annotations=annotations)
    available = _available({"rs-old1": 1, "rs-old2": 1, "rs-new": 3})
    writes = deployment.plan_scale(3, deployment.Strategy(ROLLING, 1, 0), 5, new, [old1, old2], available)
    assert [(w.replica_set.name, w.replicas) for w in writes] == [("rs-old2", 0), ("rs-old1", 0)]
