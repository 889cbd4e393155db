import numpy as np
import pytest

from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.model import Taint, Toleration
from scheduler_core.plugins.helper import (
    FunctionShapePoint,
    build_broken_linear_function,
    default_normalize_score,
    find_untolerated_taint,
    go_div,
    go_round,
)


@pytest.mark.parametrize(
    "numerator, denominator, expected",
    [
        pytest.param(7, 2, 3, id="a positive quotient is truncated"),
        pytest.param(-7, 2, -3, id="a negative quotient is truncated toward zero, not floored"),
        pytest.param(7, -2, -3, id="a negative divisor also truncates toward zero"),
        pytest.param(-7, -2, 3, id="two negatives give a positive truncated quotient"),
    ],
)
def test_go_div_truncates_toward_zero(numerator, denominator, expected):
    assert go_div(numerator, denominator) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        pytest.param(2.5, 3, id="a positive half rounds away from zero"),
        pytest.param(-2.5, -3, id="a negative half rounds away from zero"),
        pytest.param(2.4999, 2, id="below a half rounds down"),
    ],
)
def test_go_round_rounds_halves_away_from_zero(value, expected):
    assert go_round(value) == expected


@pytest.mark.parametrize(
    "reverse, raw, expected",
    [
        pytest.param(False, [10, 5, 0], [100, 50, 0], id="scores are scaled so the highest becomes 100"),
        pytest.param(True, [10, 5, 0], [0, 50, 100], id="reversed scores turn the scale around"),
        pytest.param(False, [0, 0], [0, 0], id="all zero scores stay zero"),
        pytest.param(True, [0, 0], [100, 100], id="all zero scores become the maximum when reversed"),
        pytest.param(False, [3, 1], [100, 33], id="scaled scores are truncated"),
    ],
)
def test_default_normalize_score(reverse, raw, expected):
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    assert default_normalize_score(100, reverse, scores) is None
    assert [s.score for s in scores] == expected


@pytest.mark.parametrize(
    "utilization, expected",
    [
        pytest.param(-5, 100, id="below the first point the first score holds"),
        pytest.param(0, 100, id="at a point its score is returned"),
        pytest.param(33, 67, id="between points the line is interpolated with truncation toward zero"),
        pytest.param(100, 0, id="at the last point its score is returned"),
        pytest.param(150, 0, id="beyond the last point the last score holds"),
    ],
)
def test_broken_linear_function(utilization, expected):
    line = build_broken_linear_function([FunctionShapePoint(0, 100), FunctionShapePoint(100, 0)])
    assert line(utilization) == expected


@pytest.mark.parametrize(
    "taints, tolerations, expected",
    [
        pytest.param(
            [Taint("k", "v", "NoSchedule")],
            [],
            Taint("k", "v", "NoSchedule"),
            id="an untolerated NoSchedule taint is found",
        ),
        pytest.param([Taint("k", "v", "PreferNoSchedule")], [], None, id="a PreferNoSchedule taint is not considered"),
        pytest.param(
            [Taint("k", "v", "NoExecute")],
            [Toleration("k", "Exists")],
            None,
            id="an Exists toleration with no effect tolerates a NoExecute taint",
        ),
        pytest.param(
            [Taint("k", "v", "NoSchedule")],
            [Toleration("k", "Equal", "w")],
            Taint("k", "v", "NoSchedule"),
            id="an Equal toleration with another value does not tolerate",
        ),
    ],
)
def test_find_untolerated_taint(taints, tolerations, expected):
    assert find_untolerated_taint(taints, tolerations) == expected


# ---------------------------------------------------------------------------- per_node_values


def _pods_per_node_values(table, positions, calls):
    """per_node_values of 'pods on the node * 10' with what it was asked noted."""
    from scheduler_core.plugins.helper import per_node_values

    def over(at):
        calls.append(("over", at.tolist()))
        return table.pod_count[at] * 10

    def at_one(position):
        calls.append(("at", position))
        return int(table.pod_count[position]) * 10

    return per_node_values(table, "test-pods", "tens", positions, over, at_one)


def test_per_node_values_are_kept_from_the_second_ask_and_made_again_where_pods_changed():
    from tests.scheduler_core.builders import make_node, make_pod, make_snapshot

    snapshot = make_snapshot([make_node(f"n{i}") for i in range(4)], [make_pod("r0", node="n1")])
    table, positions, calls = snapshot.table, np.asarray([3, 1], dtype=np.int64), []
    assert _pods_per_node_values(table, positions, calls).tolist() == [0, 10]
    assert calls == [("over", [3, 1])]  # asked once: only where asked
    calls.clear()
    assert _pods_per_node_values(table, positions, calls).tolist() == [0, 10]
    assert calls == [("over", [0, 1, 2, 3])]  # asked again: every node, kept
    calls.clear()
    snapshot.bind(make_pod("p", requests={"cpu": 100}), "n3")
    assert _pods_per_node_values(table, positions, calls).tolist() == [10, 10]
    assert calls == [("at", 3)]  # only the node the binding changed
    calls.clear()
    assert _pods_per_node_values(table, np.asarray([0, 3], dtype=np.int64), calls).tolist() == [0, 10]
    assert calls == []


def test_per_node_values_for_many_keys_in_turn_keep_answering_right():
    """More keys than are kept, asked in turn as pods come: the oldest go, the answers stay right."""
    from scheduler_core.plugins.helper import per_node_values
    from tests.scheduler_core.builders import make_node, make_pod, make_snapshot

    snapshot = make_snapshot([make_node(f"n{i}") for i in range(3)])
    table, positions = snapshot.table, np.asarray([0, 1, 2], dtype=np.int64)
    for round_ in range(3):
        for key in range(20):
            values = per_node_values(
                table,
                "test-many",
                key,
                positions,
                lambda at, key=key: table.pod_count[at] + key,
                lambda position, key=key: int(table.pod_count[position]) + key,
            )
            assert values.tolist() == (table.pod_count + key).tolist()
        snapshot.bind(make_pod(f"p{round_}", requests={"cpu": 100}), f"n{round_}")
