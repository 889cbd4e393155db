"""webui/services/objects.py: a version's nodes and pods as the engine reads them, the JSON answers
built once per version, and the engine's integers written back as Kubernetes quantities."""

import json

import pytest

from tests.webui import support
from webui.services import engine, objects, scenarios
from webui.services.access import Actor
from webui.services.errors import InvalidScenario

OWNER = Actor(session_key="owner-session")


@pytest.mark.parametrize(
    "resource, amount, text",
    [
        ("cpu", 2000, "2"),
        ("cpu", 1500, "1500m"),
        ("cpu", 0, "0"),
        ("memory", 2 << 30, "2Gi"),
        ("memory", 1536 << 20, "1536Mi"),
        ("memory", 1000, "1000"),
        ("memory", 0, "0"),
        ("ephemeral-storage", 1 << 40, "1Ti"),
        ("pods", 110, "110"),
        ("example.com/gpu", 1 << 30, str(1 << 30)),
    ],
)
def test_quantities_read_as_kubernetes_writes_them(resource, amount, text):
    assert objects.quantity_text(resource, amount) == text


def test_quantities_text_converts_a_whole_list():
    assert objects.quantities_text({"cpu": 250, "memory": 1 << 20}) == {"cpu": "250m", "memory": "1Mi"}


@pytest.mark.django_db
def test_a_versions_objects_are_the_engines_in_document_order():
    version = scenarios.create(OWNER, "s", support.scenario_text(nodes=2, pending=1, running=1)).version
    found = objects.of_version(version)
    assert [n.name for n in found.nodes] == ["node-0", "node-1"]
    pending = [p.name for p in found.pods if id(p) in found.pending]
    assert pending == ["pending-0"] and len(found.pods) == 2
    assert (found.volumes, found.devices, found.claims) == ([], [], {})


@pytest.mark.django_db
def test_the_node_list_is_built_once_per_version():
    version = scenarios.create(OWNER, "s", support.scenario_text(nodes=2, pending=1)).version
    assert not objects.nodes_ready(version.pk)
    body = json.loads(objects.nodes_json(version))
    assert body == {
        "version": 1,
        "nodes": [
            {"name": "node-0", "labels": {"kubernetes.io/hostname": "node-0", "zone": "zone-0"}},
            {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1", "zone": "zone-1"}},
        ],
    }
    assert objects.nodes_ready(version.pk)
    built = []
    objects.objects_json(version, lambda found: built.append(found) or b"{}")
    assert objects.objects_json(version, lambda found: built.append(found) or b"{}") == b"{}" and len(built) == 1


@pytest.mark.django_db
def test_an_invalid_version_answers_its_problems():
    version = scenarios.create(OWNER, "s", "apiVersion: v1\nkind: Node\nmetadata: {}\n").version
    with pytest.raises(InvalidScenario):
        objects.of_version(version)
    assert objects.warm(None) is None
    engine.forget_everything()


# --- the cluster view's page: counts of the whole, domains, a page of nodes and the first pending pods


@pytest.mark.django_db
def test_a_cluster_page_is_bounded_whatever_the_cluster(monkeypatch):
    monkeypatch.setattr(objects, "MAX_PENDING_SHOWN", 2)
    monkeypatch.setattr(objects, "MAX_GROUPS", 2)
    version = scenarios.create(OWNER, "s", support.scenario_text(nodes=6, pending=4, running=3)).version
    found = objects.found_of(version)
    assert objects.found_of(version) is found  # kept: "more", a search and a domain ask again
    page = objects.cluster_page(found, objects.PageQuery(group_key="kubernetes.io/hostname", limit=2), None)
    assert (page["groupCount"], len(page["groups"]), page["matched"]) == (6, 2, 6)
    assert [n.name for n in page["nodes"]] == ["node-0", "node-1"]
    assert [p.name for p in page["pods"]] == ["running-0", "running-1", "pending-0", "pending-1"]
    assert page["pendingCount"] == 4 and page["placements"] == {}


@pytest.mark.django_db
def test_a_cluster_page_puts_the_runs_pods_on_their_nodes():
    version = scenarios.create(OWNER, "s", support.scenario_text(nodes=2, pending=2, running=1)).version
    story = {
        "mode": "timeline",
        "finished": True,
        "final": {"default/pending-0": "node-1", "default/pending-1": None, "default/running-0": "deleted"},
        "nominated": {"default/pending-1": "node-1"},
        "attempts": [
            {"pod": "default/pending-0", "cycle": 0, "nodeName": "node-1"},
            {"pod": "default/pending-1", "cycle": 1},
        ],
    }
    placed = objects.run_placements(story)
    assert placed is not None and placed.placed_in == {"default/pending-0": 0}
    page = objects.cluster_page(objects.of_version(version), objects.PageQuery(), placed)
    assert [p.name for p in page["pods"]] == ["running-0", "pending-0", "pending-1"]  # the victim stays on its node
    assert page["pendingCount"] == 1 and page["nominated"] == {"default/pending-1": "node-1"}
    assert page["groups"] == [{"domain": "zone-0", "nodes": 1, "pods": 1}, {"domain": "zone-1", "nodes": 1, "pods": 1}]
    assert objects.run_placements({"mode": "single"}) is None


def test_the_one_pager_reads_any_cluster_by_its_shelf_of_accessors():
    """page_of over plain tuples (a step's nodes and pods are the engine's own types): domains, a search, a window."""
    nodes = [(f"n{i}", {"zone": "ab"[i % 2]}) for i in range(5)]
    pods = [("p-low", "n0", 0), ("p-far", "gone-node", 0), ("q-1", None, 1), ("q-2", None, 5), ("p-on-4", "n4", 0)]
    shelf: objects.Shelf[tuple[str, dict[str, str]], tuple[str, str | None, int]] = objects.Shelf(
        nodes,
        lambda node: node[0],
        lambda node: node[1],
        pods,
        lambda pod: {"app": pod[0]},
        lambda pod: pod[1],
        lambda pod: pod[1] is None,
        lambda pod: pod[2],
    )
    page = objects.page_of(shelf, objects.PageQuery(offset=1, limit=2))
    assert [n[0] for n in page.nodes] == ["n1", "n2"]
    assert [p[0] for p in page.pods] == ["q-2", "q-1"]  # none on n1, n2; the pending, highest priority first
    said = page.counts
    assert (said["nodeCount"], said["podCount"], said["pendingCount"], said["matched"]) == (5, 5, 2, 5)
    assert said["groupKey"] == "zone" and said["groups"] == [
        {"domain": "a", "nodes": 3, "pods": 2},
        {"domain": "b", "nodes": 2, "pods": 0},
    ]  # p-far is on a node the cluster lacks: on no page, in no domain
    in_a = objects.page_of(shelf, objects.PageQuery(domain="a", search="N4", limit=500))
    assert [n[0] for n in in_a.nodes] == ["n4"] and [p[0] for p in in_a.pods] == ["p-on-4", "q-2", "q-1"]
    assert objects.page_of(shelf, objects.PageQuery(offset=9)).nodes == []
