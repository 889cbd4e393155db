"""resource.k8s.io/v1 objects in a scenario: read as the API server stores them (defaulting),
refused where it would refuse them (pkg/apis/resource/validation), fields of features that are
off in the release replayed dropped with a notice, kept where they are on (device taints), refused
where SchedLab does not replay the feature the release has on."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from scheduler_core.model import (
    CounterConsumption,
    CounterSet,
    DeviceTaint,
    DeviceToleration,
    NoticeCode,
    PodResourceClaim,
    Version,
)
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import Release
from scheduler_core.scenario import ScenarioInvalid, load_scenario
from tests.scheduler_core.scenario.support import CONTAINER, NODE, errors_of, line_of, pod, stream

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 3, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: h100}
      index: {int: 0}
      ecc: {bool: true}
      gpu.example.com/driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 80Gi}
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared
  namespace: default
  finalizers: [resource.kubernetes.io/delete-protection]
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
    - name: all
      exactly: {deviceClassName: gpu, allocationMode: All}
    constraints:
    - {requests: [gpu, all], matchAttribute: gpu.example.com/numa}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [n1]}]
  reservedFor:
  - {resource: pods, name: web-1, uid: u-web-1}
"""
TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default, labels: {team: ml}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: gpu, count: 2}
        - {name: small, deviceClassName: gpu}
"""


def test_the_four_kinds_load_as_typed_objects_with_the_api_defaults():
    scenario = load_scenario(stream(NODE, CLASS, SLICE, CLAIM, TEMPLATE))
    dra = scenario.dra
    assert dra.classes[0].selectors == ('device.driver == "gpu.example.com"',)
    [device] = dra.slices[0].devices
    assert (dra.slices[0].pool, dra.slices[0].generation, dra.slices[0].node_name) == ("n1", 3, "n1")
    assert device.attributes == {
        "model": "h100",
        "index": 0,
        "ecc": True,
        "gpu.example.com/driverVersion": Version("1.2.3"),
    }
    assert device.capacity == {"memory": Fraction(80 << 30)}
    claim = dra.claims[0]
    gpu, all_ = claim.spec.requests
    assert (gpu.exactly.allocation_mode, gpu.exactly.count) == ("ExactCount", 1)  # the API's defaults
    assert all_.exactly.allocation_mode == "All"
    assert claim.spec.constraints[0].match_attribute == "gpu.example.com/numa"
    assert [r.device for r in claim.allocation.results] == ["gpu-0"]
    assert [ref.uid for ref in claim.reserved_for] == ["u-web-1"]
    assert claim.uid == "uid-resourceclaim-default-shared"  # the API server always gives one
    [template] = dra.templates
    assert [s.name for s in template.spec.requests[0].first_available] == ["big", "small"]
    assert template.labels == {"team": "ml"}


def _as_v1beta1(document: str) -> str:
    """The same object as v1.32 and v1.33 serve it: a request's fields beside its name, a device's
    under ``basic``."""
    text = document.replace("apiVersion: resource.k8s.io/v1\n", "apiVersion: resource.k8s.io/v1beta1\n")
    text = text.replace(
        "exactly: {deviceClassName: gpu, allocationMode: All}", "deviceClassName: gpu\n      allocationMode: All"
    )
    text = text.replace("exactly: {deviceClassName: gpu}", "deviceClassName: gpu")
    return text.replace("  - name: gpu-0\n    attributes:", "  - name: gpu-0\n    basic:\n     attributes:").replace(
        "    capacity:\n      memory: {value: 80Gi}", "     capacity:\n      memory: {value: 80Gi}"
    )


@pytest.mark.parametrize("release", ["v1.32", "v1.33", "v1.35"])
def test_v1beta1_and_v1beta2_objects_load_as_their_v1_twins(release):
    # What kubectl dumps from a v1.32 or v1.33 cluster (v1beta1; v1beta2 from v1.33, shaped as v1):
    # the same objects as v1's, the fields checked by their own version's schema.
    from scheduler_core.release import release_named

    request = ReleaseRequest(release_named(release), {"DynamicResourceAllocation": True} if release < "v1.34" else None)
    documents = (
        (CLASS, SLICE, CLAIM, TEMPLATE) if release >= "v1.34" else (CLASS, SLICE, CLAIM)
    )  # firstAvailable: DRAPrioritizedList, on from v1.34
    v1 = load_scenario(stream(NODE, *documents), release=request).dra
    beta1_documents = [_as_v1beta1(d) for d in documents]
    assert "basic:" in beta1_documents[1] and "exactly" not in beta1_documents[2]
    beta1 = load_scenario(stream(NODE, *beta1_documents), release=request)
    beta2 = load_scenario(
        stream(NODE, *(d.replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta2\n") for d in (CLASS, SLICE, CLAIM))),
        release=request,
    ).dra
    assert not [n for n in beta1.scheduling_notices() if "ignored" in n.message]
    for loaded in (beta1.dra, beta2):
        assert loaded.classes == v1.classes
        assert [replace(s, line=None) for s in loaded.slices] == [replace(s, line=None) for s in v1.slices]
        assert [(c.spec, c.allocation, c.reserved_for) for c in loaded.claims] == [
            (c.spec, c.allocation, c.reserved_for) for c in v1.claims
        ]
    assert [t.spec for t in beta1.dra.templates] == [t.spec for t in v1.templates]


def test_a_v1beta1_device_without_basic_and_a_v1_field_in_v1beta1_are_named():
    slice_ = (
        _as_v1beta1(SLICE)
        .replace("    basic:\n     attributes:", "    attributes:")
        .replace("     capacity:", "    capacity:")
    )
    claim = _as_v1beta1(CLAIM).replace(
        "deviceClassName: gpu\n      allocationMode: All", "exactly: {deviceClassName: gpu}"
    )
    errors = [str(error) for error in errors_of(stream(NODE, _as_v1beta1(CLASS), slice_, claim))]
    assert any(
        "ResourceSlice n1-gpu" in e and "spec.devices[0].basic" in e and "Required value" in e for e in errors
    ), errors
    assert any("spec.devices.requests[1].exactly" in e for e in errors), errors


def test_a_pods_claims_and_their_statuses_are_read():
    spec = (
        CONTAINER
        + """
        resourceClaims:
        - {name: gpus, resourceClaimTemplateName: one-gpu}
        - {name: shared, resourceClaimName: shared}
        """
    )
    text = stream(
        NODE, pod(spec) + "status:\n  resourceClaimStatuses:\n  - {name: gpus, resourceClaimName: web-1-gpus-x}\n"
    )
    [web] = load_scenario(text).pods
    assert web.claim_sources == (
        PodResourceClaim("gpus", template_name="one-gpu"),
        PodResourceClaim("shared", claim_name="shared"),
    )
    assert web.claim_statuses == (("gpus", "web-1-gpus-x"),)
    assert web.uid == "uid-pod-default-web-1"  # reservations name pods by uid


@pytest.mark.parametrize(
    "document, fragment, path, message",
    [
        (
            CLASS.replace('device.driver == "gpu.example.com"', "device.driver =="),
            "expression",
            "spec.selectors[0].cel.expression",
            "compilation failed",
        ),
        (SLICE.replace("  nodeName: n1\n", ""), "spec:", "spec", "exactly one of `nodeName`"),
        (
            SLICE.replace("{int: 0}", "{int: 0, string: a}"),
            "index:",
            "spec.devices[0].attributes.index",
            "exactly one value",
        ),
        (
            SLICE.replace("{version: 1.2.3}", "{version: '01.2'}"),
            "driverVersion",
            "spec.devices[0].attributes.gpu.example.com/driverVersion.version",
            "semver",
        ),
        (
            CLAIM.replace("exactly: {deviceClassName: gpu}", "exactly: {deviceClassName: gpu, allocationMode: Some}"),
            "allocationMode: Some",
            "spec.devices.requests[0].exactly.allocationMode",
            "unsupported value",
        ),
        (
            CLAIM.replace("exactly: {deviceClassName: gpu}", "exactly: {deviceClassName: gpu, count: 0}"),
            "count: 0",
            "spec.devices.requests[0].exactly.count",
            "must be greater than zero",
        ),
        (
            CLAIM.replace("requests: [gpu, all]", "requests: [gpu, nope]"),
            "nope",
            "spec.devices.constraints[0].requests[1]",
            "must be the name of a request",
        ),
        (
            TEMPLATE.replace(
                "        firstAvailable:\n        - {name: big, deviceClassName: gpu, count: 2}\n"
                "        - {name: small, deviceClassName: gpu}\n",
                "",
            ),
            "- name: gpu",
            "spec.spec.devices.requests[0]",
            "exactly one of `exactly` or `firstAvailable`",
        ),
    ],
    ids=[
        "a selector that does not compile",
        "a slice without node selection",
        "an attribute with two values",
        "a version that is not semver",
        "an unknown allocation mode",
        "a count of 0",
        "a constraint naming no request",
        "a request without exactly or firstAvailable",
    ],
)
def test_what_the_api_server_refuses_is_a_located_error(document, fragment, path, message):
    text = stream(NODE, document)
    [error] = errors_of(text)
    assert error.path == path and message in error.message
    assert error.line == line_of(text, fragment)


V135, V136, V134 = Release(35, 4), Release(36, 3), Release(34, 9)
TAINTED = SLICE.replace("    capacity:\n", "    taints: [{key: broken, effect: NoSchedule}]\n    capacity:\n")
TOLERATING = CLAIM.replace(
    "      exactly: {deviceClassName: gpu}\n",
    "      exactly:\n        deviceClassName: gpu\n        tolerations: [{key: broken, operator: Exists}]\n",
)


def _as(release: Release, *documents: str, gates: dict[str, bool] | None = None):  # type: ignore[no-untyped-def]
    return load_scenario(stream(*documents), release=ReleaseRequest(release, gates))


def _refused(release: Release, *documents: str, gates: dict[str, bool] | None = None) -> list[str]:
    with pytest.raises(ScenarioInvalid) as raised:
        _as(release, *documents, gates=gates)
    return [str(error) for error in raised.value.errors]


def _dropped(scenario) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    notices = [n for n in scenario.notices if n.code is NoticeCode.DRA_FEATURE_OFF]
    return notices[0].objects if notices else ()


def test_fields_of_features_off_in_the_release_are_dropped_with_a_notice_naming_it():
    """DRADeviceTaints and DRAExtendedResource are off in v1.35: the API server drops their fields."""
    extended = CLASS + "  extendedResourceName: example.com/gpu\n"
    scenario = _as(V135, NODE, TAINTED, extended, TOLERATING)
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.DRA_FEATURE_OFF]
    assert notice.objects == (
        "ResourceSlice n1-gpu: spec.devices[0].taints (DRADeviceTaints)",
        "DeviceClass gpu: spec.extendedResourceName (DRAExtendedResource)",
        "ResourceClaim default/shared: spec.devices.requests[0].exactly.tolerations (DRADeviceTaints)",
    )
    assert "off in v1.35 dropped" in notice.message
    assert scenario.dra.slices[0].devices[0].taints == ()  # as stored: the API server dropped them
    assert scenario.dra.claims[0].spec.requests[0].exactly.tolerations == ()


def test_device_taints_and_tolerations_are_kept_where_the_gate_is_on():
    scenario = _as(V136, NODE, TAINTED, TOLERATING)
    assert _dropped(scenario) == ()
    assert scenario.dra.slices[0].devices[0].taints == (DeviceTaint("broken", "", "NoSchedule"),)
    # the API server defaults an empty operator to Equal; here it is written
    assert scenario.dra.claims[0].spec.requests[0].exactly.tolerations == (DeviceToleration("broken", "Exists"),)
    # and in an older release whose user turns the gate on
    on = _as(V135, NODE, TAINTED, gates={"DRADeviceTaints": True})
    assert on.dra.slices[0].devices[0].taints and _dropped(on) == ()


def test_a_gate_turned_off_drops_in_the_newer_release_and_the_notice_says_so():
    scenario = _as(V136, NODE, TAINTED, gates={"DRADeviceTaints": False})
    assert _dropped(scenario) == ("ResourceSlice n1-gpu: spec.devices[0].taints (DRADeviceTaints)",)
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.DRA_FEATURE_OFF]
    assert "off in v1.36 with --feature-gates DRADeviceTaints=false dropped" in notice.message
    assert scenario.dra.slices[0].devices[0].taints == ()


def test_a_tolerations_operator_defaults_to_equal():
    claim = TOLERATING.replace("{key: broken, operator: Exists}", "{key: broken, value: 'yes', effect: NoExecute}")
    scenario = _as(V136, NODE, claim)
    assert scenario.dra.claims[0].spec.requests[0].exactly.tolerations == (
        DeviceToleration("broken", "Equal", "yes", "NoExecute"),
    )


def test_kept_taints_are_validated_as_the_release_validates_them():
    none_effect = SLICE.replace("    capacity:\n", "    taints: [{key: broken, effect: None}]\n    capacity:\n")
    assert _as(V136, NODE, none_effect).dra.slices[0].devices[0].taints[0].effect == "None"  # valid from v1.35
    [error] = _refused(V134, NODE, none_effect, gates={"DRADeviceTaints": True})
    assert (
        'spec.devices[0].taints[0].effect: unsupported value "None": supported values: "NoExecute", "NoSchedule"'
        in (error)
    )
    assert _dropped(_as(V134, NODE, none_effect)) != ()  # gate off: dropped before validation, no error
    bad = SLICE.replace("    capacity:\n", "    taints: [{value: 'a b'}]\n    capacity:\n")
    errors = _refused(V136, NODE, bad)
    assert any("taints[0].key: Required value" in e for e in errors)
    assert any("taints[0].effect: Required value" in e for e in errors)
    assert any('taints[0].value: invalid value "a b"' in e for e in errors)
    exists_value = TOLERATING.replace("operator: Exists}", "operator: Exists, value: x}")
    [error] = _refused(V136, NODE, exists_value)
    assert 'tolerations[0].value: Invalid value: "x": must be empty for operator `Exists`' in error


def test_a_slice_with_a_tainted_device_holds_at_most_64_devices_from_v1_35():
    devices = "".join(f"  - name: d{i}\n" for i in range(65))
    tainted = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: big}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n" + devices + "    taints: [{key: broken, effect: NoSchedule}]\n"
    )
    [error] = _refused(V136, NODE, tainted)
    assert "spec.devices: Too many: 65: must have at most 64 items" in error
    assert len(_as(V134, NODE, tainted, gates={"DRADeviceTaints": True}).dra.slices[0].devices) == 65


CONSUMABLE = TOLERATING.replace(
    "        tolerations: [{key: broken, operator: Exists}]\n", "        capacity: {requests: {memory: 1Gi}}\n"
)


def test_a_field_of_a_feature_on_in_the_release_but_not_replayed_is_refused_with_the_way_out():
    """DRADeviceBindingConditions is alpha in v1.35: turned on there, its fields are refused."""
    bound = SLICE.replace("    capacity:\n", "    bindsToNode: true\n    capacity:\n")
    [error] = _refused(V135, NODE, bound, gates={"DRADeviceBindingConditions": True})
    assert error == (
        f"line {line_of(stream(NODE, bound), 'bindsToNode')}: ResourceSlice n1-gpu: "
        "spec.devices[0].bindsToNode: SchedLab does not replay DRADeviceBindingConditions yet: the gate is "
        "on in v1.35 with --feature-gates DRADeviceBindingConditions=true, where the API server keeps this field "
        "and the scheduler uses it; leave DRADeviceBindingConditions=true out of --feature-gates, or replay as "
        "--release v1.36"
    )
    # with the gate off the field is dropped as that release's API server drops it
    scenario = _as(V136, NODE, CLASS, CONSUMABLE, gates={"DRAConsumableCapacity": False})
    assert _dropped(scenario) == (
        "ResourceClaim default/shared: spec.devices.requests[0].exactly.capacity (DRAConsumableCapacity)",
    )
    assert scenario.dra.claims[0].spec.requests[0].exactly.capacity is None


SHARED_SLICE = SLICE.replace(
    "    capacity:\n      memory: {value: 80Gi}\n",
    "    allowMultipleAllocations: true\n    capacity:\n      memory:\n        value: 80Gi\n"
    "        requestPolicy:\n          default: 1Gi\n          validRange: {min: 1Gi, step: 1Gi}\n",
)
DISTINCT = CONSUMABLE.replace(
    "    - {requests: [gpu, all], matchAttribute: gpu.example.com/numa}\n",
    "    - {requests: [gpu, all], distinctAttribute: gpu.example.com/model}\n",
)


def test_consumable_capacity_is_kept_and_replayed_in_v1_36():
    scenario = _as(V136, NODE, CLASS, SHARED_SLICE, DISTINCT)
    assert _dropped(scenario) == ()
    device = scenario.dra.slices[0].devices[0]
    assert device.allow_multiple_allocations is True
    policy = device.request_policies["memory"]
    assert (policy.default.shown, policy.valid_range.min.shown, policy.valid_range.step) == ("1Gi", "1Gi", 1 << 30)
    assert device.capacity_shown == {"memory": "80Gi"}
    spec = scenario.dra.claims[0].spec
    assert spec.requests[0].exactly.capacity["memory"].value == 1 << 30
    assert spec.constraints[0].distinct_attribute == "gpu.example.com/model"


def test_consumable_capacity_fields_are_dropped_in_v1_35_and_refused_there_when_turned_on():
    scenario = _as(V135, NODE, CLASS, SHARED_SLICE, CONSUMABLE)
    assert len(_dropped(scenario)) == 3
    device = scenario.dra.slices[0].devices[0]
    assert (device.allow_multiple_allocations, device.request_policies) == (None, {})
    # the constraint without its distinctAttribute has no attribute left, as the API server says
    [error] = _refused(V135, NODE, CLASS, SHARED_SLICE, DISTINCT)
    assert error.endswith("spec.devices.constraints[0].matchAttribute: Required value")
    errors = _refused(V135, NODE, CLASS, SHARED_SLICE, gates={"DRAConsumableCapacity": True})
    assert all("SchedLab replays it from v1.36" in e for e in errors) and len(errors) == 2


def test_an_allocations_share_is_read_as_the_api_server_writes_it_back():
    allocated = CONSUMABLE.replace(
        "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}\n",
        "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0,"
        " shareID: 6f1c2a7e-3b8d-4e59-9a51-2c0d8e4b7f10, consumedCapacity: {memory: 1024Mi}}\n",
    )
    scenario = _as(V136, NODE, CLASS, SHARED_SLICE, allocated)
    [result] = scenario.dra.claims[0].allocation.results
    assert (result.share_id, result.consumed_capacity) == ("6f1c2a7e-3b8d-4e59-9a51-2c0d8e4b7f10", {"memory": "1Gi"})
    upper = allocated.replace("6f1c2a7e", "6F1C2A7E")
    [error] = _refused(V136, NODE, CLASS, SHARED_SLICE, upper)
    assert "shareID: Invalid value" in error and "RFC 4122 normalized form" in error


@pytest.mark.parametrize(
    "policy, message",
    [
        ("{validValues: [2Gi, 1Gi]}", "default: Required value: required when validValues is defined"),
        (
            "{default: 3Gi, validValues: [2Gi, 1Gi]}",
            'validValues[1]: Invalid value: "1Gi": values must be sorted in ascending order',
        ),
        (
            "{default: 3Gi, validValues: [1Gi, 2Gi]}",
            'validValues: Invalid value: "3Gi": default value is not valid according to the requestPolicy',
        ),
        (
            "{default: 1Gi, validValues: [1Gi, 100Gi]}",
            'validValues[1]: Invalid value: "100Gi": option is larger than capacity value: 80Gi',
        ),
        (
            "{default: 1Gi, validValues: [1Gi], validRange: {min: 1Gi}}",
            "requestPolicy: Forbidden: exactly one policy can be specified",
        ),
        (
            "{default: 1500Mi, validRange: {min: 1Gi, step: 1Gi}}",
            'validRange.step: Invalid value: "1500Mi": value is not a multiple of a given step (1Gi) from (1Gi)',
        ),
        (
            "{default: 1Gi, validRange: {min: 2Gi, max: 1Gi}}",
            'validRange.max: Invalid value: "2Gi": min is larger than max: 1Gi',
        ),
        (
            "{default: 1Gi, validRange: {max: 1Gi}}",
            "validRange.min: Required value: required when validRange is defined",
        ),
    ],
)
def test_a_request_policy_the_api_server_refuses_is_named(policy, message):
    document = SLICE.replace(
        "    capacity:\n      memory: {value: 80Gi}\n",
        f"    allowMultipleAllocations: true\n    capacity:\n      memory:\n        value: 80Gi\n        requestPolicy: {policy}\n",
    )
    errors = _refused(V136, NODE, document)
    assert any(message in e for e in errors), errors
    assert _as(V135, NODE, document).dra.slices[0].devices[0].request_policies == {}  # dropped: not checked


def test_a_request_policy_on_a_device_that_is_not_shared_is_forbidden():
    document = SHARED_SLICE.replace("    allowMultipleAllocations: true\n", "")
    errors = _refused(V136, NODE, document)
    assert any("requestPolicy: Forbidden: allowMultipleAllocations must be true" in e for e in errors), errors


def test_binding_fields_are_kept_in_v1_36_and_dropped_in_v1_35():
    document = SLICE.replace("    capacity:\n", "    bindsToNode: true\n    capacity:\n")
    kept = _as(V136, NODE, document)
    assert kept.dra.slices[0].devices[0].binds_to_node and not _dropped(kept)
    older = _as(V135, NODE, document)
    assert not older.dra.slices[0].devices[0].binds_to_node
    assert _dropped(older) == ("ResourceSlice n1-gpu: spec.devices[0].bindsToNode (DRADeviceBindingConditions)",)


COUNTERS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-counters}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 40Gi}
"""
PARTS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-parts}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  devices:
  - name: part-0
    nodeName: n1
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 20Gi}
  - name: part-1
    allNodes: true
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 20Gi}
"""


def test_partitionable_devices_are_read_and_kept_where_the_gate_is_on():
    """v1.36 (on by default), or v1.35 with the gate: counter sets, consumption, per-device node selection."""
    for scenario in (
        _as(V136, NODE, COUNTERS, PARTS),
        _as(V135, NODE, COUNTERS, PARTS, gates={"DRAPartitionableDevices": True}),
    ):
        counters, parts = scenario.dra.slices
        assert counters.shared_counters == (CounterSet("gpu-0-counters", {"memory": Fraction(40 << 30)}),)
        assert parts.per_device_node_selection and [d.node_name for d in parts.devices] == ["n1", ""]
        assert parts.devices[1].all_nodes
        assert parts.devices[0].consumes_counters == (
            CounterConsumption("gpu-0-counters", {"memory": Fraction(20 << 30)}),
        )
        assert not _dropped(scenario)


def test_partitionable_fields_are_dropped_where_the_gate_is_off():
    on_n1 = PARTS.replace("  perDeviceNodeSelection: true\n", "  perDeviceNodeSelection: true\n  nodeName: n1\n")
    scenario = _as(V135, NODE, COUNTERS, on_n1)
    assert "ResourceSlice n1-counters: spec.sharedCounters (DRAPartitionableDevices)" in _dropped(scenario)
    assert "ResourceSlice n1-parts: spec.devices[0].consumesCounters (DRAPartitionableDevices)" in _dropped(scenario)
    counters, parts = scenario.dra.slices
    assert counters.shared_counters == () and not counters.partitionable  # as stored: a slice like any other
    assert parts.devices[0].consumes_counters == () and not parts.per_device_node_selection


def test_partitionable_devices_before_v1_35_are_refused_naming_the_release_that_replays_them():
    errors = _refused(V134, NODE, COUNTERS, PARTS, gates={"DRAPartitionableDevices": True})
    assert any(
        "spec.sharedCounters: SchedLab does not replay DRAPartitionableDevices yet: the gate is on in v1.34 with "
        "--feature-gates DRAPartitionableDevices=true"
        in e
        and "SchedLab replays it from v1.35" in e
        for e in errors
    ), errors


@pytest.mark.parametrize(
    "document, message",
    [
        (
            COUNTERS + "  devices:\n  - name: d0\n",
            'ResourceSlice n1-counters: spec: invalid value "": only one of `sharedCounters` or `devices` is allowed',
        ),
        (
            PARTS.replace("    nodeName: n1\n", ""),
            "spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
            "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec",
        ),
        (
            PARTS.replace("    allNodes: true\n", "    allNodes: true\n    nodeName: n1\n"),
            'spec.devices[1]: invalid value "{`nodeName`, `allNodes`}": exactly one of',
        ),
        (
            SLICE.replace("  - name: gpu-0\n", "  - name: gpu-0\n    nodeName: n1\n"),
            "spec.devices[0]: invalid value null: `nodeName`, `nodeSelector` and `allNodes` can only be set if",
        ),
        (
            COUNTERS.replace("      memory: {value: 40Gi}\n", "      Memory: {value: 40Gi}\n"),
            'spec.sharedCounters[0].counters: invalid value "Memory"',
        ),
        (
            COUNTERS.replace("    counters:\n      memory: {value: 40Gi}\n", "    counters: {}\n"),
            "spec.sharedCounters[0].counters: Required value",
        ),
        (
            PARTS.replace(
                "    - counterSet: gpu-0-counters\n      counters:\n        memory: {value: 20Gi}\n  - name: part-1",
                "    - {counterSet: a, counters: {m: {value: 1}}}\n    - {counterSet: b, counters: {m: {value: 1}}}\n"
                "    - {counterSet: c, counters: {m: {value: 1}}}\n  - name: part-1",
            ),
            "spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items",
        ),
    ],
)
def test_partitionable_fields_the_api_server_refuses_are_errors_where_it_keeps_them(document, message):
    errors = _refused(V136, NODE, document)
    assert any(message in e for e in errors), errors
    if "perDeviceNodeSelection" not in document:
        assert _as(V135, NODE, document).dra.slices  # the gate off: the fields are dropped before validation


def test_a_slice_naming_its_nodes_per_device_is_refused_where_the_gate_is_off():
    """dropDisabledFields then validateResourceSliceSpec: without perDeviceNodeSelection the slice
    names no node; with it and a node name, it names two where the gate keeps it."""
    [error] = _refused(V135, NODE, PARTS)
    assert error.endswith(
        "ResourceSlice n1-parts: spec: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required"
    )
    both = PARTS.replace("  perDeviceNodeSelection: true\n", "  perDeviceNodeSelection: true\n  nodeName: n1\n")
    assert any("is required, but multiple fields are set" in e for e in _refused(V136, NODE, both))
    assert _as(V135, NODE, both).dra.slices[0].node_name == "n1"


def test_a_gate_turned_on_in_an_older_release_is_refused_naming_the_flag():
    [error] = _refused(V135, NODE, CLASS, CONSUMABLE, gates={"DRAConsumableCapacity": True})
    assert "the gate is on in v1.35 with --feature-gates DRAConsumableCapacity=true" in error
    assert error.endswith("leave DRAConsumableCapacity=true out of --feature-gates, or replay as --release v1.36")


TAINT_RULE = """\
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: broken-gpus}
spec:
  taint: {key: broken, effect: NoSchedule}
"""


def test_device_taint_rules_are_ignored_while_their_gate_is_off_and_taint_their_devices_when_on():
    scenario = _as(V136, NODE, SLICE, TAINT_RULE)  # DRADeviceTaintRules: beta, off by default in v1.36
    assert any("1 DeviceTaintRule" in n.message for n in scenario.notices if n.code is NoticeCode.IGNORED_KINDS)
    assert scenario.dra.slices[0].devices[0].taints == ()
    on = _as(V136, NODE, SLICE, TAINT_RULE, gates={"DRADeviceTaintRules": True})
    assert not any(n.code is NoticeCode.IGNORED_KINDS for n in on.notices)
    assert on.dra.slices[0].devices[0].taints == (DeviceTaint("broken", "", "NoSchedule"),)
    # appended to the device's own taints; a selector that names another pool leaves it alone
    both = _as(V136, NODE, TAINTED, TAINT_RULE, gates={"DRADeviceTaintRules": True})
    assert [t.key for t in both.dra.slices[0].devices[0].taints] == ["broken", "broken"]
    other = TAINT_RULE.replace("spec:\n", "spec:\n  deviceSelector: {driver: gpu.example.com, pool: other}\n")
    assert _as(V136, NODE, SLICE, other, gates={"DRADeviceTaintRules": True}).dra.slices[0].devices[0].taints == ()
    same = TAINT_RULE.replace("spec:\n", "spec:\n  deviceSelector: {pool: n1, device: gpu-0}\n")
    assert _as(V136, NODE, SLICE, same, gates={"DRADeviceTaintRules": True}).dra.slices[0].devices[0].taints


def test_an_invalid_device_taint_rule_is_refused_only_where_the_scheduler_reads_it():
    invalid = TAINT_RULE.replace("{key: broken, effect: NoSchedule}", "{key: broken}").replace(
        "spec:\n", "spec:\n  deviceSelector: {device: Not_A_Label}\n"
    )
    assert _as(V136, NODE, SLICE, invalid).dra.slices[0].devices[0].taints == ()
    errors = _refused(V136, NODE, SLICE, invalid, gates={"DRADeviceTaintRules": True})
    assert any("DeviceTaintRule broken-gpus: spec.taint.effect: Required value" in e for e in errors), errors
    assert any(
        'DeviceTaintRule broken-gpus: spec.deviceSelector.device: invalid value "Not_A_Label"' in e for e in errors
    )


def test_a_request_for_a_device_class_resource_is_replayed_in_v1_36_and_refused_where_the_alpha_is_turned_on():
    spec = "\n" + CONTAINER + "  resources: {requests: {deviceclass.resource.kubernetes.io/gpu: '1'}}\n"
    assert _as(V136, NODE, CLASS, pod(spec)).pods
    [error] = _refused(V135, NODE, CLASS, pod(spec), gates={"DRAExtendedResource": True})
    assert "spec.containers[0].resources.requests.deviceclass.resource.kubernetes.io/gpu" in error
    assert "SchedLab does not replay DRAExtendedResource yet" in error
    assert _as(V135, NODE, CLASS, pod(spec)).pods  # off in v1.35: an ordinary extended resource
    assert _as(V136, NODE, pod(spec)).pods  # no class `gpu`: nothing stands for it, Fit checks it as before


def test_a_class_extended_resource_name_is_kept_and_checked_in_v1_36_and_dropped_in_v1_35():
    extended = CLASS + "  extendedResourceName: example.com/gpu\n"
    assert _as(V136, NODE, extended).dra.classes[0].extended_resource_name == "example.com/gpu"
    assert _as(V135, NODE, extended).dra.classes[0].extended_resource_name is None
    invalid = CLASS + "  extendedResourceName: cpu\n"
    [error] = _refused(V136, NODE, invalid)
    assert error == (
        f"line {line_of(stream(NODE, invalid), 'extendedResourceName')}: DeviceClass gpu: "
        'spec.extendedResourceName: Invalid value: "cpu": must be a valid extended resource name'
    )
    assert _as(V135, NODE, invalid).dra.classes[0].extended_resource_name is None  # dropped: not checked


def test_scenarios_without_gated_fields_load_alike_in_every_release():
    for release in (V134, V135, V136):
        scenario = _as(release, NODE, CLASS, SLICE, CLAIM, TEMPLATE)
        assert _dropped(scenario) == () and len(scenario.dra.slices) == 1


@pytest.mark.parametrize(
    "document, fragment, path, message",
    [
        (
            CLAIM.replace("requests: [gpu, all]", "requests: [gpu, all/one]"),
            "all/one",
            "spec.devices.constraints[0].requests[1]",
            "must be the name of a request",
        ),
        (
            CLAIM.replace("requests: [gpu, all]", "requests: [gpu, gpu]"),
            "requests: [gpu, gpu]",
            "spec.devices.constraints[0].requests[1]",
            'Duplicate value: "gpu"',
        ),
        (
            CLAIM.replace(", matchAttribute: gpu.example.com/numa}", "}"),
            "- {requests: [gpu, all]",
            "spec.devices.constraints[0].matchAttribute",
            "Required value",
        ),
        (
            CLAIM.replace("matchAttribute: gpu.example.com/numa", "matchAttribute: numa"),
            "matchAttribute",
            "spec.devices.constraints[0].matchAttribute",
            "a fully qualified name must be a domain",
        ),
        (
            CLAIM.replace("- name: all\n", "- name: All_GPUs\n").replace("gpu, all]", "gpu]"),
            "All_GPUs",
            "spec.devices.requests[1].name",
            "RFC 1123 label",
        ),
        (
            CLAIM.replace("- name: all\n", "- name: gpu\n").replace("gpu, all]", "gpu]"),
            ("- name: gpu", 2),
            "spec.devices.requests[1].name",
            'Duplicate value: "gpu"',
        ),
        (
            CLAIM.replace("{request: gpu, driver", "{request: gpu/big, driver"),
            "request: gpu/big",
            "status.allocation.devices.results[0].request",
            "must be the name of a request",
        ),
        (
            CLAIM.replace(
                "  - {resource: pods, name: web-1, uid: u-web-1}\n",
                "  - {resource: pods, name: web-1, uid: u-web-1}\n  - {resource: pods, name: web-2, uid: u-web-1}\n",
            ),
            "name: web-2",
            "status.reservedFor[1]",
            'Duplicate value: "u-web-1"',
        ),
        (
            TEMPLATE.replace("{name: small, deviceClassName: gpu}", "{name: big, deviceClassName: gpu}"),
            ("{name: big", 2),
            "spec.spec.devices.requests[0].firstAvailable[1].name",
            'Duplicate value: "big"',
        ),
        (
            TEMPLATE.replace("{name: small, deviceClassName: gpu}", "{name: Small, deviceClassName: gpu}"),
            "name: Small",
            "spec.spec.devices.requests[0].firstAvailable[1].name",
            "RFC 1123 label",
        ),
        (
            SLICE.replace("      model: {string: h100}\n", "      gpu-model: {string: h100}\n"),
            "gpu-model",
            "spec.devices[0].attributes.gpu-model",
            "C identifier",
        ),
        (
            SLICE.replace("      model: {string: h100}\n", "      a/b/model: {string: h100}\n"),
            "a/b/model",
            "spec.devices[0].attributes.a/b/model",
            "must not contain more than one slash",
        ),
        (
            SLICE.replace("{string: h100}", "{string: " + "h" * 65 + "}"),
            "model:",
            "spec.devices[0].attributes.model.string",
            "Too long: may not be more than 64 bytes",
        ),
        (
            SLICE.replace("resourceSliceCount: 1", "resourceSliceCount: 0"),
            "pool:",
            "spec.pool.resourceSliceCount",
            "must be greater than zero",
        ),
        (
            SLICE.replace("name: n1, generation", "name: N1, generation"),
            "pool:",
            "spec.pool.name",
            "RFC 1123 subdomain",
        ),
        (
            SLICE.replace("  nodeName: n1\n", "  nodeName: n1\n  allNodes: false\n"),
            "allNodes",
            "spec.allNodes",
            "must be either unset or set to true",
        ),
        (
            SLICE.replace("  nodeName: n1\n", "  nodeName: n1\n  allNodes: true\n"),
            "spec:",
            "spec",
            "but multiple fields are set",
        ),
        (SLICE + "  - name: gpu-0\n", ("- name: gpu-0", 2), "spec.devices[1].name", 'Duplicate value: "gpu-0"'),
        (
            SLICE.replace("      memory: {value: 80Gi}\n", "".join(f"      c{i}: {{value: '1'}}\n" for i in range(29))),
            "  - name: gpu-0",
            "spec.devices[0]",
            "the total number of attributes and capacities must not exceed 32",
        ),
        (
            SLICE.replace("  driver: gpu.example.com\n", "  driver: " + "g" * 64 + ".com\n"),
            "driver:",
            "spec.driver",
            "Too long: may not be more than 63 bytes",
        ),
        (
            CLASS.replace('device.driver == "gpu.example.com"', "true || " * 1300 + "true"),
            "expression",
            "spec.selectors[0].cel.expression",
            "Too long: may not be more than 10240 bytes",
        ),
        (
            SLICE.replace(
                "  nodeName: n1\n",
                "  nodeSelector: {nodeSelectorTerms: [{matchFields: "
                "[{key: metadata.name, operator: In, values: [n1, n2]}]}]}\n",
            ),
            "nodeSelector",
            "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values",
            "must be only one value when `operator`",
        ),
        (
            CLAIM.replace("operator: In, values: [n1]}]", "operator: In, values: [n1, n2]}]"),
            "matchFields",
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values",
            "must be only one value",
        ),
    ],
    ids=[
        "a constraint naming an unknown subrequest",
        "a constraint naming a request twice",
        "a constraint without matchAttribute",
        "a matchAttribute without a domain",
        "a request name not a DNS label",
        "two requests with one name",
        "an allocation result naming no request",
        "a consumer reserved twice",
        "two subrequests with one name",
        "a subrequest name not a DNS label",
        "an attribute name not a C identifier",
        "an attribute name with two slashes",
        "a string attribute past 64 bytes",
        "a pool of zero slices",
        "a pool name not a DNS subdomain",
        "allNodes false",
        "nodeName and allNodes",
        "two devices with one name",
        "33 attributes and capacities",
        "a driver name past 63 characters",
        "a selector past 10240 bytes",
        "a slice node selector matching two node names",
        "an allocation node selector matching two node names",
    ],
)
def test_the_api_servers_other_resource_rules_are_located_errors(document, fragment, path, message):
    """pkg/apis/resource/validation/validation.go: validateDeviceClaim (validateSet of requests and
    subrequests, validateDeviceConstraint, validateRequestNameRef), validateResourceClaimStatusUpdate,
    validateResourceSliceSpec, validateResourcePool, validateDevice (validateQualifiedName,
    validateDeviceAttribute), validateCELExpression's length check, ValidateCSIDriverName; the
    slice's and the allocation's node selectors go through core's ValidateNodeSelector."""
    text = stream(NODE, document)
    errors = errors_of(text)
    assert [(e.path, message in e.message) for e in errors] == [(path, True)], errors
    fragment, nth = fragment if isinstance(fragment, tuple) else (fragment, 1)
    lines = [number for number, line in enumerate(text.splitlines(), start=1) if fragment in line]
    assert errors[0].line == lines[nth - 1]


def test_what_the_api_server_accepts_loads_however_close_to_its_limits():
    """validateDeviceAllocationMode: ExactCount only needs count > 0 (33 loads; the allocator refuses
    it at scheduling time); 32 requests, 8 subrequests, a 32-character attribute id in a 63-character
    domain, a 64-byte string, a nodeSelector slice with one term, a constraint on request/subrequest."""
    requests = "".join(f"    - {{name: r{i}, exactly: {{deviceClassName: gpu}}}}\n" for i in range(30))
    claim = CLAIM.replace("    constraints:\n", requests + "    constraints:\n").replace(
        "exactly: {deviceClassName: gpu}\n    - name: all",
        "exactly: {deviceClassName: gpu, count: 33}\n    - name: all",
    )
    template = TEMPLATE + "      constraints:\n      - {requests: [gpu/big], matchAttribute: gpu.example.com/numa}\n"
    domain = "d" * 59 + ".com"
    slice_ = SLICE.replace(
        "      model: {string: h100}\n", f"      {domain}/{'m' * 32}: {{string: {'h' * 64}}}\n"
    ).replace(
        "  nodeName: n1\n",
        "  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [a]}]}]}\n",
    )
    scenario = load_scenario(stream(NODE, CLASS, slice_, claim, template))
    dra = scenario.dra
    assert len(dra.claims[0].spec.requests) == 32 and dra.claims[0].spec.requests[0].exactly.count == 33
    assert f"{domain}/{'m' * 32}" in dra.slices[0].devices[0].attributes


@pytest.mark.parametrize(
    "document, path, message",
    [
        (
            CLASS.replace('device.driver == "gpu.example.com"', "device.driver"),
            "spec.selectors[0].cel.expression",
            "must evaluate to bool or the unknown type, not string",
        ),
        (
            CLAIM.replace(
                "exactly: {deviceClassName: gpu}",
                "exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 'device.model == 1'}}]}",
            ),
            "spec.devices.requests[0].exactly.selectors[0].cel.expression",
            "undefined field 'model'",
        ),
        (
            TEMPLATE.replace(
                "{name: small, deviceClassName: gpu}",
                "{name: small, deviceClassName: gpu, selectors: [{cel: {expression: 'device.driver == 1'}}]}",
            ),
            "spec.spec.devices.requests[0].firstAvailable[1].selectors[0].cel.expression",
            "found no matching overload for '_==_' applied to '(string, int)'",
        ),
    ],
    ids=["a class selector that is not bool", "a claim selector on an unknown field", "a template selector ill-typed"],
)
def test_a_selector_the_api_servers_type_check_refuses_is_a_located_error(document, path, message):
    """validateCELExpression -> CompileCELExpression: every DeviceClass, ResourceClaim and
    ResourceClaimTemplate selector is compiled (type-checked) at create."""
    text = stream(NODE, document)
    [error] = errors_of(text)
    assert error.path == path and message in error.message and error.line == line_of(text, "expression")


def test_a_selector_past_the_cost_limit_is_refused_as_the_api_server_refuses_it():
    """validateCELExpression: result.MaxCost > CELSelectorExpressionMaxCost ->
    field.Forbidden(..., "too complex, exceeds cost limit") (estimate: dra/celcost.py)."""
    nested = (
        "device.attributes.all(d, device.attributes[d].all(i, device.attributes[d].all(j, "
        "device.attributes[d].all(k, device.attributes[d][i] == device.attributes[d][j]))))"
    )
    text = stream(NODE, CLASS.replace("'device.driver == \"gpu.example.com\"'", f"'{nested}'"))
    [error] = errors_of(text)
    assert (error.path, error.message) == (
        "spec.selectors[0].cel.expression",
        "Forbidden: too complex, exceeds cost limit",
    )
    assert error.line == line_of(text, "expression")


ADMIN_CLAIM = CLAIM.replace("exactly: {deviceClassName: gpu}", "exactly: {deviceClassName: gpu, adminAccess: true}")
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: default%s}\n"


def test_admin_access_in_a_declared_namespace_without_the_label_is_refused():
    """AuthorizedForAdmin (pkg/registry/resource/authz): the namespace must carry
    `resource.kubernetes.io/admin-access: "true"`; the error points at the first such request."""
    text = stream(NODE, NAMESPACE % "", ADMIN_CLAIM)
    [error] = errors_of(text)
    assert (error.object, error.path) == (
        "ResourceClaim default/shared",
        "spec.devices.requests[0].exactly.adminAccess",
    )
    assert error.message == (
        "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: "
        "true` label on the containing namespace"
    )
    assert error.line == line_of(text, "adminAccess: true")


def test_admin_access_loads_in_a_labelled_namespace_and_in_one_the_scenario_does_not_declare():
    labelled = NAMESPACE % ", labels: {resource.kubernetes.io/admin-access: 'true'}"
    for documents in ((NODE, labelled, ADMIN_CLAIM), (NODE, ADMIN_CLAIM)):
        [claim] = load_scenario(stream(*documents)).dra.claims
        assert claim.spec.requests[0].exactly.admin_access is True


@pytest.mark.parametrize(
    "config, path, message",
    [
        ("{requests: [gpu], opaque: {driver: gpu.example.com, parameters: {mode: fast}}}", None, None),
        ("{requests: [gpu]}", "spec.devices.config[0].opaque", "Required value"),
        (
            "{requests: [nope], opaque: {driver: gpu.example.com, parameters: {a: 1}}}",
            "spec.devices.config[0].requests[0]",
            "must be the name of a request",
        ),
        ("{opaque: {driver: gpu.example.com}}", "spec.devices.config[0].opaque.parameters", "Required value"),
        (
            "{opaque: {driver: gpu.example.com, parameters: [1]}}",
            "spec.devices.config[0].opaque.parameters",
            "must be a valid JSON object",
        ),
    ],
    ids=["a valid config", "no opaque", "a config naming no request", "no parameters", "parameters not an object"],
)
def test_a_claims_config_follows_validate_device_claim_configuration(config, path, message):
    """validateDeviceClaimConfiguration: request references, opaque (driver, parameters as a JSON object)."""
    document = CLAIM.replace("    constraints:\n", f"    config:\n    - {config}\n    constraints:\n")
    if path is None:
        assert load_scenario(stream(NODE, document)).dra.claims[0].spec.config_count == 1
        return
    [error] = errors_of(stream(NODE, document))
    assert error.path == path and message in error.message


def test_a_scenario_replayed_as_another_release_has_its_dra_fields_settled_again():
    from scheduler_core.release.choice import ReleaseSource
    from scheduler_core.release.rules import rules_for
    from scheduler_core.scenario.dra import replayed_as

    loaded = _as(V135, NODE, TAINTED, TOLERATING)
    assert loaded.dra.slices[0].devices[0].taints == ()
    newer = replayed_as(loaded, replace(loaded.release, rules=rules_for(V136), source=ReleaseSource.ASKED))
    assert newer.dra.slices[0].devices[0].taints == (DeviceTaint("broken", "", "NoSchedule"),)
    assert newer.dra.claims[0].spec.requests[0].exactly.tolerations
    older = replayed_as(newer, loaded.release)
    assert older.dra.slices[0].devices[0].taints == ()
    dropped = _as(V135, NODE, SLICE.replace("    capacity:\n", "    bindsToNode: true\n    capacity:\n"))
    kept = replayed_as(dropped, replace(dropped.release, rules=rules_for(V136)))
    assert kept.dra.slices[0].devices[0].binds_to_node


def test_binding_conditions_are_dropped_when_the_device_status_gate_is_off_and_the_notice_names_it():
    """resourceslice/strategy.go keeps them only with DRADeviceBindingConditions and DRAResourceClaimDeviceStatus."""
    bound = SLICE.replace("    capacity:\n", "    bindsToNode: true\n    capacity:\n")
    scenario = _as(
        V136, NODE, bound, gates={"DRAResourceClaimDeviceStatus": False, "DRADeviceBindingConditions": False}
    )
    assert _dropped(scenario) == ("ResourceSlice n1-gpu: spec.devices[0].bindsToNode (DRADeviceBindingConditions)",)
    only_status_off = _as(V135, NODE, bound, gates={"DRAResourceClaimDeviceStatus": False})
    assert _dropped(only_status_off) == (
        "ResourceSlice n1-gpu: spec.devices[0].bindsToNode (DRADeviceBindingConditions)",
    )


NO_EXECUTE = SLICE.replace("    capacity:\n", "    taints: [{key: broken, effect: NoExecute}]\n    capacity:\n")


def _evictions(scenario) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    notices = [n for n in scenario.notices if n.code is NoticeCode.DEVICE_TAINT_EVICTIONS]
    return notices[0].objects if notices else ()


def test_pods_the_device_taint_eviction_controller_would_evict_are_named():
    """v1.36 (DRADeviceTaints on): web-1's claim holds gpu-0, whose NoExecute taint it does not
    tolerate; kube-controller-manager would evict it, the replay does not, and says so."""
    scenario = _as(V136, NODE, NO_EXECUTE, CLAIM)
    assert _evictions(scenario) == ("Pod default/web-1",)
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.DEVICE_TAINT_EVICTIONS]
    assert "claim(s) default/shared" in notice.message and "SchedLab does not replay it" in notice.message


@pytest.mark.parametrize(
    "release, slice_, claim",
    [
        pytest.param(V136, NO_EXECUTE, TOLERATING, id="the claim tolerates the taint"),
        pytest.param(V136, TAINTED, CLAIM, id="a NoSchedule taint evicts nothing"),
        pytest.param(V135, NO_EXECUTE, CLAIM, id="v1.35: DRADeviceTaints off, the taint is dropped"),
        pytest.param(
            V136,
            NO_EXECUTE,
            CLAIM.replace("  reservedFor:\n  - {resource: pods, name: web-1, uid: u-web-1}\n", ""),
            id="no pod uses the claim",
        ),
    ],
)
def test_nothing_is_named_when_no_pod_would_be_evicted(release, slice_, claim):
    assert _evictions(_as(release, NODE, slice_, claim)) == ()


def test_a_selector_reading_allow_multiple_allocations_compiles_only_where_the_gate_is_on():
    """cel/compile.go declares device.allowMultipleAllocations with DRAConsumableCapacity on: v1.36's
    API server compiles the selector, v1.35's refuses it as an undefined field."""
    shared_only = CLASS.replace('device.driver == "gpu.example.com"', "device.allowMultipleAllocations")
    assert "allowMultipleAllocations" in shared_only
    assert _as(V136, NODE, shared_only).dra.classes[0].selectors == ("device.allowMultipleAllocations",)
    [error] = _refused(V135, NODE, shared_only)
    assert "spec.selectors[0].cel.expression: Invalid value: compilation failed" in error
    assert "undefined field 'allowMultipleAllocations'" in error
    assert _dropped(_as(V136, NODE, shared_only, gates={"DRAConsumableCapacity": True})) == ()


def test_a_constraint_with_neither_attribute_is_refused_in_the_words_of_the_release():
    """validateDeviceConstraint: v1.36 (DRAConsumableCapacity on) asks for one of the two at the
    constraint; v1.35 asks for matchAttribute."""
    bare = CLAIM.replace(
        "    - {requests: [gpu, all], matchAttribute: gpu.example.com/numa}\n", "    - {requests: [gpu, all]}\n"
    )
    [newer] = _refused(V136, NODE, CLASS, bare)
    assert newer.endswith(
        'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or "distinctAttribute" is '
        "required, but multiple fields are set"
    )
    [older] = _refused(V135, NODE, CLASS, bare)
    assert older.endswith("spec.devices.constraints[0].matchAttribute: Required value")


FABRIC_SLICE = SLICE.replace(
    "    capacity:\n",
    "    bindingConditions: [Attached]\n    bindingFailureConditions: [AttachFailed]\n    bindsToNode: true\n"
    "    capacity:\n",
)
ATTACHED_CLAIM = CLAIM.replace(
    "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}\n",
    "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0, bindingConditions: [Attached],\n"
    "         bindingFailureConditions: [AttachFailed]}\n"
    '    allocationTimestamp: "2026-05-01T10:00:00Z"\n',
).replace(
    "  reservedFor:\n",
    "  devices:\n"
    "  - driver: gpu.example.com\n    pool: n1\n    device: gpu-0\n    conditions:\n"
    '    - {type: Attached, status: "True", reason: Attached, message: on n1, lastTransitionTime: "2026-05-01T10:00:09Z"}\n'
    "  reservedFor:\n",
)


def test_binding_conditions_and_device_statuses_are_read_where_the_gates_are_on():
    from datetime import datetime, timezone

    from scheduler_core.model import AllocatedDeviceStatus, DeviceCondition

    scenario = _as(V136, NODE, CLASS, FABRIC_SLICE, ATTACHED_CLAIM)
    device = scenario.dra.slices[0].devices[0]
    assert (device.binding_conditions, device.binding_failure_conditions, device.binds_to_node) == (
        ("Attached",),
        ("AttachFailed",),
        True,
    )
    claim = scenario.dra.claims[0]
    assert claim.allocation is not None and claim.allocation.binds_with_conditions
    assert claim.allocation.allocation_timestamp == datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    assert claim.device_statuses == (
        AllocatedDeviceStatus(
            "gpu.example.com", "n1", "gpu-0", conditions=(DeviceCondition("Attached", "True", "Attached", "on n1"),)
        ),
    )
    assert not _dropped(scenario)
    older = _as(V135, NODE, CLASS, FABRIC_SLICE, ATTACHED_CLAIM)
    assert not older.dra.slices[0].devices[0].binding_conditions
    assert not older.dra.claims[0].allocation.binds_with_conditions
    assert older.dra.claims[0].device_statuses  # DRAResourceClaimDeviceStatus is on from v1.33
    assert (
        "ResourceClaim default/shared: status.allocation.devices.results[0].bindingConditions (DRADeviceBindingConditions)"
        in (_dropped(older))
    )
    oldest = _as(Release(32, 13), NODE, CLASS, FABRIC_SLICE, ATTACHED_CLAIM)
    assert not oldest.dra.claims[0].device_statuses
    assert "ResourceClaim default/shared: status.devices (DRAResourceClaimDeviceStatus)" in _dropped(oldest)


@pytest.mark.parametrize(
    "conditions, failures, message",
    [
        ("[a, b, c, d, e]", "[f]", "spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items"),
        ("[Attached, Attached]", "[f]", 'spec.devices[0].bindingConditions[1]: Duplicate value: "Attached"'),
        ("[Attached]", "[Attached]", "bindingFailureConditions must not overlap with bindingConditions"),
        (
            "[Attached]",
            None,
            "spec.devices[0].bindingFailureConditions: Invalid value: []: bindingFailureConditions are required",
        ),
        (
            None,
            "[AttachFailed]",
            "spec.devices[0].bindingConditions: Invalid value: []: bindingConditions are required",
        ),
        ("['-bad-']", "[f]", 'spec.devices[0].bindingConditions[0]: invalid value "-bad-"'),
    ],
)
def test_binding_parameters_are_validated_where_the_api_server_keeps_them(conditions, failures, message):
    fields = "".join(
        f"    {key}: {value}\n"
        for key, value in (("bindingConditions", conditions), ("bindingFailureConditions", failures))
        if value is not None
    )
    document = SLICE.replace("    capacity:\n", fields + "    capacity:\n")
    errors = _refused(V136, NODE, document)
    assert any(message in error for error in errors), errors
    assert _as(V135, NODE, document).dra.slices[0].devices[0].binding_conditions == ()  # dropped: not checked


def test_a_device_status_names_an_allocated_device_and_carries_valid_conditions():
    wrong_device = ATTACHED_CLAIM.replace("    device: gpu-0\n    conditions:", "    device: gpu-7\n    conditions:")
    [error] = _refused(V136, NODE, CLASS, FABRIC_SLICE, wrong_device)
    assert (
        'status.devices[0]: invalid value "gpu.example.com/n1/gpu-7": must be an allocated device in the claim' in error
    )
    bad = ATTACHED_CLAIM.replace('status: "True", reason: Attached', 'status: "Yes", reason: "1st"').replace(
        ', lastTransitionTime: "2026-05-01T10:00:09Z"', ""
    )
    errors = _refused(V136, NODE, CLASS, FABRIC_SLICE, bad)
    assert any('conditions[0].status: unsupported value "Yes"' in e for e in errors), errors
    assert any("conditions[0].lastTransitionTime: Required value" in e for e in errors), errors
    assert any('conditions[0].reason: invalid value "1st": a condition reason must start' in e for e in errors), errors


V133, V132 = Release(33, 13), Release(32, 13)
DRA_ON = {"DynamicResourceAllocation": True}
BOTH_KINDS = TEMPLATE.replace("      - name: gpu\n", "      - name: gpu\n        exactly: {deviceClassName: gpu}\n")


def test_first_available_is_dropped_where_drapriotizedlist_is_off_and_a_request_left_with_nothing_is_refused():
    """dropDisabledDRAPrioritizedListFields, then validateDeviceRequest: v1.33 (alpha, off) asks for
    one of the two; v1.32's v1beta1 request has no firstAvailable at all and asks for its class."""
    [v133] = _refused(V133, NODE, CLASS, TEMPLATE, gates=DRA_ON)
    assert v133.endswith(
        "spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"
    )
    [v132] = _refused(V132, NODE, CLASS, _as_v1beta1(TEMPLATE), gates=DRA_ON)
    assert v132.endswith("spec.spec.devices.requests[0].deviceClassName: Required value")
    [v135] = _refused(V135, NODE, CLASS, TEMPLATE, gates={"DRAPrioritizedList": False})
    assert v135 == v133.replace("v1.33", "v1.35")


def test_first_available_beside_exact_fields_is_refused_where_kept_and_the_exact_request_read_where_dropped():
    [both] = _refused(V135, NODE, CLASS, BOTH_KINDS)
    assert both.endswith(
        "spec.spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is "
        "required, but multiple fields are set"
    )
    scenario = _as(V133, NODE, CLASS, BOTH_KINDS, gates=DRA_ON)
    [request] = scenario.dra.templates[0].spec.requests
    assert (request.exactly.device_class_name, request.first_available) == ("gpu", ())
    assert _dropped(scenario) == (
        "ResourceClaimTemplate default/one-gpu: spec.spec.devices.requests[0].firstAvailable (DRAPrioritizedList)",
    )
    # v1beta1 writes the exact fields beside the name (conversion's hasAnyMainRequestFieldsSet)
    beta = BOTH_KINDS.replace("apiVersion: resource.k8s.io/v1\n", "apiVersion: resource.k8s.io/v1beta1\n")
    beta = beta.replace("        exactly: {deviceClassName: gpu}\n", "        deviceClassName: gpu\n")
    assert _refused(V135, NODE, CLASS, beta) == [both]
    [request] = _as(V133, NODE, CLASS, beta, gates=DRA_ON).dra.templates[0].spec.requests
    assert (request.exactly.device_class_name, request.first_available) == ("gpu", ())


def test_prioritized_lists_turned_on_before_v1_34_are_refused_as_not_replayed():
    errors = _refused(V133, NODE, CLASS, TEMPLATE, gates={**DRA_ON, "DRAPrioritizedList": True})
    assert len(errors) == 1 and "does not replay DRAPrioritizedList" in errors[0]
    assert errors[0].endswith("or replay as --release v1.34")


def test_admin_access_is_dropped_where_draadminaccess_is_off_with_its_namespace_check():
    """dropDisabledDRAAdminAccessFields: the request's and the allocation's adminAccess go (then
    AuthorizedForAdmin has nothing to check) while the gate is off: v1.32 and v1.33 by default."""
    allocated = ADMIN_CLAIM.replace("device: gpu-0}", "device: gpu-0, adminAccess: true}")
    text = (NODE, NAMESPACE % "", allocated)
    scenario = _as(V133, *text, gates=DRA_ON)
    [claim] = scenario.dra.claims
    assert claim.spec.requests[0].exactly.admin_access is None
    assert claim.allocation is not None and claim.allocation.results[0].admin_access is None
    assert _dropped(scenario) == (
        "ResourceClaim default/shared: spec.devices.requests[0].exactly.adminAccess (DRAAdminAccess)",
        "ResourceClaim default/shared: status.allocation.devices.results[0].adminAccess (DRAAdminAccess)",
    )
    [refused] = _refused(V135, *text)
    assert refused.endswith(
        "requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace"
    )
    [kept] = _as(V135, NODE, allocated).dra.claims
    assert kept.spec.requests[0].exactly.admin_access is True and kept.allocation.results[0].admin_access is True


def test_where_dynamic_resource_allocation_is_off_gated_dra_fields_refuse_nothing():
    # No resource.k8s.io API served, no DynamicResources: the objects are read, not refused for a
    # field the release's (unused) DRA API server would have dropped.
    scenario = _as(V133, NODE, CLASS, TEMPLATE)
    assert [t.name for t in scenario.dra.templates] == ["one-gpu"]
    [v133] = _refused(V133, NODE, CLASS, TEMPLATE, gates=DRA_ON)  # with it on, as its API server refuses it
    assert "exactly one of `exactly` or `firstAvailable` is required" in v133


def test_a_v1beta1_request_is_exact_when_any_of_its_exact_fields_is_written_even_false_or_empty():
    # conversion's hasAnyMainRequestFieldsSet: adminAccess (a pointer) and selectors/tolerations
    # (slices) count when written, even false or []: beside firstAvailable the request has both kinds.
    template = _as_v1beta1(TEMPLATE)
    for written in ("adminAccess: false", "selectors: []", "tolerations: []", "count: 1"):
        both = template.replace("      - name: gpu\n", f"      - name: gpu\n        {written}\n")
        errors = _refused(V135, NODE, CLASS, both)
        assert any("but multiple fields are set" in e for e in errors), (written, errors)
    assert not [n for n in _as(V135, NODE, CLASS, template).notices if "multiple" in n.message]  # firstAvailable alone
