"""tools/api_fields.py: the table of API fields, generated from the Go types of every release."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "api_fields.py"
spec = importlib.util.spec_from_file_location("api_fields_tool", TOOL)
api_fields = importlib.util.module_from_spec(spec)
sys.modules["api_fields_tool"] = api_fields  # dataclasses look their module up while the class is made
spec.loader.exec_module(api_fields)

SOURCES = Path("/work/src")

CORE = """\
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Pod is a pod. A comment ending in a brace {
type Pod struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec PodSpec `json:"spec,omitempty"`
}

type PodSpec struct {
	Containers []Container `json:"containers"`
	Limits ResourceList `json:"limits,omitempty"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Hidden string `json:"-"`
	*Inlined `json:",inline"`
%NEW%
}

type Inlined struct {
	Deep *Container `json:"deep,omitempty"`
}

type Container struct {
	Name string `json:"name"`
	Data []byte `json:"data,omitempty"`
}

type ResourceList map[ResourceName]resource.Quantity

type ResourceName string
"""

META = """\
package v1

type TypeMeta struct {
	Kind string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type ObjectMeta struct {
	Name string `json:"name,omitempty"`
	CreationTimestamp Time `json:"creationTimestamp,omitempty"`
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

type ManagedFieldsEntry struct {
	FieldsV1 *FieldsV1 `json:"fieldsV1,omitempty"`
}

type FieldsV1 struct {
	Raw []byte `json:"-"`
}

type Time struct {
	time.Time `protobuf:"-"`
}
"""


def _release(root: Path, name: str, new_field: str) -> None:
    core = root / name / "staging/src/k8s.io/api/core/v1"
    meta = root / name / "staging/src/k8s.io/apimachinery/pkg/apis/meta/v1"
    core.mkdir(parents=True)
    meta.mkdir(parents=True)
    (core / "types.go").write_text(CORE.replace("%NEW%", new_field))
    (core / "types_test.go").write_text('package v1\n\ntype Pod struct {\n\tWrong string `json:"wrong"`\n}\n')
    (meta / "types.go").write_text(META)


@pytest.fixture
def sources(tmp_path, monkeypatch):
    for release in api_fields.RELEASES:
        _release(tmp_path, release, '\tNewer bool `json:"newer,omitempty"`' if release == "v1.36" else "")
    monkeypatch.setattr(api_fields, "KINDS", {("v1", "Pod"): ("core/v1", "Pod")})
    return tmp_path


def test_it_follows_json_tags_inline_structs_pointers_lists_and_maps(sources):
    roots, table = api_fields.build(sources)
    everywhere = (1 << len(api_fields.RELEASES)) - 1
    assert roots == {("v1", "Pod"): ("S:core/v1.Pod", everywhere)}
    pod = table["S:core/v1.Pod"]
    assert pod == {
        "kind": ("", everywhere),
        "apiVersion": ("", everywhere),
        "metadata": ("S:meta/v1.ObjectMeta", everywhere),
        "spec": ("S:core/v1.PodSpec", everywhere),
    }
    spec = table["S:core/v1.PodSpec"]
    assert spec["containers"] == ("L:S:core/v1.Container", everywhere)
    assert spec["limits"] == ("", everywhere)  # a map of quantities: free keys, scalar values
    assert spec["nodeSelector"] == ("", everywhere)
    assert spec["deep"] == ("S:core/v1.Container", everywhere)  # from the inlined struct
    assert "Hidden" not in spec and "-" not in spec
    assert table["S:core/v1.Container"] == {"name": ("", everywhere), "data": ("", everywhere)}


def test_a_field_keeps_the_releases_that_know_it(sources):
    _, table = api_fields.build(sources)
    assert table["S:core/v1.PodSpec"]["newer"] == ("", 1 << api_fields.RELEASES.index("v1.36"))


def test_meta_types_with_a_json_form_of_their_own_are_leaves(sources):
    _, table = api_fields.build(sources)
    meta = table["S:meta/v1.ObjectMeta"]
    assert meta["creationTimestamp"][0] == ""
    assert table["S:meta/v1.ManagedFieldsEntry"]["fieldsV1"][0] == ""  # free JSON
    assert "S:meta/v1.Time" not in table and "S:meta/v1.FieldsV1" not in table


def test_it_writes_a_module_that_says_how_it_was_made(sources, tmp_path):
    target = tmp_path / "out.py"
    assert api_fields.main(["api_fields.py", str(sources), str(target)]) == 0
    text = target.read_text()
    assert "GENERATED" in text and "tools/api_fields.py" in text
    namespace: dict[str, object] = {}
    exec(compile(text, str(target), "exec"), namespace)
    assert namespace["ROOTS"] == {("v1", "Pod"): ("S:core/v1.Pod", namespace["ALL"])}


@pytest.mark.skipif(not SOURCES.is_dir(), reason="no Kubernetes sources at /work/src")
def test_the_committed_table_is_what_the_generator_writes():
    roots, table = api_fields.build(SOURCES)
    committed = (ROOT / "scheduler_core/scenario/api_fields.py").read_text()
    assert committed == api_fields.render(roots, table)
