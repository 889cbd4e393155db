"""SharedLister (scheduler_core.framework.listers): the cache's Snapshot offers all it names."""

from __future__ import annotations

from scheduler_core.framework.listers import SharedLister
from tests.scheduler_core.builders import make_node, make_snapshot


def _members() -> set[str]:
    names = set(SharedLister.__annotations__)
    names |= {name for name in vars(SharedLister) if not name.startswith("_")}
    return names


def test_the_snapshot_has_every_member_the_lister_names():
    snapshot = make_snapshot([make_node("a")])
    members = _members()
    assert {"node_infos", "get", "table", "storage", "dra"} <= members
    assert [name for name in sorted(members) if not hasattr(snapshot, name)] == []
