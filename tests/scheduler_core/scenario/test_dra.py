"""resource.k8s.io/v1 objects in a scenario: read as the API server stores them (defaulting),
refused where it would refuse them (pkg/apis/resource/validation), fields of features that are
off in v1.35.4 dropped with a notice."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.model import NoticeCode, PodResourceClaim, Version
from scheduler_core.scenario import load_scenario
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
    assert device.attributes == {"model": "h100", "index": 0, "ecc": True,
                                 "gpu.example.com/driverVersion": Version("1.2.3")}
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


def test_a_pods_claims_and_their_statuses_are_read():
    spec = CONTAINER + """
        resourceClaims:
        - {name: gpus, resourceClaimTemplateName: one-gpu}
        - {name: shared, resourceClaimName: shared}
        """
    text = stream(NODE, pod(spec) + "status:\n  resourceClaimStatuses:\n  - {name: gpus, resourceClaimName: web-1-gpus-x}\n")
    [web] = load_scenario(text).pods
    assert web.claim_sources == (PodResourceClaim("gpus", template_name="one-gpu"),
                                 PodResourceClaim("shared", claim_name="shared"))
    assert web.claim_statuses == (("gpus", "web-1-gpus-x"),)
    assert web.uid == "uid-pod-default-web-1"  # reservations name pods by uid


@pytest.mark.parametrize("document, fragment, path, message", [
    (CLASS.replace('device.driver == "gpu.example.com"', "device.driver =="), "expression",
     "spec.selectors[0].cel.expression", "compilation failed"),
    (SLICE.replace("  nodeName: n1\n", ""), "spec:", "spec", "exactly one of `nodeName`"),
    (SLICE.replace("{int: 0}", "{int: 0, string: a}"), "index:", "spec.devices[0].attributes.index",
     "exactly one value"),
    (SLICE.replace("{version: 1.2.3}", "{version: '01.2'}"), "driverVersion", "spec.devices[0].attributes."
     "gpu.example.com/driverVersion.version", "semver"),
    (CLAIM.replace("exactly: {deviceClassName: gpu}", "exactly: {deviceClassName: gpu, allocationMode: Some}"),
     "allocationMode: Some", "spec.devices.requests[0].exactly.allocationMode", "unsupported value"),
    (CLAIM.replace("exactly: {deviceClassName: gpu}", "exactly: {deviceClassName: gpu, count: 0}"),
     "count: 0", "spec.devices.requests[0].exactly.count", "between 1 and 32"),
    (CLAIM.replace("requests: [gpu, all]", "requests: [gpu, nope]"), "nope", "spec.devices.constraints[0]."
     "requests[1]", "must be the name of a request"),
    (TEMPLATE.replace("        firstAvailable:\n        - {name: big, deviceClassName: gpu, count: 2}\n"
                      "        - {name: small, deviceClassName: gpu}\n", ""), "- name: gpu",
     "spec.spec.devices.requests[0]", "exactly one of `exactly` or `firstAvailable`"),
], ids=["a selector that does not compile", "a slice without node selection", "an attribute with two values",
        "a version that is not semver", "an unknown allocation mode", "a count of 0",
        "a constraint naming no request", "a request without exactly or firstAvailable"])
def test_what_the_api_server_refuses_is_a_located_error(document, fragment, path, message):
    text = stream(NODE, document)
    [error] = errors_of(text)
    assert error.path == path and message in error.message
    assert error.line == line_of(text, fragment)


def test_fields_of_features_off_in_the_release_are_dropped_with_a_notice():
    """DRADeviceTaints and DRAExtendedResource are off in v1.35.4: the API server drops their fields."""
    tainted = SLICE.replace("    capacity:\n", "    taints: [{key: broken, effect: NoSchedule}]\n    capacity:\n")
    extended = CLASS + "  extendedResourceName: example.com/gpu\n"
    scenario = load_scenario(stream(NODE, tainted, extended))
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.DRA_FEATURE_OFF]
    assert notice.objects == ("ResourceSlice n1-gpu: spec.devices[0].taints (DRADeviceTaints)",
                              "DeviceClass gpu: spec.extendedResourceName (DRAExtendedResource)")
