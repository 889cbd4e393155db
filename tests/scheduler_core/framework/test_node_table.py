"""framework/node_table.py: the columnar view of the snapshot's nodes the fast paths read, kept
equal to the NodeInfos as pods bind and leave."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import (
    MISSING,
    MIN_RUN,
    NodeTable,
    PositionedInfos,
    PositionedNodeList,
    carried_positions,
    gathered_names,
)
from scheduler_core.model import CPU, MEMORY, LABEL_ZONE
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot


def _snapshot():
    nodes = [
        make_node("n0", {LABEL_ZONE: "a"}, cpu=2000),
        make_node("n1", {LABEL_ZONE: "b"}, unschedulable=True),
        make_node("n2", {}, cpu=8000),
    ]
    return make_snapshot(nodes, [make_pod("r", node="n2", requests={CPU: 500, MEMORY: 1 << 20})])


def test_each_resource_and_label_is_a_column_in_document_order():
    table = _snapshot().table
    assert table.names == ["n0", "n1", "n2"]
    assert table.allocatable_of(CPU).tolist() == [2000, 4000, 8000]
    assert table.requested_of(CPU).tolist() == [0, 0, 500]
    assert table.pod_count.tolist() == [0, 0, 1]
    assert table.unschedulable.tolist() == [False, True, False]
    zone = table.labels(LABEL_ZONE)
    assert (zone.codes.tolist(), zone.values, zone.present.tolist()) == (
        [0, 1, MISSING],
        ["a", "b"],
        [True, True, False],
    )


def test_a_resource_no_node_has_reads_as_zeros():
    table = _snapshot().table
    assert table.allocatable_of("example.com/gpu").tolist() == [0, 0, 0]


def test_binding_and_removing_a_pod_keeps_the_columns_equal_to_the_node_infos():
    snapshot = _snapshot()
    table = snapshot.table
    version = table.version
    pod = make_pod("p", node="n0", requests={CPU: 300})
    snapshot.bind(pod, "n0")
    assert (table.requested_of(CPU)[0], table.pod_count[0], table.non_zero_cpu[0]) == (300, 1, 300)
    assert table.version > version, "plugins caching per-table arrays see the change"
    snapshot.remove_pod(pod)
    assert (table.requested_of(CPU)[0], table.pod_count[0]) == (0, 0)
    assert table.requested_of(CPU).tolist() == [info.requested.get(CPU, 0) for info in snapshot.node_infos]


def test_a_pod_added_directly_counts_its_non_zero_defaults():
    snapshot = _snapshot()
    table = snapshot.table
    table.add_pod("n1", PodInfo(make_pod("empty", node="n1")))
    assert (table.non_zero_cpu[1], table.non_zero_memory[1]) == (100, 200 << 20)


def test_names_at_runs_of_the_table_are_sliced_and_equal_to_names_gathered_one_by_one(monkeypatch):
    names = [f"node-{i}" for i in range(300)]
    array = np.asarray(names, dtype=object)
    runs = [
        np.arange(0, 300),
        np.arange(17, 17 + 200),
        np.arange(250, 250 + 120) % 300,
        np.arange(299, 299 + 300) % 300,
    ]
    others = [
        np.arange(0, 300, 3),
        np.arange(100)[::-1].copy(),
        np.array([0, *range(2, MIN_RUN), 1, MIN_RUN]),
        np.array([5, 7, *range(8, 8 + MIN_RUN - 3), 7 + MIN_RUN - 2]),
        np.arange(5, 5 + MIN_RUN - 1),
        np.array([*range(250, 300), 1, 0, *range(2, 70)]),
    ]  # wraps, but not as a run after the end
    for positions in runs + others:
        assert gathered_names(names, array, positions) == [names[p] for p in positions.tolist()]

    class NotGathered:  # a run never reads the object array
        def __getitem__(self, positions):
            raise AssertionError("gathered one by one")

    for positions in runs:
        assert gathered_names(names, NotGathered(), positions) == [names[p] for p in positions.tolist()]  # type: ignore[arg-type]


def test_positions_names_and_infos_read_the_same_rows():
    snapshot = _snapshot()
    table = snapshot.table
    positions = table.positions(["n2", "n0"])
    assert positions.tolist() == [2, 0]
    assert table.names_at(positions) == ["n2", "n0"]
    assert table.names_at(positions).positions is positions  # kept for readers that index nodes
    assert table.names_at(positions).table_names is table.names
    infos = table.infos_at(positions)
    assert list(infos) == [infos[0], infos[1]] == [snapshot.get("n2"), snapshot.get("n0")]
    assert infos[:1] == [snapshot.get("n2")] and len(infos) == 2
    assert infos.positions is positions and infos.table_infos is table.node_infos
    assert table.positions().tolist() == [0, 1, 2]


def test_infos_at_gathers_the_node_infos_once_and_only_when_they_are_read():
    gathered: list[list[int]] = []

    class Column:
        """The table's object array, noting each gather."""

        def __getitem__(self, positions: np.ndarray) -> np.ndarray:
            gathered.append(positions.tolist())
            return np.array(["info%d" % p for p in positions.tolist()], dtype=object)

    infos = PositionedInfos(Column(), np.array([3, 1], dtype=np.int64), [])  # type: ignore[arg-type]
    assert len(infos) == 2 and not gathered  # PreScore plugins that only ask how many read nothing
    assert list(infos) == ["info3", "info1"] and infos[1] == "info1"
    assert gathered == [[3, 1]]


def test_tree_order_lists_positions_zone_by_zone_as_the_snapshot_does():
    nodes = [make_node("a1", {LABEL_ZONE: "a"}), make_node("a2", {LABEL_ZONE: "a"}), make_node("b1", {LABEL_ZONE: "b"})]
    table = make_snapshot(nodes).table
    assert table.in_tree_order(np.arange(3, dtype=np.int64)).tolist() == table.tree_order.tolist() == [0, 2, 1]


def test_it_tells_the_positions_changed_since_a_version_and_when_it_cannot():
    nodes = [NodeInfo(make_node(f"n{i}")) for i in range(4)]
    table = NodeTable(nodes)
    start = table.version
    for node, name in ((2, "a"), (0, "b"), (2, "c")):
        info = PodInfo(make_pod(name, requests={"cpu": 100}))
        nodes[node].add_pod(info)
        table.add_pod(nodes[node].name, info)
    assert table.changed_since(start) == [0, 2]
    assert table.changed_since(start + 2) == [2] and table.changed_since(table.version) == []
    assert table.requested_of("cpu").tolist() == [100, 0, 200, 0]
    table.version += 1  # a bump the table did not log: it cannot tell any more
    assert table.changed_since(start) is None
    info = PodInfo(make_pod("d"))
    nodes[3].add_pod(info)
    table.add_pod("n3", info)
    assert table.changed_since(table.version - 1) == [3]


def test_node_positions_read_as_the_list_of_their_names():
    """The engine's own process keeps a list of evaluated nodes as positions: a reader gets the
    same names, index by index, as the list gathered from them; json refuses it (never ``[]``)."""
    import json

    import pytest

    from scheduler_core.framework.node_table import NodePositions

    names = [f"n{i}" for i in range(10)]
    positions = np.asarray([7, 8, 9, 0, 1], dtype=np.int64)
    listed = NodePositions(positions, names)
    gathered = [names[p] for p in positions]
    assert len(listed) == 5 and list(listed) == gathered and listed == gathered and gathered == listed
    assert [listed[i] for i in range(-5, 5)] == gathered * 2 and listed[1:4] == gathered[1:4]
    assert listed != gathered[:4] and listed != "n7n8n9n0n1" and "n9" in listed and "n5" not in listed
    with pytest.raises(TypeError):
        json.dumps(listed)


def test_a_table_given_no_listing_order_walks_its_nodes_in_document_order():
    nodes = [NodeInfo(make_node(n, {LABEL_ZONE: z})) for n, z in (("a1", "a"), ("a2", "a"), ("b1", "b"))]
    assert NodeTable(nodes).tree_order.tolist() == [0, 1, 2]
    assert NodeTable(nodes, tree_order=np.asarray([0, 2, 1])).in_tree_order(np.asarray([1, 2])).tolist() == [2, 1]


def test_a_node_list_picked_from_a_table_carries_its_positions_for_that_table_only():
    table = make_snapshot([make_node(f"n{i}") for i in range(4)]).table
    picked = PositionedNodeList([table.node_infos[1], table.node_infos[3]], np.array([1, 3]), table.node_infos)
    assert list(picked) == [table.node_infos[1], table.node_infos[3]], "a plain list to every other reader"
    assert carried_positions(picked, table).tolist() == [1, 3]
    assert carried_positions(list(picked), table) is None
    other = NodeTable(list(table.node_infos))  # another table (a node changed): another list
    assert carried_positions(picked, other) is None
