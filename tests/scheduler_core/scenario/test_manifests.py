"""Objects written during a run, decoded as the loader decodes them; RFC 7386 merge patches."""

from __future__ import annotations

import pytest

from scheduler_core.scenario import ScenarioInvalid
from scheduler_core.scenario.manifests import decode_node, decode_pod, merge_patch


def test_a_merge_patch_merges_maps_removes_nulls_and_replaces_lists():
    target = {"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"taints": [{"key": "x"}]}}
    patched = merge_patch(target, {"metadata": {"labels": {"b": None, "c": "3"}}, "spec": {"taints": []}})
    assert patched == {"metadata": {"labels": {"a": "1", "c": "3"}}, "spec": {"taints": []}}
    assert target["metadata"]["labels"] == {"a": "1", "b": "2"}  # the target is left as it was


def test_it_decodes_a_node_and_a_pod_as_the_loader_would():
    node = decode_node(
        {"metadata": {"name": "n1", "labels": {"zone": "a"}}, "status": {"allocatable": {"cpu": "2", "pods": "10"}}}, 3
    )
    assert (node.name, node.labels, node.allocatable["cpu"], node.doc_index) == ("n1", {"zone": "a"}, 2000, 3)
    pod = decode_pod({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}, 0)
    assert pod.key == "default/p"


def test_it_reports_a_bad_manifest_with_its_path():
    with pytest.raises(ScenarioInvalid) as raised:
        decode_pod(
            {
                "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]},
            },
            0,
            line=7,
        )
    assert raised.value.errors[0].path.startswith("spec.containers[0]")
