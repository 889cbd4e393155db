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
