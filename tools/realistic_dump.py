"""A realistic 10-node cluster dump, as ``kubectl get ... -A -o yaml`` writes it (issue 50, item 7).

    .venv/bin/python tools/realistic_dump.py [--out tests/fixtures/dumps/istio_nodelocaldns_10.yaml] [--json] [--dense]

An EKS-style cluster of v1.35 kubelets in three zones: eight m6i.xlarge workers and two m6i.large
nodes of an ingress pool tainted ``dedicated=ingress:NoSchedule``; kube-proxy and node-local-dns
DaemonSets (host network, port 53, a pod on every node); CoreDNS and istiod with pod anti-affinity,
Istio's ingress gateways spread over the zones of the ingress pool; a shop's Deployments with Istio's
sidecar (the ``istio-init`` init container and the ``istio-proxy`` container, whose requests count),
zone spread constraints (DoNotSchedule and ScheduleAnyway), required and preferred pod anti-affinity,
a PostgreSQL StatefulSet whose claims are bound to zonal EBS volumes, PodDisruptionBudgets,
PriorityClasses and a low-priority batch pool. Ten pods are Pending: some fit nowhere (a zone spread
whose only allowed zone is full, a per-node anti-affinity with more replicas than nodes, a pod bigger
than any node), some fit once others bind (pod affinity to a pending pod), one preempts a batch pod.

The dump is the fixture of ``tests/fixtures/dumps``; ``tools/envelope_dump.py`` copies it N times
into a cluster at Kubernetes' envelope (``--copies 500``: 5,000 nodes). ``--dense`` adds a platform
team's 24 small services (by turns zone-spread, anti-affine per node, pinned to the pool by node
affinity, or plain; one scaled up by a replica that fits): 300 pods on the 10 nodes, the envelope's
density, so 500 copies are its 5,000 nodes and 150,000 pods (500 of them finished). The same
arguments always write the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

import yaml

HEADER = """\
# A 10-node EKS-style cluster (kubelets v1.35.4, three zones) with Istio, node-local DNS, PodDisruptionBudgets,
# zone spread constraints and pod anti-affinity, as `kubectl get nodes,pods,services,deployments,replicasets,
# statefulsets,daemonsets,priorityclasses,poddisruptionbudgets,pvc,pv,storageclasses -A -o yaml` prints it
# (one kind: List; server bookkeeping kept: uids, resourceVersions, a few managedFields). Written by
# tools/realistic_dump.py (its docstring says what is in it); 10 of its 81 pods are Pending.
# Read by tests/tools/test_realistic_dump.py; copied N times by tools/envelope_dump.py (issue 50, item 7).
"""

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
CREATED = "2026-10-02T08:14:09Z"
NOW = "2026-11-24T16:40:00Z"


def uid(*parts: str) -> str:
    digest = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def pod_hash(name: str) -> str:
    digest = hashlib.sha1(name.encode()).hexdigest()
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    return "".join(alphabet[int(digest[i : i + 2], 16) % len(alphabet)] for i in range(0, 20, 2))


# ---------------------------------------------------------------------------------------------- nodes

# (name, zone, pool): eight general workers, two nodes of the tainted ingress pool.
NODES = (
    ("ip-10-0-11-21.ec2.internal", 0, "general"),
    ("ip-10-0-12-34.ec2.internal", 0, "general"),
    ("ip-10-0-13-47.ec2.internal", 0, "general"),
    ("ip-10-0-21-18.ec2.internal", 1, "general"),
    ("ip-10-0-22-55.ec2.internal", 1, "general"),
    ("ip-10-0-23-92.ec2.internal", 1, "general"),
    ("ip-10-0-31-64.ec2.internal", 2, "general"),
    ("ip-10-0-32-77.ec2.internal", 2, "general"),
    ("ip-10-0-14-9.ec2.internal", 0, "ingress"),
    ("ip-10-0-24-13.ec2.internal", 1, "ingress"),
)
INSTANCE = {
    # pool -> (instance type, capacity cpu, allocatable cpu, capacity memory, allocatable memory, max pods)
    "general": ("m6i.xlarge", "4", "3920m", "16069204Ki", "15052372Ki", "58"),
    "ingress": ("m6i.large", "2", "1930m", "7990524Ki", "7135356Ki", "29"),
}


def node(name: str, zone: int, pool: str, index: int) -> dict[str, Any]:
    itype, cpu, alloc_cpu, mem, alloc_mem, pods = INSTANCE[pool]
    ip = name.removeprefix("ip-").removesuffix(".ec2.internal").replace("-", ".")
    labels = {
        "eks.amazonaws.com/capacityType": "ON_DEMAND",
        "eks.amazonaws.com/nodegroup": f"{pool}-2026100208",
        "eks.amazonaws.com/nodegroup-image": "ami-0c4a5b7e9d1f23a86",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "pool": pool,
        "topology.ebs.csi.aws.com/zone": ZONES[zone],
        "topology.k8s.aws/zone-id": f"use1-az{zone + 1}",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": ZONES[zone],
    }
    spec: dict[str, Any] = {"providerID": f"aws:///{ZONES[zone]}/i-0{uid(name)[:16].replace('-', '')}"}
    if pool == "ingress":
        spec["taints"] = [{"effect": "NoSchedule", "key": "dedicated", "value": "ingress"}]
    condition_times = {"lastHeartbeatTime": "2026-11-24T16:39:12Z", "lastTransitionTime": CREATED}
    conditions = [
        {**condition_times, "message": m, "reason": r, "status": "False", "type": t}
        for t, r, m in (
            ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        )
    ]
    conditions.append(
        {
            **condition_times,
            "message": "kubelet is posting ready status",
            "reason": "KubeletReady",
            "status": "True",
            "type": "Ready",
        }
    )
    metadata: dict[str, Any] = {
        "annotations": {
            "alpha.kubernetes.io/provided-node-ip": ip,
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        },
        "creationTimestamp": CREATED,
        "labels": labels,
        "name": name,
        "resourceVersion": str(9811420 + 37 * index),
        "uid": uid("node", name),
    }
    if index < 1:  # kubectl writes every object's managedFields; a couple kept, the rest trimmed
        metadata["managedFields"] = [
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:alpha.kubernetes.io/provided-node-ip": {}}}},
                "manager": "kubelet",
                "operation": "Update",
                "time": CREATED,
            },
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": {"f:conditions": {'k:{"type":"Ready"}': {"f:lastHeartbeatTime": {}}}}},
                "manager": "kubelet",
                "operation": "Update",
                "subresource": "status",
                "time": "2026-11-24T16:39:12Z",
            },
        ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": metadata,
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": name, "type": "InternalDNS"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": {
                "cpu": alloc_cpu,
                "ephemeral-storage": "76224326324",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": alloc_mem,
                "pods": pods,
            },
            "capacity": {
                "cpu": cpu,
                "ephemeral-storage": "83873772Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": mem,
                "pods": pods,
            },
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": uid("boot", name),
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "6.1.141-155.222.amzn2023.x86_64",
                "kubeProxyVersion": "",
                "kubeletVersion": "v1.35.4-eks-7f2c1a3",
                "machineID": uid("machine", name).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.9.20251110",
                "systemUUID": uid("system", name),
            },
        },
    }


# ---------------------------------------------------------------------------------------------- workloads

SIDECAR_PROXY = {"cpu": "100m", "memory": "128Mi"}
DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]
PRIORITY = {
    "": 0,
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
    "shop-critical": 100000,
    "batch-low": -100,
    "batch-high": 1000,
}


class Workload:
    """One Deployment, StatefulSet or DaemonSet: its pod template and where each of its pods is."""

    def __init__(
        self,
        kind: str,
        namespace: str,
        name: str,
        app: dict[str, str],
        placement: list[str | None],
        *,
        sidecar: bool = False,
        spec: dict[str, Any] | None = None,
        priority_class: str = "",
        labels: dict[str, str] | None = None,
        service: bool = True,
        ports: list[dict[str, Any]] | None = None,
        image: str = "",
    ) -> None:
        self.kind, self.namespace, self.name = kind, namespace, name
        self.requests, self.placement, self.sidecar = app, placement, sidecar
        self.extra_spec = spec or {}
        self.priority_class, self.service, self.ports = priority_class, service, ports or []
        self.labels = {"app": name, **(labels or {})}
        self.image = image or f"123456789012.dkr.ecr.us-east-1.amazonaws.com/{namespace}/{name}:v2.14.3"
        self.template_hash = pod_hash(f"{namespace}/{name}")[:10]

    @property
    def selector(self) -> dict[str, str]:
        return {"app": self.name}

    def owner(self) -> tuple[str, str, str]:
        """The pods' controller: kind, name, apiVersion."""
        if self.kind == "Deployment":
            return "ReplicaSet", f"{self.name}-{self.template_hash}", "apps/v1"
        return self.kind, self.name, "apps/v1"

    def pod_labels(self, ordinal: int) -> dict[str, str]:
        labels = dict(self.labels)
        if self.kind == "Deployment":
            labels["pod-template-hash"] = self.template_hash
        elif self.kind == "StatefulSet":
            labels["apps.kubernetes.io/pod-index"] = str(ordinal)
            labels["controller-revision-hash"] = f"{self.name}-{self.template_hash[:9]}"
            labels["statefulset.kubernetes.io/pod-name"] = f"{self.name}-{ordinal}"
        else:
            labels["controller-revision-hash"] = self.template_hash[:9]
            labels["pod-template-generation"] = "3"
        if self.sidecar:
            labels["security.istio.io/tlsMode"] = "istio"
            labels["service.istio.io/canonical-name"] = self.name
            labels["service.istio.io/canonical-revision"] = "v2"
        return labels

    def pod_name(self, ordinal: int, node_name: str | None) -> str:
        if self.kind == "StatefulSet":
            return f"{self.name}-{ordinal}"
        suffix = pod_hash(f"{self.namespace}/{self.name}/{ordinal}")[:5]
        if self.kind == "Deployment":
            return f"{self.name}-{self.template_hash}-{suffix}"
        return f"{self.name}-{suffix}"


def containers(w: Workload, ordinal: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    app: dict[str, Any] = {
        "image": w.image,
        "name": w.name if w.kind != "DaemonSet" else w.name.split("-")[-1] if w.name == "kube-proxy" else "node-cache",
        "resources": {"requests": dict(w.requests)},
    }
    if "memory" in w.requests:
        app["resources"]["limits"] = {"memory": w.requests["memory"]}
    if w.ports:
        app["ports"] = w.ports
    if w.kind == "StatefulSet":
        app["volumeMounts"] = [{"mountPath": "/var/lib/postgresql/data", "name": "data"}]
    if not w.sidecar:
        return [app], []
    proxy = {
        "image": "docker.io/istio/proxyv2:1.27.3",
        "name": "istio-proxy",
        "ports": [
            {"containerPort": 15090, "name": "http-envoy-prom", "protocol": "TCP"},
        ],
        "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": dict(SIDECAR_PROXY)},
    }
    init = {
        "image": "docker.io/istio/proxyv2:1.27.3",
        "name": "istio-init",
        "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": dict(SIDECAR_PROXY)},
    }
    return [app, proxy], [init]


def pod(w: Workload, ordinal: int, node_name: str | None, index: int) -> dict[str, Any]:
    name = w.pod_name(ordinal, node_name)
    owner_kind, owner_name, owner_api = w.owner()
    annotations: dict[str, str] = {}
    if w.sidecar:
        annotations["istio.io/rev"] = "default"
        annotations["kubectl.kubernetes.io/default-container"] = w.name
        annotations["sidecar.istio.io/status"] = (
            '{"initContainers":["istio-init"],"containers":["istio-proxy"],"revision":"default"}'
        )
    created = f"2026-11-{10 + index % 14:02d}T{index % 24:02d}:{(7 * index) % 60:02d}:{(13 * index) % 60:02d}Z"
    metadata: dict[str, Any] = {
        "creationTimestamp": created,
        "labels": w.pod_labels(ordinal),
        "name": name,
        "namespace": w.namespace,
        "ownerReferences": [
            {
                "apiVersion": owner_api,
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": owner_kind,
                "name": owner_name,
                "uid": uid(owner_kind, w.namespace, owner_name),
            }
        ],
        "resourceVersion": str(10288311 + 211 * index),
        "uid": uid("pod", w.namespace, name),
    }
    if annotations:
        metadata["annotations"] = annotations
    if w.kind != "StatefulSet":
        metadata["generateName"] = name[: name.rfind("-") + 1]
    if index % 9 == 0:  # a few pods keep their managedFields, as kubectl writes them
        metadata["managedFields"] = [
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {
                    "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}, "f:ownerReferences": {}}
                },
                "manager": "kube-controller-manager",
                "operation": "Update",
                "time": created,
            },
        ]
        if node_name:
            metadata["managedFields"].append(
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}, "f:podIP": {}}
                    },
                    "manager": "kubelet",
                    "operation": "Update",
                    "subresource": "status",
                    "time": created,
                }
            )
    main, init = containers(w, ordinal)
    spec: dict[str, Any] = {
        "containers": main,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": PRIORITY[w.priority_class],
        "schedulerName": "default-scheduler",
        "serviceAccountName": w.name,
        "tolerations": list(DEFAULT_TOLERATIONS) if index % 4 == 0 else [],
        "volumes": [],
    }
    if init:
        spec["initContainers"] = init
        spec["volumes"].append({"emptyDir": {"medium": "Memory"}, "name": "istio-envoy"})
    if w.priority_class:
        spec["priorityClassName"] = w.priority_class
    if w.kind == "StatefulSet":
        spec["hostname"] = name
        spec["subdomain"] = w.name
        spec["volumes"].insert(0, {"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}})
    if not spec["volumes"]:
        del spec["volumes"]
    if not spec["tolerations"]:
        del spec["tolerations"]
    for key, value in w.extra_spec.items():
        if key == "tolerations":
            spec["tolerations"] = value + spec.get("tolerations", [])
        else:
            spec[key] = value
    if w.kind == "DaemonSet":
        assert node_name is not None
        # the DaemonSet controller pins each pod to its node by node affinity (what the scheduler reads)
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
                    ]
                }
            }
        }
    qos = "Burstable"
    if node_name is None:
        # the PodScheduled=False condition the scheduler writes is left out: its message is the replay's to say
        status: dict[str, Any] = {"phase": "Pending", "qosClass": qos}
    else:
        spec["nodeName"] = node_name
        host_ip = node_name.removeprefix("ip-").removesuffix(".ec2.internal").replace("-", ".")
        pod_ip = (
            host_ip if spec.get("hostNetwork") else f"{host_ip.rsplit('.', 2)[0]}.{100 + index % 150}.{index % 250 + 2}"
        )
        condition = {"lastTransitionTime": created, "status": "True"}
        status = {
            "conditions": [{**condition, "type": "PodScheduled"}],
            "hostIP": host_ip,
            "phase": "Running",
            "podIP": pod_ip,
            "qosClass": qos,
            "startTime": created,
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


def spread(key: str, unsatisfiable: str, app: str, max_skew: int = 1) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"app": app}},
        "maxSkew": max_skew,
        "topologyKey": key,
        "whenUnsatisfiable": unsatisfiable,
    }


def anti_affinity(app: str, required: bool, key: str = "kubernetes.io/hostname") -> dict[str, Any]:
    term = {
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": [app]}]},
        "topologyKey": key,
    }
    if required:
        return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"podAffinityTerm": term, "weight": 100}]
        }
    }


def on(*indices: int) -> list[str | None]:
    return [NODES[i][0] for i in indices]


PENDING: list[str | None] = [None]
ALL_NODES = list(range(len(NODES)))
ISTIO_SA = {"app": "", "istio": ""}


def workloads() -> list[Workload]:
    ingress_tolerations = [{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "ingress"}]
    ingress_affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["ingress"]}]}]
            }
        }
    }
    return [
        # ---- kube-system: the DaemonSets on every node, CoreDNS, metrics-server
        Workload(
            "DaemonSet",
            "kube-system",
            "kube-proxy",
            {"cpu": "100m"},
            on(*ALL_NODES),
            spec={"hostNetwork": True, "dnsPolicy": "ClusterFirst", "tolerations": [{"operator": "Exists"}]},
            priority_class="system-node-critical",
            labels={"k8s-app": "kube-proxy"},
            service=False,
            image="602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.35.4-minimal-eksbuild.2",
        ),
        Workload(
            "DaemonSet",
            "kube-system",
            "node-local-dns",
            {"cpu": "25m", "memory": "5Mi"},
            on(*ALL_NODES),
            spec={
                "hostNetwork": True,
                "dnsPolicy": "Default",
                "tolerations": [
                    {"operator": "Exists", "key": "CriticalAddonsOnly"},
                    {"effect": "NoExecute", "operator": "Exists"},
                    {"effect": "NoSchedule", "operator": "Exists"},
                ],
            },
            priority_class="system-node-critical",
            labels={"k8s-app": "node-local-dns"},
            service=False,
            ports=[
                {"containerPort": 53, "hostPort": 53, "name": "dns", "protocol": "UDP"},
                {"containerPort": 53, "hostPort": 53, "name": "dns-tcp", "protocol": "TCP"},
                {"containerPort": 9253, "hostPort": 9253, "name": "metrics", "protocol": "TCP"},
            ],
            image="registry.k8s.io/dns/k8s-dns-node-cache:1.26.4",
        ),
        Workload(
            "Deployment",
            "kube-system",
            "coredns",
            {"cpu": "100m", "memory": "70Mi"},
            on(0, 3),
            spec={
                "affinity": anti_affinity("coredns", required=False),
                "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}],
                "dnsPolicy": "Default",
            },
            priority_class="system-cluster-critical",
            labels={"k8s-app": "kube-dns"},
            ports=[
                {"containerPort": 53, "name": "dns", "protocol": "UDP"},
                {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
            ],
            image="602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns:v1.12.4-eksbuild.1",
        ),
        Workload(
            "Deployment",
            "kube-system",
            "metrics-server",
            {"cpu": "100m", "memory": "200Mi"},
            on(6),
            priority_class="system-cluster-critical",
            labels={"k8s-app": "metrics-server"},
            image="registry.k8s.io/metrics-server/metrics-server:v0.8.0",
        ),
        # ---- istio-system: istiod apart on nodes, the gateways spread over the ingress pool's zones
        Workload(
            "Deployment",
            "istio-system",
            "istiod",
            {"cpu": "500m", "memory": "2Gi"},
            on(1, 4),
            spec={"affinity": anti_affinity("istiod", required=True)},
            labels={"istio": "pilot", "istio.io/rev": "default"},
            image="docker.io/istio/pilot:1.27.3",
        ),
        Workload(
            "Deployment",
            "istio-system",
            "istio-ingressgateway",
            {"cpu": "500m", "memory": "512Mi"},
            on(8, 9, 8),
            spec={
                "affinity": ingress_affinity,
                "tolerations": ingress_tolerations,
                "topologySpreadConstraints": [
                    spread("topology.kubernetes.io/zone", "DoNotSchedule", "istio-ingressgateway")
                ],
            },
            labels={"istio": "ingressgateway"},
            image="docker.io/istio/proxyv2:1.27.3",
            ports=[{"containerPort": 8080, "protocol": "TCP"}, {"containerPort": 8443, "protocol": "TCP"}],
        ),
        # ---- shop: the sidecar's requests count (istio-init's too, as an init container's)
        Workload(
            "Deployment",
            "shop",
            "frontend",
            {"cpu": "250m", "memory": "256Mi"},
            on(0, 3, 6, 1, 4, 7),
            sidecar=True,
            spec={
                "topologySpreadConstraints": [
                    spread("topology.kubernetes.io/zone", "ScheduleAnyway", "frontend"),
                    spread("kubernetes.io/hostname", "ScheduleAnyway", "frontend"),
                ]
            },
            priority_class="shop-critical",
        ),
        Workload(
            "Deployment",
            "shop",
            "cart",
            {"cpu": "300m", "memory": "512Mi"},
            on(2, 5, 7),
            sidecar=True,
            spec={
                "topologySpreadConstraints": [spread("topology.kubernetes.io/zone", "DoNotSchedule", "cart")],
                "affinity": anti_affinity("cart", required=False),
            },
            priority_class="shop-critical",
        ),
        # zone spread, DoNotSchedule: 2 + 2 + 1 running, so both new replicas may go only to us-east-1c, full
        Workload(
            "Deployment",
            "shop",
            "checkout",
            {"cpu": "900m", "memory": "1Gi"},
            on(0, 3, 6, 2, 5) + PENDING * 2,
            sidecar=True,
            spec={"topologySpreadConstraints": [spread("topology.kubernetes.io/zone", "DoNotSchedule", "checkout")]},
        ),
        # one replica per node, nine replicas for eight general nodes: one fits, the other nowhere
        Workload(
            "Deployment",
            "shop",
            "payments",
            {"cpu": "400m", "memory": "512Mi"},
            on(0, 1, 2, 3, 4, 6, 7) + PENDING * 2,
            sidecar=True,
            spec={"affinity": anti_affinity("payments", required=True)},
            priority_class="shop-critical",
        ),
        Workload(
            "Deployment",
            "shop",
            "catalog",
            {"cpu": "200m", "memory": "384Mi"},
            on(1, 4, 5, 7),
            sidecar=True,
            spec={"affinity": anti_affinity("catalog", required=False, key="topology.kubernetes.io/zone")},
        ),
        Workload("Deployment", "shop", "notifications", {"cpu": "100m", "memory": "128Mi"}, on(2, 5, 6), sidecar=True),
        Workload(
            "Deployment",
            "shop",
            "search",
            {"cpu": "300m", "memory": "1Gi"},
            on(0, 4, 7),
            sidecar=True,
            spec={"affinity": anti_affinity("search", required=False)},
        ),
        Workload("Deployment", "shop", "inventory", {"cpu": "300m", "memory": "512Mi"}, on(6, 7), sidecar=True),
        Workload("Deployment", "shop", "audit", {"cpu": "500m", "memory": "768Mi"}, on(6, 7, 1), sidecar=True),
        # recommenders that must share a node with the model server, created before it: they fit once it binds
        Workload(
            "Deployment",
            "shop",
            "recommendation",
            {"cpu": "200m", "memory": "256Mi"},
            PENDING * 2,
            sidecar=True,
            spec={
                "affinity": {
                    "podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "labelSelector": {"matchLabels": {"app": "reco-model"}},
                                "topologyKey": "kubernetes.io/hostname",
                            }
                        ]
                    }
                }
            },
        ),
        Workload("Deployment", "shop", "reco-model", {"cpu": "600m", "memory": "2Gi"}, PENDING, sidecar=True),
        # claims bound to zonal EBS volumes: postgres-2's is in us-east-1c
        Workload(
            "StatefulSet",
            "shop",
            "postgres",
            {"cpu": "500m", "memory": "2Gi"},
            on(1, 3) + PENDING,
            spec={"affinity": anti_affinity("postgres", required=True)},
            priority_class="shop-critical",
            image="docker.io/library/postgres:17.6",
        ),
        # ---- batch: preemptible workers under a budget, a bigger job that preempts one, a pod too big for any node
        Workload(
            "Deployment",
            "batch",
            "report-worker",
            {"cpu": "1", "memory": "1Gi"},
            on(2, 3, 4, 5),
            priority_class="batch-low",
        ),
        Workload(
            "Deployment",
            "batch",
            "nightly-etl",
            {"cpu": "1600m", "memory": "3Gi"},
            PENDING,
            priority_class="batch-high",
        ),
        Workload("Deployment", "batch", "model-training", {"cpu": "6", "memory": "12Gi"}, PENDING),
    ]


# ---- --dense: the envelope's density (150,000 pods on 5,000 nodes is 30 a node)

TENANT_WORKLOADS = 24  # x 9 running replicas (11 for the first): 27 more pods a general node, 300 pods in all
TENANT_REPLICAS = 9
TENANT_REQUESTS = (
    {"cpu": "10m", "memory": "48Mi"},
    {"cpu": "5m", "memory": "32Mi"},
    {"cpu": "15m", "memory": "64Mi"},
    {"cpu": "10m", "memory": "16Mi"},
)
GENERAL_NODES = [i for i, (_, _, pool) in enumerate(NODES) if pool == "general"]


def tenant_workloads() -> list[Workload]:
    """A platform team's small services, as most pods of a big cluster are: nine replicas each over
    the general pool, by turns with a zone spread (ScheduleAnyway), a preferred per-node
    anti-affinity, a required node affinity to the pool, or nothing; the last one scaled up by a
    replica that fits (Pending until the scheduler places it)."""
    general_affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["general"]}]}]
            }
        }
    }
    out = []
    for i in range(TENANT_WORKLOADS):
        name = f"svc-{i:02d}"
        first = i * TENANT_REPLICAS + (2 if i else 0)
        replicas = TENANT_REPLICAS + (0 if i else 2)  # 300 pods in all, 81 of them the fixture's
        placement = on(*(GENERAL_NODES[(first + r) % len(GENERAL_NODES)] for r in range(replicas)))
        if i == TENANT_WORKLOADS - 1:
            placement += PENDING
        spec: dict[str, Any] = [
            {"topologySpreadConstraints": [spread("topology.kubernetes.io/zone", "ScheduleAnyway", name)]},
            {"affinity": anti_affinity(name, required=False)},
            {"affinity": general_affinity},
            {},
        ][i % 4]
        out.append(
            Workload(
                "Deployment", f"tenant-{i % 6}", name, TENANT_REQUESTS[i % len(TENANT_REQUESTS)], placement, spec=spec
            )
        )
    return out


def controllers(w: Workload, index: int) -> list[dict[str, Any]]:
    """The workload's Deployment and ReplicaSet (or StatefulSet, DaemonSet) and its Service."""
    replicas = len(w.placement)
    template = {"metadata": {"labels": w.pod_labels(0) if w.kind != "StatefulSet" else dict(w.labels)}}

    def meta(kind: str, name: str) -> dict[str, Any]:
        return {
            "creationTimestamp": CREATED,
            "generation": 3,
            "labels": dict(w.labels),
            "name": name,
            "namespace": w.namespace,
            "resourceVersion": str(10100211 + 97 * index),
            "uid": uid(kind, w.namespace, name),
        }

    out: list[dict[str, Any]] = []
    ready = sum(1 for p in w.placement if p)
    if w.kind == "Deployment":
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta("Deployment", w.name),
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": w.selector},
                "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
                "template": template,
            },
            "status": {"availableReplicas": ready, "replicas": replicas},
        }
        _, rs_name, _ = w.owner()
        rs_meta = meta("ReplicaSet", rs_name)
        rs_meta["labels"] = {**w.labels, "pod-template-hash": w.template_hash}
        rs_meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "Deployment",
                "name": w.name,
                "uid": uid("Deployment", w.namespace, w.name),
            }
        ]
        replicaset = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": rs_meta,
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {**w.selector, "pod-template-hash": w.template_hash}},
                "template": template,
            },
            "status": {"availableReplicas": ready, "readyReplicas": ready, "replicas": replicas},
        }
        out += [deployment, replicaset]
    elif w.kind == "StatefulSet":
        out.append(
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "metadata": meta("StatefulSet", w.name),
                "spec": {
                    "podManagementPolicy": "Parallel",
                    "replicas": replicas,
                    "selector": {"matchLabels": w.selector},
                    "serviceName": w.name,
                    "template": template,
                    "volumeClaimTemplates": [
                        {
                            "apiVersion": "v1",
                            "kind": "PersistentVolumeClaim",
                            "metadata": {"name": "data"},
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": {"storage": "100Gi"}},
                                "storageClassName": "gp3",
                            },
                        }
                    ],
                },
                "status": {"availableReplicas": ready, "readyReplicas": ready, "replicas": replicas},
            }
        )
    else:
        out.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": meta("DaemonSet", w.name),
                "spec": {
                    "selector": {"matchLabels": w.selector},
                    "template": template,
                    "updateStrategy": {"rollingUpdate": {"maxUnavailable": "10%"}, "type": "RollingUpdate"},
                },
                "status": {
                    "currentNumberScheduled": replicas,
                    "desiredNumberScheduled": replicas,
                    "numberReady": replicas,
                },
            }
        )
    if w.service:
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {
                    "creationTimestamp": CREATED,
                    "labels": dict(w.labels),
                    "name": w.name if w.name != "coredns" else "kube-dns",
                    "namespace": w.namespace,
                    "resourceVersion": str(10000123 + 13 * index),
                    "uid": uid("Service", w.namespace, w.name),
                },
                "spec": {
                    "clusterIP": f"172.20.{index}.{10 + index}",
                    "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}],
                    "selector": w.selector,
                    "type": "ClusterIP",
                },
                "status": {"loadBalancer": {}},
            }
        )
    return out


def cluster(dense: bool = False) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [node(name, zone, pool, i) for i, (name, zone, pool) in enumerate(NODES)]
    pods: list[dict[str, Any]] = []
    owners: list[dict[str, Any]] = []
    for index, w in enumerate(workloads() + (tenant_workloads() if dense else [])):
        owners += controllers(w, index)
        for ordinal, node_name in enumerate(w.placement):
            pods.append(pod(w, ordinal, node_name, len(pods)))
    # a finished backup Job's pod: Succeeded, not in the scheduler's cache
    done = pod(
        Workload("Deployment", "shop", "pg-backup", {"cpu": "250m", "memory": "256Mi"}, on(5)),
        0,
        NODES[5][0],
        len(pods),
    )
    done["metadata"]["name"] = "pg-backup-29390400-8xq2m"
    done["metadata"]["generateName"] = "pg-backup-29390400-"
    done["metadata"]["labels"] = {
        "batch.kubernetes.io/job-name": "pg-backup-29390400",
        "job-name": "pg-backup-29390400",
    }
    done["metadata"]["ownerReferences"][0].update(
        {"apiVersion": "batch/v1", "kind": "Job", "name": "pg-backup-29390400", "uid": uid("Job", "pg-backup")}
    )
    done["spec"]["restartPolicy"] = "OnFailure"
    done["status"]["phase"] = "Succeeded"
    pods.append(done)
    objects += pods
    objects += owners
    objects += priority_classes()
    objects += budgets()
    objects += volumes()
    return objects


def priority_classes() -> list[dict[str, Any]]:
    def pc(name: str, description: str, preemption: str = "PreemptLowerPriority") -> dict[str, Any]:
        return {
            "apiVersion": "scheduling.k8s.io/v1",
            "description": description,
            "kind": "PriorityClass",
            "metadata": {
                "creationTimestamp": CREATED,
                "name": name,
                "resourceVersion": "2201",
                "uid": uid("PriorityClass", name),
            },
            "preemptionPolicy": preemption,
            "value": PRIORITY[name],
        }

    return [
        pc(
            "system-cluster-critical",
            "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
        ),
        pc("system-node-critical", "Used for system critical pods that must not be moved from their current node."),
        pc("shop-critical", "The shop's customer-facing services."),
        pc("batch-high", "Nightly batch that must finish before the morning."),
        pc("batch-low", "Best-effort batch: the first to go.", "Never"),
    ]


def budgets() -> list[dict[str, Any]]:
    def pdb(namespace: str, name: str, app: str, healthy: int, expected: int, **spec: Any) -> dict[str, Any]:
        allowed = max(0, healthy - (spec.get("minAvailable") or expected - spec.get("maxUnavailable", 0)))
        return {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {
                "creationTimestamp": CREATED,
                "generation": 1,
                "name": name,
                "namespace": namespace,
                "resourceVersion": "10244012",
                "uid": uid("PDB", namespace, name),
            },
            "spec": {**spec, "selector": {"matchLabels": {"app": app}}},
            "status": {
                "currentHealthy": healthy,
                "desiredHealthy": healthy - allowed,
                "disruptionsAllowed": allowed,
                "expectedPods": expected,
                "observedGeneration": 1,
            },
        }

    return [
        pdb("kube-system", "coredns", "coredns", 2, 2, maxUnavailable=1),
        pdb("istio-system", "istiod", "istiod", 2, 2, minAvailable=1),
        pdb("istio-system", "istio-ingressgateway", "istio-ingressgateway", 3, 3, minAvailable=2),
        pdb("shop", "payments", "payments", 7, 9, maxUnavailable=1),
        pdb("shop", "checkout", "checkout", 5, 7, minAvailable=4),
        pdb("batch", "report-worker", "report-worker", 4, 4, minAvailable=3),
    ]


def volumes() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {
            "allowVolumeExpansion": True,
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {
                "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
                "creationTimestamp": CREATED,
                "name": "gp3",
                "resourceVersion": "1455",
                "uid": uid("StorageClass", "gp3"),
            },
            "parameters": {"encrypted": "true", "type": "gp3"},
            "provisioner": "ebs.csi.aws.com",
            "reclaimPolicy": "Delete",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
    ]
    for ordinal, zone in enumerate(ZONES):
        claim, volume = f"data-postgres-{ordinal}", f"pvc-{uid('pvc', str(ordinal))}"
        out.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "annotations": {
                        "pv.kubernetes.io/bind-completed": "yes",
                        "pv.kubernetes.io/bound-by-controller": "yes",
                        "volume.kubernetes.io/selected-node": NODES[(1, 3, 6)[ordinal]][0],
                        "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
                    },
                    "creationTimestamp": CREATED,
                    "finalizers": ["kubernetes.io/pvc-protection"],
                    "labels": {"app": "postgres"},
                    "name": claim,
                    "namespace": "shop",
                    "resourceVersion": str(3301 + ordinal),
                    "uid": uid("pvc", str(ordinal)),
                },
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "100Gi"}},
                    "storageClassName": "gp3",
                    "volumeMode": "Filesystem",
                    "volumeName": volume,
                },
                "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "100Gi"}, "phase": "Bound"},
            }
        )
        out.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {
                    "annotations": {
                        "pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com",
                        "volume.kubernetes.io/provisioner-deletion-secret-name": "",
                        "volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
                    },
                    "creationTimestamp": CREATED,
                    "finalizers": [
                        "external-provisioner.volume.kubernetes.io/finalizer",
                        "kubernetes.io/pv-protection",
                    ],
                    "name": volume,
                    "resourceVersion": str(3311 + ordinal),
                    "uid": uid("pv", str(ordinal)),
                },
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "capacity": {"storage": "100Gi"},
                    "claimRef": {
                        "apiVersion": "v1",
                        "kind": "PersistentVolumeClaim",
                        "name": claim,
                        "namespace": "shop",
                        "resourceVersion": str(3301 + ordinal),
                        "uid": uid("pvc", str(ordinal)),
                    },
                    "csi": {
                        "driver": "ebs.csi.aws.com",
                        "fsType": "ext4",
                        "volumeAttributes": {
                            "storage.kubernetes.io/csiProvisionerIdentity": "1759392849164-8081-ebs.csi.aws.com"
                        },
                        "volumeHandle": f"vol-0{uid('ebs', str(ordinal)).replace('-', '')[:16]}",
                    },
                    "nodeAffinity": {
                        "required": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}
                                    ]
                                }
                            ]
                        }
                    },
                    "persistentVolumeReclaimPolicy": "Delete",
                    "storageClassName": "gp3",
                    "volumeMode": "Filesystem",
                },
                "status": {"lastPhaseTransitionTime": CREATED, "phase": "Bound"},
            }
        )
    return out


class NoAliases(yaml.SafeDumper):
    """kubectl writes no YAML anchors: objects shared in the generator are written out each time.
    A mapping or list of scalars only is written on one line (``{cpu: 100m, memory: 128Mi}``), as
    the other dumps of tests/fixtures/dumps are trimmed, to keep the fixture small."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _leaf(values: Any) -> bool:
    return all(not isinstance(v, (dict, list)) for v in values)


def _mapping(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    flow = bool(data) and _leaf(data.values()) and len(data) <= 6
    return dumper.represent_mapping("tag:yaml.org,2002:map", sorted(data.items()), flow_style=flow)


def _sequence(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=bool(data) and _leaf(data))


NoAliases.add_representer(dict, _mapping)
NoAliases.add_representer(list, _sequence)


def _pending_of(items: list[dict[str, Any]]) -> str:
    """ "N of its M pods", as the header says it."""
    pods = [item for item in items if item["kind"] == "Pod"]
    pending = sum(1 for item in pods if item["status"]["phase"] == "Pending")
    return f"{pending} of its {len(pods)} pods"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="the file to write (default: standard output)")
    parser.add_argument("--json", action="store_true", help="kubectl's JSON (default: its YAML)")
    parser.add_argument(
        "--dense",
        action="store_true",
        help="with 24 small services more: 30 pods a node, the envelope's density (not the fixture)",
    )
    args = parser.parse_args(argv)
    items = cluster(args.dense)
    listed = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    if args.json:
        text = json.dumps(listed, indent=4) + "\n"
    else:
        header = HEADER if not args.dense else HEADER.replace("10 of its 81 pods", _pending_of(items))
        text = header + yaml.dump(listed, Dumper=NoAliases, sort_keys=True, default_flow_style=False, width=200)
    if args.out is None:
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as out:
            out.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
