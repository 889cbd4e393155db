"""Storage objects in a scenario: read as the API server stores them, refused where it would refuse."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core import simulate
from scheduler_core.model import ClaimRef, LabelSelector, Scenario, TopologySelectorRequirement
from scheduler_core.scenario import Limits, ScenarioInvalid, load_scenario
from tests.scheduler_core.scenario.support import NODE, errors_of, line_of, stream

GI = 1 << 30

CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: prod
  uid: u1
  annotations: {pv.kubernetes.io/bind-completed: 'yes'}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
  storageClassName: fast
  volumeName: pv-1
status:
  phase: Bound
  capacity: {storage: 10Gi}
"""
VOLUME = """\
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-1
  labels: {topology.kubernetes.io/zone: a}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  csi: {driver: csi.example.com, volumeHandle: h1}
  claimRef: {kind: PersistentVolumeClaim, namespace: prod, name: data, uid: u1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
status: {phase: Bound}
"""
CLASS = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a, b]}]
"""
CSI_OBJECTS = """\
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1, annotations: {storage.alpha.kubernetes.io/migrated-plugins: kubernetes.io/gce-pd}}
spec:
  drivers:
  - {name: csi.example.com, nodeID: n1, allocatable: {count: 16}, topologyKeys: [topology.kubernetes.io/zone]}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-a, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: a}}
capacity: 100Gi
maximumVolumeSize: 50Gi
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv-1}}
"""


def test_it_reads_claims_volumes_and_classes():
    scenario = load_scenario(stream(NODE, CLAIM, VOLUME, CLASS))
    (claim,) = scenario.storage.claims
    assert (
        claim.key,
        claim.uid,
        claim.access_modes,
        claim.storage_request,
        claim.class_name,
        claim.volume_name,
        claim.phase,
        claim.capacity,
        claim.is_fully_bound,
    ) == ("prod/data", "u1", ("ReadWriteOnce",), Fraction(5 * GI), "fast", "pv-1", "Bound", Fraction(10 * GI), True)
    (volume,) = scenario.storage.volumes
    assert (
        volume.capacity,
        volume.claim_ref,
        volume.source_kind,
        volume.csi.driver,
        volume.phase,
        volume.node_affinity.terms[0].match_expressions[0].values,
    ) == (Fraction(10 * GI), ClaimRef("prod", "data", "u1"), "csi", "csi.example.com", "Bound", ("n1",))
    (storage_class,) = scenario.storage.classes
    assert (storage_class.volume_binding_mode, storage_class.allowed_topologies) == (
        "WaitForFirstConsumer",
        ((TopologySelectorRequirement("topology.kubernetes.io/zone", ("a", "b")),),),
    )
    assert [n.code.value for n in scenario.notices] == ["no-pending-pods"]  # nothing ignored any more


def test_it_reads_the_csi_objects():
    storage = load_scenario(stream(NODE, CSI_OBJECTS)).storage
    (csi_node,) = storage.csi_nodes
    assert (csi_node.drivers[0].allocatable_count, csi_node.migrated_plugins) == (16, {"kubernetes.io/gce-pd"})
    assert storage.csi_drivers[0].storage_capacity is True
    (capacity,) = storage.capacities
    assert (capacity.capacity, capacity.maximum_volume_size, capacity.node_topology) == (
        Fraction(100 * GI),
        Fraction(50 * GI),
        LabelSelector((("topology.kubernetes.io/zone", "a"),)),
    )
    assert storage.attachments[0].persistent_volume_name == "pv-1"


def test_it_applies_the_api_servers_defaults():
    text = stream(
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: bare}\n"
        "spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}\n",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: plain}\nprovisioner: x.io/p\n",
        "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: d}\nspec: {}\n",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
        "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
    )
    storage = load_scenario(text).storage
    volume = storage.volumes[0]
    assert (volume.phase, volume.reclaim_policy, volume.volume_mode, volume.source_kind) == (
        "Pending",
        "Retain",
        "Filesystem",
        "hostPath",
    )
    assert storage.classes[0].volume_binding_mode == "Immediate"
    assert (storage.csi_drivers[0].attach_required, storage.csi_drivers[0].storage_capacity) == (True, False)
    assert (storage.claims[0].namespace, storage.claims[0].phase, storage.claims[0].storage_class_name) == (
        "default",
        "Pending",
        None,
    )


def test_a_volume_written_without_phase_is_pending_and_said_so():
    text = (
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: bare}\n"
        "spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}\n"
    )
    loaded = load_scenario(stream(text, VOLUME))
    notice, *empty = loaded.notices
    assert (notice.code.value, notice.objects) == ("pending-volumes", ("PersistentVolume bare",))
    assert [n.code.value for n in empty] == ["no-nodes", "no-pending-pods"]
    assert [v.phase for v in loaded.storage.volumes] == ["Pending", "Bound"]


def default_class(name: str, created: str) -> str:
    return (
        f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: {name}\n"
        f"  creationTimestamp: '{created}'\n"
        "  annotations: {storageclass.kubernetes.io/is-default-class: 'true'}\nprovisioner: x.io/p\n"
    )


def claim_doc(name: str, class_line: str = "") -> str:
    return (
        f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}}}\n"
        f"spec:\n  accessModes: [ReadWriteOnce]\n  resources: {{requests: {{storage: 1Gi}}}}\n{class_line}"
    )


def test_a_claim_without_class_gets_the_newest_default_class_as_admission_gives_it():
    text = stream(
        default_class("old", "2024-01-01T00:00:00Z"),
        default_class("new", "2024-06-01T00:00:00Z"),
        claim_doc("none"),
        claim_doc("empty", "  storageClassName: ''\n"),
        claim_doc("explicit", "  storageClassName: old\n"),
    )
    claims = {c.name: c.storage_class_name for c in load_scenario(text).storage.claims}
    assert claims == {"none": "new", "empty": "", "explicit": "old"}


def test_pod_volumes_are_read_with_their_sources():
    text = stream(
        NODE,
        """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data, readOnly: true}}
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
  - {name: disk, gcePersistentDisk: {pdName: pd-1, readOnly: true}}
  - {name: ceph, rbd: {monitors: [m1], image: img}}
  - {name: inline, csi: {driver: csi.example.com}}
  - {name: tmp}
""",
    )
    volumes = load_scenario(text).pods[0].volumes
    assert [(v.name, v.kind) for v in volumes] == [
        ("data", "persistentVolumeClaim"),
        ("scratch", "ephemeral"),
        ("disk", "gcePersistentDisk"),
        ("ceph", "rbd"),
        ("inline", "csi"),
        ("tmp", "emptyDir"),
    ]
    assert (volumes[0].claim_name, volumes[0].read_only, volumes[1].claim_for("p")) == ("data", True, "p-scratch")
    assert (volumes[2].in_tree.pd_name, volumes[2].in_tree.read_only) == ("pd-1", True)
    assert volumes[3].in_tree.pool == "rbd"  # defaulted
    assert volumes[4].csi_driver == "csi.example.com"


def pod_with_volume(volume: str) -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c}}]\n  volumes:\n  - {volume}\n"


STORAGE_ERRORS = [
    (
        "a claim without access modes",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {resources: {requests: {storage: 1Gi}}}\n",
        "spec.accessModes",
        "spec:",
        "at least 1 access mode is required",
    ),
    (
        "a claim with an unknown access mode",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
        "spec:\n  accessModes: [ReadWriteSometimes]\n  resources: {requests: {storage: 1Gi}}\n",
        "spec.accessModes[0]",
        "ReadWriteSometimes",
        'unsupported value "ReadWriteSometimes"',
    ),
    (
        "ReadWriteOncePod mixed with another mode",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
        "spec:\n  accessModes: [ReadWriteOncePod, ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n",
        "spec.accessModes",
        "accessModes:",
        "may not use ReadWriteOncePod with other access modes",
    ),
    (
        "a claim without a storage request",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
        "spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {cpu: '1'}\n",
        "spec.resources.requests.storage",
        "requests:",
        "Required value",
    ),
    (
        "a zero storage request",
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
        "spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {storage: '0'}\n",
        "spec.resources.requests.storage",
        "requests:",
        "must be greater than zero",
    ),
    (
        "a volume without a source",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n",
        "spec",
        "spec:",
        "must specify a volume type",
    ),
    (
        "a volume with two sources",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  hostPath: {path: /x}\n  nfs: {server: s, path: /}\n",
        "spec.nfs",
        "nfs:",
        "may not specify more than 1 volume type",
    ),
    (
        "a volume without capacity",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  accessModes: [ReadWriteOnce]\n"
        "  hostPath: {path: /x}\n",
        "spec.capacity",
        "spec:",
        "Required value",
    ),
    (
        "a local volume without node affinity",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  local: {path: /mnt}\n",
        "spec.nodeAffinity",
        "spec:",
        "Local volume requires node affinity",
    ),
    (
        "a volume node affinity without required (validateVolumeNodeAffinity)",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  local: {path: /mnt}\n  nodeAffinity: {}\n",
        "spec.nodeAffinity.required",
        "nodeAffinity",
        "Required value: must specify required node constraints",
    ),
    (
        "a volume node affinity matching two node names (ValidateNodeFieldSelectorRequirement)",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  local: {path: /mnt}\n  nodeAffinity:\n    required:\n"
        "      nodeSelectorTerms:\n      - matchFields: [{key: metadata.name, operator: In, values: [n1, n2]}]\n",
        "spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].values",
        "matchFields",
        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
    ),
    (
        "a volume node affinity value not a label value (ValidateNodeSelectorRequirement)",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  local: {path: /mnt}\n  nodeAffinity:\n    required:\n"
        "      nodeSelectorTerms:\n      - matchExpressions: [{key: zone, operator: In, values: [a/b]}]\n",
        "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]",
        "matchExpressions",
        'invalid value "a/b": a valid label must be',
    ),
    (
        "a CSI volume without a handle",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  capacity: {storage: 1Gi}\n"
        "  accessModes: [ReadWriteOnce]\n  csi: {driver: d}\n",
        "spec.csi.volumeHandle",
        "csi:",
        "Required value",
    ),
    (
        "a class without provisioner",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\n",
        "provisioner",
        "apiVersion",
        "Required value",
    ),
    (
        "an unknown binding mode",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\nprovisioner: p\nvolumeBindingMode: Later\n",
        "volumeBindingMode",
        "Later",
        'unsupported value "Later"',
    ),
    (
        "a negative attach limit",
        "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\n"
        "spec:\n  drivers:\n  - {name: d, nodeID: x, allocatable: {count: -1}}\n",
        "spec.drivers[0].allocatable.count",
        "count: -1",
        "must be between 0 and 2147483647",
    ),
    (
        "a pod volume claim without a name",
        pod_with_volume("{name: v, persistentVolumeClaim: {}}"),
        "spec.volumes[0].persistentVolumeClaim.claimName",
        "persistentVolumeClaim",
        "Required value",
    ),
    (
        "a pod volume with two sources (named at the second in the API's order)",
        pod_with_volume("{name: v, emptyDir: {}, hostPath: {path: /x}}"),
        "spec.volumes[0].emptyDir",
        "emptyDir",
        "may not specify more than 1 volume type",
    ),
    (
        "an ephemeral volume without a template",
        pod_with_volume("{name: v, ephemeral: {}}"),
        "spec.volumes[0].ephemeral.volumeClaimTemplate",
        "ephemeral",
        "Required value",
    ),
    (
        "a GCE disk without a name",
        pod_with_volume("{name: v, gcePersistentDisk: {fsType: ext4}}"),
        "spec.volumes[0].gcePersistentDisk.pdName",
        "gcePersistentDisk",
        "Required value",
    ),
    (
        "an iSCSI IQN of the wrong form",
        pod_with_volume("{name: v, iscsi: {targetPortal: '1.2.3.4:3260', iqn: bad, lun: 0}}"),
        "spec.volumes[0].iscsi.iqn",
        "iscsi",
        "starting with iqn, eui, or naa",
    ),
]


@pytest.mark.parametrize(
    "text, path, line_fragment, message",
    [case[1:] for case in STORAGE_ERRORS],
    ids=[f"it reports {case[0]}" for case in STORAGE_ERRORS],
)
def test_it_reports_invalid_storage_objects_with_path_and_line(text, path, line_fragment, message):
    errors = errors_of(text)
    matching = [e for e in errors if e.path == path]
    assert matching, f"no error at {path}: {[str(e) for e in errors]}"
    assert message in matching[0].message
    assert matching[0].line == line_of(text, line_fragment)


def test_duplicate_volume_names_in_a_pod_are_refused():
    errors = errors_of(pod_with_volume("{name: v}\n  - {name: v}"))
    assert [(e.path, e.message) for e in errors] == [("spec.volumes[1].name", 'Duplicate value: "v"')]


def test_a_pod_naming_a_missing_claim_loads():
    """The scheduler, not the loader, answers for a missing claim."""
    scenario = load_scenario(stream(NODE, pod_with_volume("{name: v, persistentVolumeClaim: {claimName: gone}}")))
    assert scenario.pods[0].volumes[0].claim_name == "gone"


# ---------------------------------------------------------------------------- adversarial storage objects

VALID = [yaml.safe_load(doc) for doc in (NODE, CLAIM, VOLUME, CLASS, *CSI_OBJECTS.split("---\n"))] + [
    yaml.safe_load(pod_with_volume("{name: v, persistentVolumeClaim: {claimName: data}}")),
]
SMALL = Limits(max_bytes=200_000, max_nodes=50, max_pods=50, max_pending_pods=50, max_documents=50)
junk = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=12),
        st.sampled_from(["", "-1Gi", "0", "ReadWriteOncePod", "Bound", "In", "a__", "aws://x"]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths.extend(_paths(item, prefix + (key,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths.extend(_paths(item, prefix + (index,)))
    return paths


@st.composite
def mutated(draw) -> str:
    documents = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(1, len(documents) - 1))
        path = draw(st.sampled_from(_paths(documents[index])[1:]))
        target = documents[index]
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = draw(junk)
    return yaml.safe_dump_all(documents)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_damaged_storage_objects_only_raise_scenario_invalid_and_what_loads_schedules(text):
    try:
        scenario = load_scenario(text, limits=SMALL)
    except ScenarioInvalid as invalid:
        assert not any("internal error" in e.message for e in invalid.errors), [str(e) for e in invalid.errors]
        return
    assert isinstance(scenario, Scenario)
    for event in simulate(scenario):
        assert event.to_json()
