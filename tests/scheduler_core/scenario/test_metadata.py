"""scenario/metadata.py: ObjectMeta is read first so later problems name the object; the name is
required (generateName alone is not enough) and checked as the API server checks it."""

from __future__ import annotations

from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.metadata import Metadata, read_metadata
from scheduler_core.scenario.validation import is_dns1123_subdomain
from scheduler_core.scenario.yamltree import compose


def _read(text: str, namespaced: bool = True) -> tuple[Metadata, Context, list[ScenarioError]]:
    [document], _ = compose(text, Limits())
    errors: list[ScenarioError] = []
    ctx = Context("document 1", errors)
    return read_metadata(Field(document.value, "", 1, ctx), "Pod", is_dns1123_subdomain, namespaced), ctx, errors


def test_a_namespaced_object_defaults_to_the_default_namespace_and_is_named_by_it():
    metadata, ctx, errors = _read("metadata:\n  name: web\n  labels: {app: web}\n  uid: u-1\n")
    assert metadata == Metadata("web", "default", {"app": "web"}, "u-1")
    assert ctx.object == "Pod default/web" and errors == []


def test_a_cluster_object_has_no_namespace():
    metadata, ctx, _ = _read("metadata:\n  name: n1\n  namespace: ignored\n", namespaced=False)
    assert (metadata.namespace, ctx.object) == ("", "Pod n1")


def test_missing_metadata_or_name_is_required():
    _, _, errors = _read("spec: {}\n")
    assert [(e.path, e.message) for e in errors] == [("metadata", "Required value")]
    metadata, ctx, errors = _read("metadata:\n  generateName: web-\n")
    assert [(e.path, e.message) for e in errors] == [("metadata.name", "Required value")]
    assert (metadata.name, ctx.object) == ("", "document 1")


def test_a_bad_name_or_namespace_is_reported_under_the_object():
    _, _, errors = _read("metadata:\n  name: Web_1\n  namespace: Team\n")
    assert [(e.object, e.path, e.line) for e in errors] == [
        ("Pod Team/Web_1", "metadata.name", 2),
        ("Pod Team/Web_1", "metadata.namespace", 3),
    ]
    assert errors[0].message.startswith('invalid value "Web_1": a lowercase RFC 1123 subdomain')
