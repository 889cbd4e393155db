"""deployment_util against the release's own tables: pkg/controller/deployment/util/
deployment_util_test.go (the v1.33+ file that tests status.terminatingReplicas), transcribed case
by case with the upstream names as ids and the same outcome compared. Times are the run's clock
in ms (the upstream tests use wall-clock times one second or more apart)."""

from __future__ import annotations

from typing import Optional

import pytest

from scheduler_core.cluster.controllers import deployment_util as util
from scheduler_core.cluster.controllers.deployment_util import (
    ANN_DESIRED_REPLICAS,
    ANN_MAX_REPLICAS,
    Condition,
    DeploymentStatus,
    Strategy,
)
from tests.scheduler_core.builders import controlled_workload

ROLLING = util.STRATEGY_ROLLING_UPDATE
RECREATE = util.STRATEGY_RECREATE
INT32_MAX = 2**31 - 1


def _rs(replicas: int, annotations: Optional[dict] = None, name: str = "nginx-rs", created_ms: int = 0):
    return controlled_workload(
        "ReplicaSet", name, replicas=replicas, annotations=dict(annotations or {}), created_ms=created_ms
    )


# ---------------------------------------------------------------------------- intstr and fenceposts


@pytest.mark.parametrize(
    ("value", "total", "round_up", "expected"),
    [
        pytest.param(2, 10, True, 2, id="an integer is taken as it is"),
        pytest.param("25%", 3, True, 1, id="a surge of 25 percent of 3 rounds up to 1"),
        pytest.param("25%", 3, False, 0, id="an unavailable 25 percent of 3 rounds down to 0"),
        pytest.param("50%", 5, False, 2, id="half of 5 rounds down to 2"),
        pytest.param("100%", 7, True, 7, id="a hundred percent is everything"),
    ],
)
def test_it_scales_int_or_percent_as_get_scaled_value_from_int_or_percent(value, total, round_up, expected):
    assert util.scaled_value(value, total, round_up) == expected


def test_it_refuses_a_string_that_is_not_a_percentage():
    with pytest.raises(ValueError):
        util.scaled_value("25", 4, True)


# TestResolveFenceposts: (maxSurge, maxUnavailable, desired) -> (surge, unavailable) or an error.
@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "expected"),
    [
        pytest.param("0%", "0%", 0, (0, 1), id="0"),
        pytest.param("39%", "39%", 10, (4, 3), id="1"),
        pytest.param("oops", "39%", 10, None, id="2"),
        pytest.param("55%", "urg", 10, None, id="3"),
        pytest.param(None, "39%", 10, (0, 3), id="4"),
        pytest.param("39%", None, 10, (4, 0), id="5"),
        pytest.param(None, None, 10, (0, 1), id="6"),
    ],
)
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    if expected is None:
        with pytest.raises(ValueError):
            util.resolve_fenceposts(surge, unavailable, desired)
    else:
        assert util.resolve_fenceposts(surge, unavailable, desired) == expected


# TestNewRSNewReplicas: every ReplicaSet is rs5 (5 replicas); maxUnavailable 1.
@pytest.mark.parametrize(
    ("strategy_type", "dep_replicas", "new_rs_replicas", "max_surge", "expected"),
    [
        pytest.param(ROLLING, 1, 5, 1, 5, id="can not scale up - to newRSReplicas"),
        pytest.param(ROLLING, 6, 2, 10, 6, id="scale up - to depReplicas"),
        pytest.param(RECREATE, 3, 1, 1, 3, id="recreate - to depReplicas"),
    ],
)
def test_new_rs_new_replicas(strategy_type, dep_replicas, new_rs_replicas, max_surge, expected):
    strategy = Strategy(strategy_type, max_surge, 1)
    assert util.new_rs_replicas(dep_replicas, strategy, [_rs(5)], new_rs_replicas) == expected


# TestMaxUnavailable: maxSurge 1.
@pytest.mark.parametrize(
    ("replicas", "strategy", "expected"),
    [
        pytest.param(10, Strategy(ROLLING, 1, 5), 5, id="maxUnavailable less than replicas"),
        pytest.param(10, Strategy(ROLLING, 1, 10), 10, id="maxUnavailable equal replicas"),
        pytest.param(5, Strategy(ROLLING, 1, 10), 5, id="maxUnavailable greater than replicas"),
        pytest.param(0, Strategy(ROLLING, 1, 10), 0, id="maxUnavailable with replicas is 0"),
        pytest.param(1, Strategy(RECREATE, 0, 0), 0, id="maxUnavailable with Recreate deployment strategy"),
        pytest.param(10, Strategy(ROLLING, 1, "50%"), 5, id="maxUnavailable less than replicas with percents"),
        pytest.param(10, Strategy(ROLLING, 1, "100%"), 10, id="maxUnavailable equal replicas with percents"),
        pytest.param(5, Strategy(ROLLING, 1, "100%"), 5, id="maxUnavailable greater than replicas with percents"),
    ],
)
def test_max_unavailable(replicas, strategy, expected):
    assert util.max_unavailable(replicas, strategy) == expected


# TestMinAvailable: maxSurge 1.
@pytest.mark.parametrize(
    ("replicas", "strategy", "expected"),
    [
        pytest.param(10, Strategy(ROLLING, 1, 5), 5, id="replicas greater than maxUnavailable"),
        pytest.param(10, Strategy(ROLLING, 1, 10), 0, id="replicas equal maxUnavailable"),
        pytest.param(5, Strategy(ROLLING, 1, 10), 0, id="replicas less than maxUnavailable"),
        pytest.param(0, Strategy(ROLLING, 1, 10), 0, id="replicas is 0"),
        pytest.param(10, Strategy(RECREATE, 0, 0), 0, id="minAvailable with Recreate deployment strategy"),
        pytest.param(10, Strategy(ROLLING, 1, "60%"), 4, id="replicas greater than maxUnavailable with percents"),
        pytest.param(10, Strategy(ROLLING, 1, "100%"), 0, id="replicas equal maxUnavailable with percents"),
        pytest.param(5, Strategy(ROLLING, 1, "100%"), 0, id="replicas less than maxUnavailable with percents"),
    ],
)
def test_min_available(replicas, strategy, expected):
    assert util.min_available(replicas, strategy) == expected


# ---------------------------------------------------------------------------- conditions


def _progressing() -> Condition:
    return Condition(util.PROGRESSING, util.FALSE, "ForSomeReason")


def _progressing2() -> Condition:
    return Condition(util.PROGRESSING, util.TRUE, "BecauseItIs")


def _available() -> Condition:
    return Condition(util.AVAILABLE, util.TRUE, "AwesomeController")


def _status() -> DeploymentStatus:
    return DeploymentStatus(conditions=(_progressing(), _available()))


@pytest.mark.parametrize(
    ("status", "kind", "expected"),
    [
        pytest.param(_status(), util.AVAILABLE, True, id="condition exists"),
        pytest.param(_status(), "ReplicaFailure", False, id="condition does not exist"),
    ],
)
def test_get_condition(status, kind, expected):
    assert (util.get_condition(status, kind) is not None) == expected


@pytest.mark.parametrize(
    ("status", "condition", "expected"),
    [
        pytest.param(
            DeploymentStatus(), _available(), DeploymentStatus(conditions=(_available(),)), id="set for the first time"
        ),
        pytest.param(DeploymentStatus(conditions=(_progressing(),)), _available(), _status(), id="simple set"),
        pytest.param(
            DeploymentStatus(conditions=(_progressing(),)),
            _progressing2(),
            DeploymentStatus(conditions=(_progressing2(),)),
            id="overwrite",
        ),
    ],
)
def test_set_condition(status, condition, expected):
    assert util.set_condition(status, condition) == expected


@pytest.mark.parametrize(
    ("status", "kind", "expected"),
    [
        pytest.param(DeploymentStatus(), util.PROGRESSING, DeploymentStatus(), id="remove from empty status"),
        pytest.param(
            DeploymentStatus(conditions=(_progressing(),)), util.PROGRESSING, DeploymentStatus(), id="simple remove"
        ),
        pytest.param(_status(), "ReplicaFailure", _status(), id="doesn't remove anything"),
    ],
)
def test_remove_condition(status, kind, expected):
    assert util.remove_condition(status, kind) == expected


# TestDeploymentComplete: deployment(desired, current, updated, available, maxUnavailable, maxSurge).
@pytest.mark.parametrize(
    ("desired", "current", "updated", "available", "expected"),
    [
        pytest.param(5, 5, 5, 4, False, id="not complete: min but not all pods become available"),
        pytest.param(5, 5, 5, 3, False, id="not complete: min availability is not honored"),
        pytest.param(5, 5, 5, 5, True, id="complete"),
        pytest.param(5, 5, 4, 5, False, id="not complete: all pods are available but not updated"),
        pytest.param(1, 2, 1, 1, False, id="not complete: still running old pods"),
        pytest.param(1, 1, 1, 0, False, id="not complete: one replica deployment never comes up"),
    ],
)
def test_deployment_complete(desired, current, updated, available, expected):
    status = DeploymentStatus(replicas=current, updated=updated, available=available)
    assert util.deployment_complete(desired, status) == expected


# TestDeploymentProgressing: (current, updated, ready, available) before and after.
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param((10, 4, 4, 4), (10, 6, 4, 4), True, id="progressing: updated pods"),
        pytest.param((10, 4, 4, 4), (10, 4, 4, 4), False, id="not progressing"),
        pytest.param((10, 4, 6, 6), (8, 4, 6, 6), True, id="progressing: old pods removed"),
        pytest.param((10, 7, 3, 3), (10, 6, 3, 3), False, id="not progressing: less new pods"),
        pytest.param((10, 4, 7, 7), (8, 8, 5, 5), True, id="progressing: less overall but more new pods"),
        pytest.param((10, 10, 9, 8), (10, 10, 10, 8), True, id="progressing: more ready pods"),
        pytest.param((10, 10, 10, 9), (10, 10, 10, 10), True, id="progressing: more available pods"),
    ],
)
def test_deployment_progressing(old, new, expected):
    def status(current, updated, ready, available):
        return DeploymentStatus(replicas=current, updated=updated, ready=ready, available=available)

    assert util.deployment_progressing(status(*old), status(*new)) == expected


def _time(minute: int, second: int) -> int:
    return (minute * 60 + second) * 1000


# TestDeploymentTimedOut: a Progressing condition last updated at `from`, checked at `now`.
@pytest.mark.parametrize(
    ("reason", "deadline", "updated_ms", "now_ms", "expected"),
    [
        pytest.param(
            "", None, _time(1, 9), _time(1, 20), False, id="nil progressDeadlineSeconds specified - no timeout"
        ),
        pytest.param(
            "",
            INT32_MAX,
            _time(1, 9),
            _time(1, 20),
            False,
            id="infinite progressDeadlineSeconds specified - no timeout",
        ),
        pytest.param(
            "",
            10,
            _time(1, 9),
            _time(1, 20),
            True,
            id="progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:09 => 11s",
        ),
        pytest.param(
            "",
            10,
            _time(1, 11),
            _time(1, 20),
            False,
            id="progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:11 => 9s",
        ),
        pytest.param(util.REASON_NEW_RS_AVAILABLE, None, 0, 0, False, id="previous status was a complete deployment"),
    ],
)
def test_deployment_timed_out(reason, deadline, updated_ms, now_ms, expected):
    status = DeploymentStatus(conditions=(Condition(util.PROGRESSING, util.TRUE, reason, "", updated_ms),))
    deadline = None if deadline == INT32_MAX else deadline  # HasProgressDeadline: MaxInt32 is none
    assert util.deployment_timed_out(deadline, status, now_ms) == expected


# ---------------------------------------------------------------------------- annotations and proportions


@pytest.mark.parametrize(
    ("annotations", "value", "valid", "error"),
    [
        pytest.param({}, 0, False, "", id="invalid empty"),
        pytest.param({"test": "invalid", "foo": "2"}, 0, False, "invalid syntax", id="invalid"),
        pytest.param({"test": "-1", "foo": "2"}, 0, False, "invalid syntax", id="invalid negative "),
        pytest.param({"test": "0", "foo": "2"}, 0, True, "", id="valid zero"),
        pytest.param({"test": "13", "foo": "2"}, 13, True, "", id="valid"),
        pytest.param({"test": str(INT32_MAX), "foo": "2"}, INT32_MAX, True, "", id="valid max"),
        pytest.param({"test": str(INT32_MAX + 1), "foo": "2"}, 0, False, "out of range", id="invalid max out of range"),
        pytest.param({"test": str(2**32), "foo": "2"}, 0, False, "out of range", id="invalid max out of range 2"),
    ],
)
def test_get_non_negative_int32_from_annotation(annotations, value, valid, error):
    got_value, got_valid, got_error = util.non_negative_int32_annotation(annotations, "test")
    assert (got_value, got_valid) == (value, valid)
    assert (got_error is None) == (not error) and error in (got_error or "")


def test_annotation_utils_set_replicas_annotations_and_is_saturated():
    """TestAnnotationUtils' SetReplicasAnnotations and IsSaturated (its revision-history subtest
    has no counterpart: the stand-in does not write deployment.kubernetes.io/revision-history)."""
    rs = _rs(1)
    annotations = util.with_replicas_annotations(rs, 10, 11)
    assert (annotations[ANN_DESIRED_REPLICAS], annotations[ANN_MAX_REPLICAS]) == ("10", "11")
    assert util.replicas_annotations_need_update(rs, 10, 11)
    saturated = _rs(1, {ANN_DESIRED_REPLICAS: "1"})
    assert util.is_saturated(1, saturated, available=1)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param(None, True, id="test Annotations nil"),
        pytest.param({ANN_DESIRED_REPLICAS: "8", ANN_MAX_REPLICAS: "20"}, True, id="test desiredReplicas update"),
        pytest.param({ANN_DESIRED_REPLICAS: "10", ANN_MAX_REPLICAS: "16"}, True, id="test maxReplicas update"),
        pytest.param({ANN_DESIRED_REPLICAS: "10", ANN_MAX_REPLICAS: "20"}, False, id="test needn't update"),
    ],
)
def test_replicas_annotations_need_update(annotations, expected):
    assert util.replicas_annotations_need_update(_rs(0, annotations), 10, 20) == expected


# TestGetReplicaSetFraction: maxUnavailable 1.
@pytest.mark.parametrize(
    ("replicas", "status_replicas", "surge", "rs_replicas", "annotations", "expected"),
    [
        pytest.param(0, 0, 0, 10, None, -10, id="empty deployment always scales to 0"),
        pytest.param(
            10,
            0,
            0,
            5,
            None,
            0,
            id="unsynced deployment does not scale when max-replicas annotation is missing (removed by a 3rd party)",
        ),
        pytest.param(
            10,
            0,
            0,
            5,
            {ANN_MAX_REPLICAS: "0"},
            0,
            id="unsynced deployment does not scale when max-replicas annotation is incorrectly set to 0 "
            "(by a 3rd party)",
        ),
        pytest.param(
            120,
            100,
            0,
            50,
            None,
            10,
            id="scale up by 1/5 should increase RS replicas by 1/5 when max-replicas annotation is missing "
            "(removed by a 3rd party)",
        ),
        pytest.param(
            120,
            100,
            0,
            50,
            {ANN_MAX_REPLICAS: "0"},
            10,
            id="scale up by 1/5 should increase RS replicas by 1/5 when max-replicas annotation is incorrectly "
            "set to 0 (by a 3rd party)",
        ),
        pytest.param(
            120, 0, 0, 50, {ANN_MAX_REPLICAS: "100"}, 10, id="scale up by 1/5 should increase RS replicas by 1/5"
        ),
        pytest.param(
            120,
            0,
            10,
            50,
            {ANN_MAX_REPLICAS: "110"},
            9,
            id="scale up with maxSurge by 1/5 should increase RS replicas approximately by 1/5",
        ),
        pytest.param(
            10, 0, 0, 6, {ANN_MAX_REPLICAS: "12"}, -1, id="scale down by 1/6 should decrease RS replicas by 1/6"
        ),
        pytest.param(
            100,
            0,
            10,
            50,
            {ANN_MAX_REPLICAS: "130"},
            -8,
            id="scale down with maxSurge by 1/6 should decrease RS replicas approximately by 1/6",
        ),
    ],
)
def test_get_replica_set_fraction(replicas, status_replicas, surge, rs_replicas, annotations, expected):
    strategy = Strategy(ROLLING, surge, 1)
    assert util.replica_set_fraction(_rs(rs_replicas, annotations), replicas, strategy, status_replicas) == expected


# ---------------------------------------------------------------------------- requeueStuckDeployment
# progress_test.go TestRequeueStuckDeployment: progressDeadlineSeconds 60; a stuck Deployment's
# Progressing condition was last updated at 18:49:00 (here 0). The "less than a second" case is
# 1 ns before the deadline upstream; the run's clock counts milliseconds, so 1 ms here.

_STUCK = DeploymentStatus(3, 3, 0, 1, conditions=(Condition(util.PROGRESSING, util.TRUE, "", "", 0),))
_FAILED = DeploymentStatus(3, 3, 0, 0, conditions=(Condition(util.PROGRESSING, util.FALSE, util.REASON_TIMED_OUT),))


@pytest.mark.parametrize(
    ("deadline", "replicas", "current", "new", "now_ms", "expected"),
    [
        pytest.param(
            None,
            4,
            DeploymentStatus(3, 3, 0, 2),
            DeploymentStatus(3, 3, 0, 2),
            0,
            -1,
            id="no progressDeadlineSeconds specified",
        ),
        pytest.param(
            60,
            4,
            DeploymentStatus(3, 3, 0, 2),
            DeploymentStatus(3, 3, 0, 2),
            0,
            -1,
            id="no progressing condition found",
        ),
        pytest.param(
            60,
            3,
            DeploymentStatus(3, 3, 0, 3),
            DeploymentStatus(3, 3, 0, 3),
            0,
            -1,
            id="complete deployment does not need to be requeued",
        ),
        pytest.param(
            60,
            3,
            _FAILED,
            DeploymentStatus(3, 3, 0, 0),
            0,
            -1,
            id="already failed deployment does not need to be requeued",
        ),
        pytest.param(60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 30_000, 30_000, id="stuck deployment - 30s"),
        pytest.param(60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 59_000, 1_000, id="stuck deployment - 1s"),
        pytest.param(
            60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 59_001, 0, id="failed deployment - less than a second => now"
        ),
        pytest.param(60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 60_000, 0, id="failed deployment - now"),
        pytest.param(
            60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 61_000, 0, id="failed deployment - 1s after deadline"
        ),
        pytest.param(
            60, 3, _STUCK, DeploymentStatus(3, 3, 0, 1), 120_000, 0, id="failed deployment - 60s after deadline"
        ),
    ],
)
def test_requeue_stuck_deployment(deadline, replicas, current, new, now_ms, expected):
    assert util.requeue_stuck_after_ms(deadline, replicas, current, new, now_ms) == expected


# ---------------------------------------------------------------------------- orderings


def test_replica_sets_by_size_older_and_newer_break_ties_by_creation():
    """controller.ReplicaSetsBySizeOlder / BySizeNewer: larger first; equal sizes oldest (newest) first."""
    old, mid, new = _rs(2, name="a", created_ms=1), _rs(2, name="b", created_ms=2), _rs(5, name="c", created_ms=3)
    assert [rs.name for rs in util.by_size_older([new, mid, old])] == ["c", "a", "b"]
    assert [rs.name for rs in util.by_size_newer([old, mid, new])] == ["c", "b", "a"]


def test_find_active_or_latest_takes_the_only_active_set_or_the_newest():
    """FindActiveOrLatest: one active is it; none active is the new one, else the newest old one."""
    older, newer = _rs(0, name="a", created_ms=1), _rs(0, name="b", created_ms=2)
    assert util.find_active_or_latest(None, [older, newer]) is newer
    active = _rs(3, name="c", created_ms=0)
    assert util.find_active_or_latest(None, [older, active]) is active
    assert util.find_active_or_latest(_rs(1, name="n"), [active]) is None


def test_replica_sets_of_the_scenario_are_ordered_by_their_creation_timestamp_before_the_runs():
    """ReplicaSetsByCreationTimestamp: a dump's ReplicaSets by metadata.creationTimestamp (one
    without is the oldest), then by name; those the run made come after them all (they used to be
    ordered by name alone, so a rollout scaled down the wrong old ReplicaSet first)."""

    def dumped(name: str, created: Optional[str]) -> object:
        metadata = {"name": name} | ({"creationTimestamp": created} if created else {})
        return controlled_workload("ReplicaSet", name, manifest={"metadata": metadata})

    later, earlier = dumped("web-aaa", "2024-05-01T00:10:00Z"), dumped("web-bbb", "2024-05-01T00:05:00Z")
    undated, made = dumped("web-zzz", None), _rs(1, name="web-000", created_ms=5000)
    ordered = sorted([made, later, earlier, undated], key=util.creation_order)
    assert [rs.name for rs in ordered] == ["web-zzz", "web-bbb", "web-aaa", "web-000"]
