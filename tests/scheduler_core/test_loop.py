"""The run to the end (scheduler_core.loop): what reaches the queue between attempts."""

from __future__ import annotations

from scheduler_core import load_scenario
from scheduler_core.events import ClusterChanged, ClusterChangeKind, ExtensionPoint
from scheduler_core.loop import run_to_the_end

# A WaitForFirstConsumer claim on a node without a kubernetes.io/hostname label: the stand-in
# provisions a volume pinned to that label, so VolumeBinding's PreBind writes, then fails.
PREBIND_FAILS = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/os: linux}}
status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110'}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: wffc}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1, namespace: default, uid: u1}
spec: {accessModes: [ReadWriteOnce], storageClassName: wffc, resources: {requests: {storage: 1Gi}}}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: c1}}]
"""


def test_the_writes_of_a_prebind_that_failed_still_reach_the_queue_as_events():
    events = list(run_to_the_end(load_scenario(PREBIND_FAILS), tie_break="first"))
    first_end = next(i for i, e in enumerate(events) if e.extension_point is ExtensionPoint.ATTEMPT_END)
    second_start = next(i for i, e in enumerate(events) if e.extension_point is ExtensionPoint.CYCLE_START and i > first_end)
    between = [e.payload for e in events[first_end:second_start] if isinstance(e.payload, ClusterChanged)]
    assert [(c.kind, c.object, c.detail) for c in between] == [
        (ClusterChangeKind.STORAGE, "default/c1", "PersistentVolumeClaimUpdate"),
        (ClusterChangeKind.STORAGE, "pvc-u1", "PersistentVolumeAdd"),
        (ClusterChangeKind.STORAGE, "pvc-u1", "PersistentVolumeUpdate"),
        (ClusterChangeKind.STORAGE, "default/c1", "PersistentVolumeClaimUpdate"),
    ]
