"""framework/informer.py: how the informers key objects (cache.MetaNamespaceKeyFunc) and take a
watch event into a store."""

from __future__ import annotations

from scheduler_core.framework.informer import object_key, take
from scheduler_core.model import CSINode, CSIStorageCapacity
from tests.scheduler_core.builders import make_claim, make_volume


def test_a_namespaced_object_is_keyed_by_namespace_and_name_a_cluster_scoped_one_by_name():
    assert object_key(make_claim("data")) == "default/data" == make_claim("data").key
    assert object_key(CSIStorageCapacity("kube-system", "cap", "fast")) == "kube-system/cap"
    assert (object_key(make_volume("pv")), object_key(CSINode("n1"))) == ("pv", "n1")


def test_an_add_appends_an_update_replaces_in_place_and_a_delete_removes():
    table: dict = {}
    first, second = make_volume("a"), make_volume("b")
    assert take(table, None, first) == "a" and take(table, None, second) == "b"
    updated = make_volume("a", storage_class="fast")
    take(table, first, updated)
    assert list(table.items()) == [("a", updated), ("b", second)]
    take(table, second, None)
    assert table == {"a": updated}
