"""NodeTable: its columns follow the NodeInfos, and it can tell which nodes changed since a version."""

from __future__ import annotations

from scheduler_core.framework.node_info import NodeInfo, PodInfo
from scheduler_core.framework.node_table import NodeTable
from tests.scheduler_core.builders import make_node, make_pod


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
