"""Strict field validation (scenario/unknown_fields.py): a key no supported release's API type has is
an error named with its path and line, as the API server's strict decoding names it; a key only
other releases know is named in one notice (that release's API server drops it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.model import NoticeCode
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from scheduler_core.scenario import load_scenario
from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.loader import SourceText, load_sources
from scheduler_core.scenario.unknown_fields import ReleaseField, check_fields, releases_of, unknown_to
from scheduler_core.scenario.yamltree import compose
from scheduler_core.scenario.limits import Limits

from tests.scheduler_core.scenario.support import CONTAINER, NODE, errors_of, line_of, pod, stream

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"


def _notices(text: str, release: str) -> list[str]:
    scenario = load_scenario(text, release=ReleaseRequest(release_named(release)))
    return [n.message for n in scenario.notices if n.code is NoticeCode.UNKNOWN_FIELDS]


def test_a_misspelled_node_selector_is_named_with_its_path_and_line():
    text = stream(NODE, pod(CONTAINER + "nodeSelectr: {zone: zoneA}\n"))
    errors = errors_of(text)
    assert [(e.object, e.path, e.line, e.message) for e in errors] == [
        ("Pod default/web-1", "spec.nodeSelectr", line_of(text, "nodeSelectr"), 'unknown field "spec.nodeSelectr"')
    ]


def test_a_misspelled_container_field_is_named_with_its_list_index():
    text = stream(NODE, pod("containers:\n- image: nginx\n  name: c\n  resourcse:\n    requests: {cpu: 100m}\n"))
    errors = errors_of(text)
    assert [(e.path, e.line, e.message) for e in errors] == [
        ("spec.containers[0].resourcse", line_of(text, "resourcse"), 'unknown field "spec.containers[0].resourcse"')
    ]


def test_unknown_fields_deep_in_metadata_status_and_other_kinds_are_errors_too():
    text = stream(
        NODE.replace("status:", "spec:\n  replicas: banana\nstatus:"),
        NODE.replace("n1", "n2").replace("  name: n2", "  name: n2\n  labelz: {a: b}"),
    )
    assert sorted((e.object, e.path) for e in errors_of(text)) == [
        ("Node n1", "spec.replicas"),
        ("Node n2", "metadata.labelz"),
    ]


def test_known_fields_of_every_shape_load():
    text = stream(
        NODE.replace(
            "status:",
            "spec:\n  taints: [{key: k, effect: NoSchedule}]\nstatus:\n  images: [{names: [a], sizeBytes: 1}]",
        ),
        pod(
            """\
containers:
- name: c
  image: nginx
  resources: {requests: {cpu: 100m}}
  ports: [{containerPort: 80}]
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [v]}]}]
nodeSelector: {zone: a}
""",
            extra_meta="labels: {app: web}\nannotations: {x: y}\nmanagedFields: [{manager: kubectl, fieldsV1: {f:spec: {}}}]",
        ),
    )
    assert len(load_scenario(text).pods) == 1


def test_a_field_only_a_newer_release_knows_is_a_notice_under_an_older_one():
    text = stream(NODE, pod(CONTAINER + "schedulingGroup: {podGroupName: g}\n"))
    assert _notices(text, "v1.36") == []
    [message] = _notices(text, "v1.32")
    assert message.startswith("fields the v1.32 API server does not know, ignored: ")
    assert "Pod default/web-1 spec.schedulingGroup (known to v1.36)" in message


def test_the_walk_reports_on_the_objects_context_and_keeps_partial_fields():
    errors: list[ScenarioError] = []
    [document], _ = compose("metadata: {name: p}\nspec:\n  bogus: 1\n  hostnameOverride: h\n", Limits())
    obj = Field(document.value, "", 1, Context("Pod default/p", errors))
    partial: list[ReleaseField] = []
    check_fields(obj, "v1", "Pod", partial)
    assert [(e.object, e.path, e.line) for e in errors] == [("Pod default/p", "spec.bogus", 3)]
    assert [(p.path, releases_of(p.releases)) for p in partial] == [("spec.hostnameOverride", "v1.34, v1.35, v1.36")]
    assert unknown_to("v1.33", partial) == partial and unknown_to("v1.34", partial) == []


def test_kinds_it_does_not_read_are_not_checked():
    check_fields(Field({"bogus": 1}, "", 1, Context("x", [])), "v1", "ConfigMap", [])  # no table: nothing to do
    text = stream(NODE, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nbogus: 1\n")
    assert load_scenario(text).nodes


@pytest.mark.parametrize("name", sorted(p.name for p in DUMPS.iterdir() if p.is_file()))
def test_real_dumps_load_with_no_unknown_field(name):
    path = DUMPS / name
    scenario = load_sources([SourceText(name, path.read_bytes())])
    assert scenario.nodes


def test_pods_sharing_a_spec_each_report_their_own_fields():
    # The spec is walked once per distinct spec (check_pod_fields): the others still name their own.
    newer = CONTAINER + "schedulingGroup: {podGroupName: g}\n"
    text = stream(NODE, pod(newer, "a"), pod(newer, "b"), pod(newer + "nodeName: n1\n", "c"))
    [message] = _notices(text, "v1.35")
    assert all(f"Pod default/{name} spec.schedulingGroup" in message for name in "abc")
    typo = CONTAINER + "nodeSelectr: {zone: a}\n"
    errors = errors_of(stream(NODE, pod(typo, "a"), pod(typo, "b")))
    assert [(e.object, e.path) for e in errors] == [
        ("Pod default/a", "spec.nodeSelectr"),
        ("Pod default/b", "spec.nodeSelectr"),
    ]


def test_a_spec_checked_once_still_has_its_pods_metadata_and_status_checked():
    text = stream(NODE, pod(CONTAINER, "a"), pod(CONTAINER, "b", extra_meta="labelz: {x: y}"))
    assert [(e.object, e.path) for e in errors_of(text)] == [("Pod default/b", "metadata.labelz")]


def test_a_field_inside_one_the_release_does_not_know_goes_with_it():
    partial = [
        ReleaseField("Pod default/p", "spec.schedulingGroup", 0b10000),
        ReleaseField("Pod default/p", "spec.schedulingGroup.podGroupName", 0b10000),
        ReleaseField("Pod default/p", "spec.schedulingGroupX", 0b10000),  # a sibling, not inside it
        ReleaseField("Pod default/q", "spec.schedulingGroup.podGroupName", 0b10000),  # another object's
    ]
    assert [(f.object, f.path) for f in unknown_to("v1.35", partial)] == [
        ("Pod default/p", "spec.schedulingGroup"),
        ("Pod default/p", "spec.schedulingGroupX"),
        ("Pod default/q", "spec.schedulingGroup.podGroupName"),
    ]


_V1_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""
_V1_SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: h100}}
    taints: [{key: k, effect: NoSchedule}]
"""


@pytest.mark.parametrize("release", ["v1.32", "v1.33"])
def test_v1_dra_objects_under_a_release_without_v1_are_read_as_its_v1beta1_twins(release):
    # v1.32 and v1.33 serve no resource.k8s.io/v1: a v1 object is what v1beta1 stores, so its fields
    # are v1beta1's (a device's under basic): only those v1beta1 lacks there are named, once.
    scenario = load_scenario(stream(NODE, _V1_CLASS, _V1_SLICE), release=ReleaseRequest(release_named(release)))
    messages = [n.message for n in scenario.notices if n.code is NoticeCode.UNKNOWN_FIELDS]
    served = "resource.k8s.io/v1beta1" + (" and resource.k8s.io/v1beta2" if release == "v1.33" else "")
    assert messages[0] == (
        f"resource.k8s.io/v1 is not served by the {release} API server (it is from v1.34): 1 DeviceClass, "
        f"1 ResourceSlice read as the same objects in {served}, as a {release} cluster has them"
    )
    if release == "v1.32":  # device taints: v1beta1's BasicDevice has them from v1.33
        assert messages[1:] == [
            "fields the v1.32 API server does not know, ignored: ResourceSlice n1-gpu spec.devices[0].taints "
            "(known to v1.33, v1.34, v1.35, v1.36)"
        ]
    else:
        assert messages[1:] == []
    assert _notices(stream(NODE, _V1_CLASS, _V1_SLICE), "v1.34") == []
