"""Random scenarios for differential testing (a development tool, not part of the app).

    .venv/bin/python tools/random_scenarios.py KIND OUT_DIR --seed 1 --count 100

KIND is one of ``general``, ``big`` (100-260 nodes, percentageOfNodesToScore below 100),
``preemption``, ``volumes``, ``config`` (profiles, plugin sets, weights and plugin args) and
``dra`` (GPU-like clusters with resource slices, device classes, claims and templates). The same arguments always write the same files. They were made to
diff SchedLab against the real kube-scheduler framework (docs/FIDELITY.md, "Checked against the real
scheduler") and reach what the conformance generator does not: pod-level resources, sidecars with
ports, overhead, hugepages, extended resources, images named every way, Gt/Lt and matchFields,
matchLabelKeys/mismatchLabelKeys, spreading policies, PriorityClasses, PDBs, hostNetwork,
terminating pods, nominations, scoring strategies and disabled plugins. Every scenario is input
the API server accepts.
"""

from __future__ import annotations

import argparse
from typing import Optional
import random
from pathlib import Path

import yaml

ZONES = ["z1", "z2", "z3"]
APPS = ["web", "db", "cache", "api"]
TEAMS = ["red", "blue"]
IMAGES = [
    "nginx",
    "nginx:1.27",
    "docker.io/library/nginx:latest",
    "registry.example:5000/app:v1",
    "quay.io/prom/node-exporter:v1.9.1",
    "busybox@sha256:" + "a" * 64,
    "gcr.io/x/ml:0.9",
    "redis:7",
]
NAMESPACES = {
    "default": None,
    "prod": {"env": "prod", "team": "red"},
    "dev": {"env": "dev", "team": "blue"},
    "undeclared": None,
}
EXT = ["example.com/gpu", "nvidia.com/gpu"]


class ClusterGenerator:
    """Random clusters with the features real clusters have (nodes, running and pending pods,
    PriorityClasses, workloads, PDBs, an optional KubeSchedulerConfiguration)."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed

    def p(self, prob):
        return self.r.random() < prob

    def pick(self, seq):
        return self.r.choice(seq)

    def cpu(self, lo=50, hi=3000):
        m = self.r.randrange(lo, hi, 50)
        return f"{m}m" if m % 1000 else str(m // 1000)

    def mem(self, lo=64, hi=4096):
        return f"{self.r.randrange(lo, hi, 64)}Mi"

    def node(self, i):
        name = f"n{i}"
        zone = self.pick(ZONES)
        labels = {
            "kubernetes.io/hostname": name,
            "topology.kubernetes.io/zone": zone,
            "topology.kubernetes.io/region": "r1" if zone != "z3" else "r2",
        }
        if self.p(0.5):
            labels["disk"] = self.pick(["ssd", "hdd"])
        if self.p(0.4):
            labels["cores"] = str(self.pick([2, 4, 8, 16]))
        if self.p(0.2):
            del labels["topology.kubernetes.io/zone"]
        if self.p(0.1):
            labels["node-role.kubernetes.io/control-plane"] = ""
        alloc = {
            "cpu": str(self.pick([2, 4, 8])),
            "memory": self.pick(["4Gi", "8Gi", "16Gi"]),
            "pods": str(self.pick([5, 10, 110])),
        }
        if self.p(0.5):
            alloc["ephemeral-storage"] = self.pick(["10Gi", "50Gi"])
        if self.p(0.3):
            alloc[self.pick(EXT)] = str(self.pick([1, 2, 4]))
        if self.p(0.15):
            alloc["hugepages-2Mi"] = self.pick(["256Mi", "1Gi"])
        spec = {}
        if self.p(0.35):
            taints, seen = [], set()
            for _ in range(self.r.randint(1, 2)):
                t = {
                    "key": self.pick(["dedicated", "gpu", "node.kubernetes.io/not-ready", "spot"]),
                    "effect": self.pick(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
                }
                if self.p(0.6):
                    t["value"] = self.pick(["a", "b", "true"])
                if (t["key"], t["effect"]) not in seen:
                    seen.add((t["key"], t["effect"]))
                    taints.append(t)
            spec["taints"] = taints
        if self.p(0.08):
            spec["unschedulable"] = True
        status = {"allocatable": alloc, "capacity": dict(alloc)}
        if self.p(0.5):
            status["images"] = [
                {"names": [self.pick(IMAGES)], "sizeBytes": self.pick([5, 50, 300, 900]) * 1024 * 1024}
                for _ in range(self.r.randint(1, 3))
            ]
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": status,
        }

    def requests(self, scale=1.0):
        req = {}
        if self.p(0.85):
            req["cpu"] = self.cpu(50, int(1500 * scale) + 100)
        if self.p(0.8):
            req["memory"] = self.mem(64, int(2048 * scale) + 128)
        if self.p(0.1):
            req["ephemeral-storage"] = self.pick(["1Gi", "5Gi"])
        if self.p(0.08):
            req[self.pick(EXT)] = str(self.pick([1, 2]))
        if self.p(0.05):
            req["hugepages-2Mi"] = "128Mi"
        return req

    def container(self, name, ports=False):
        c = {"name": name, "image": self.pick(IMAGES)}
        req = self.requests()
        if req:
            res = {"requests": req}
            ext = {k: v for k, v in req.items() if k in EXT or k.startswith("hugepages")}
            if ext:
                res["limits"] = dict(ext)
            if self.p(0.1) and "hugepages-2Mi" not in req:
                res = {"limits": {k: v for k, v in req.items()}}  # requests default to limits
            c["resources"] = res
        if ports and self.p(0.2):
            port = {"containerPort": 8080, "hostPort": self.pick([80, 443, 8080])}
            if self.p(0.3):
                port["protocol"] = self.pick(["TCP", "UDP"])
            if self.p(0.2):
                port["hostIP"] = self.pick(["10.0.0.1", "0.0.0.0", "127.0.0.1"])
            c["ports"] = [port]
        return c

    def labels(self):
        labels = {"app": self.pick(APPS)}
        if self.p(0.5):
            labels["team"] = self.pick(TEAMS)
        if self.p(0.3):
            labels["version"] = self.pick(["v1", "v2"])
        if self.p(0.3):
            labels["pod-template-hash"] = self.pick(["abc", "def"])
        return labels

    def selector(self):
        if self.p(0.7):
            return {"matchLabels": {"app": self.pick(APPS)}}
        op = self.pick(["In", "NotIn", "Exists", "DoesNotExist"])
        expr = {"key": self.pick(["app", "team"]), "operator": op}
        if op in ("In", "NotIn"):
            expr["values"] = self.r.sample(APPS + TEAMS, self.r.randint(1, 2))
        return {"matchExpressions": [expr]}

    def node_requirement(self):
        key, op = self.pick(
            [
                ("disk", "In"),
                ("disk", "NotIn"),
                ("cores", "Gt"),
                ("cores", "Lt"),
                ("topology.kubernetes.io/zone", "In"),
                ("disk", "Exists"),
                ("node-role.kubernetes.io/control-plane", "DoesNotExist"),
            ]
        )
        req = {"key": key, "operator": op}
        if op in ("In", "NotIn"):
            req["values"] = self.r.sample(["ssd", "hdd"] if key == "disk" else ZONES, self.r.randint(1, 2))
        elif op in ("Gt", "Lt"):
            req["values"] = [str(self.pick([3, 6, 12]))]
        return req

    def node_term(self):
        if self.p(0.1):
            return {
                "matchFields": [
                    {
                        "key": "metadata.name",
                        "operator": self.pick(["In", "NotIn"]),
                        "values": [f"n{self.r.randint(0, 5)}"],
                    }
                ]
            }
        return {"matchExpressions": [self.node_requirement() for _ in range(self.r.randint(1, 2))]}

    def affinity_term(self):
        term = {
            "labelSelector": self.selector(),
            "topologyKey": self.pick(
                ["kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/region"]
            ),
        }
        if self.p(0.2):
            term["namespaces"] = self.r.sample(list(NAMESPACES), self.r.randint(1, 2))
        if self.p(0.15):
            term["namespaceSelector"] = self.pick([{}, {"matchLabels": {"env": "prod"}}])
        if self.p(0.15):
            term["matchLabelKeys"] = ["version"]
        elif self.p(0.1):
            term["mismatchLabelKeys"] = ["team"]
        return term

    def affinity(self, pending):
        aff = {}
        if pending and self.p(0.3):
            na = {}
            if self.p(0.6):
                na["requiredDuringSchedulingIgnoredDuringExecution"] = {
                    "nodeSelectorTerms": [self.node_term() for _ in range(self.r.randint(1, 2))]
                }
            if self.p(0.6):
                na["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": self.r.randint(1, 100), "preference": self.node_term()}
                    for _ in range(self.r.randint(1, 2))
                ]
            if na:
                aff["nodeAffinity"] = na
        for kind in ("podAffinity", "podAntiAffinity"):
            if self.p(0.25 if pending else 0.12):
                pa = {}
                if self.p(0.5):
                    pa["requiredDuringSchedulingIgnoredDuringExecution"] = [self.affinity_term()]
                if self.p(0.6):
                    pa["preferredDuringSchedulingIgnoredDuringExecution"] = [
                        {"weight": self.r.randint(1, 100), "podAffinityTerm": self.affinity_term()}
                    ]
                if pa:
                    aff[kind] = pa
        return aff

    def spread(self, labels):
        c = {
            "maxSkew": self.r.randint(1, 3),
            "topologyKey": self.pick(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
            "whenUnsatisfiable": self.pick(["DoNotSchedule", "ScheduleAnyway"]),
            "labelSelector": {"matchLabels": {"app": labels["app"]}} if self.p(0.85) else self.selector(),
        }
        if c["whenUnsatisfiable"] == "DoNotSchedule" and self.p(0.2):
            c["minDomains"] = self.r.randint(1, 4)
        if self.p(0.2):
            c["nodeAffinityPolicy"] = self.pick(["Honor", "Ignore"])
        if self.p(0.2):
            c["nodeTaintsPolicy"] = self.pick(["Honor", "Ignore"])
        if self.p(0.15):
            c["matchLabelKeys"] = ["pod-template-hash"]
        return c

    def tolerations(self):
        out = []
        for _ in range(self.r.randint(1, 2)):
            t = {}
            if self.p(0.1):
                t = {"operator": "Exists"}
            else:
                t["key"] = self.pick(
                    ["dedicated", "gpu", "node.kubernetes.io/not-ready", "spot", "node.kubernetes.io/unschedulable"]
                )
                if self.p(0.4):
                    t["operator"] = "Exists"
                else:
                    t["value"] = self.pick(["a", "b", "true"])
                    if self.p(0.5):
                        t["operator"] = "Equal"
            if self.p(0.6):
                t["effect"] = self.pick(["NoSchedule", "PreferNoSchedule", "NoExecute"])
            if t.get("effect") == "NoExecute" and self.p(0.3):
                t["tolerationSeconds"] = 300
            out.append(t)
        return out

    def pod(self, name, node=None, pending=False):
        ns = self.pick(list(NAMESPACES)) if self.p(0.4) else "default"
        labels = self.labels()
        meta = {"name": name, "namespace": ns, "labels": labels}
        spec = {"containers": [self.container("c0", ports=True)]}
        if self.p(0.2):
            spec["containers"].append(self.container("c1"))
        if self.p(0.2):
            init = self.container("init0")
            init.pop("ports", None)
            if self.p(0.5):
                init["restartPolicy"] = "Always"
            spec["initContainers"] = [init]
        if self.p(0.1):
            spec["resources"] = {"requests": {"cpu": self.cpu(500, 3000), "memory": self.mem(512, 3072)}}
            if self.p(0.5):
                spec["resources"]["limits"] = dict(spec["resources"]["requests"])
                spec["resources"].pop("requests") if self.p(0.5) else None
        if self.p(0.07):
            spec["overhead"] = {"cpu": "100m", "memory": "64Mi"}
        if node:
            spec["nodeName"] = node
        prio = self.pick([0, 0, 0, 100, 1000, -5])
        if self.p(0.2):
            spec["priorityClassName"] = self.pick(["high", "low"])
        else:
            spec["priority"] = prio
        if pending and self.p(0.08):
            spec["preemptionPolicy"] = "Never"
        if pending and self.p(0.25):
            spec["nodeSelector"] = self.pick(
                [
                    {"disk": "ssd"},
                    {"topology.kubernetes.io/zone": self.pick(ZONES)},
                    {"kubernetes.io/hostname": f"n{self.r.randint(0, 6)}"},
                ]
            )
        aff = self.affinity(pending)
        if aff:
            spec["affinity"] = aff
        if self.p(0.35):
            spec["tolerations"] = self.tolerations()
        if pending and self.p(0.35):
            constraints = {}
            for _ in range(self.r.randint(1, 2)):
                c = self.spread(labels)
                constraints[(c["topologyKey"], c["whenUnsatisfiable"])] = c
            spec["topologySpreadConstraints"] = list(constraints.values())
        if self.p(0.15):
            meta["ownerReferences"] = [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"{labels['app']}-rs",
                    "uid": f"uid-{labels['app']}-rs",
                    "controller": True,
                }
            ]
        if self.p(0.1):
            spec["hostNetwork"] = True
            for c in spec["containers"]:
                for port in c.get("ports", []):
                    if self.p(0.5):
                        port["hostPort"] = port["containerPort"]
                    else:
                        port.pop("hostPort", None)
        if spec.get("initContainers") and spec["initContainers"][0].get("restartPolicy") == "Always" and self.p(0.3):
            spec["initContainers"][0]["ports"] = [{"containerPort": 15000, "hostPort": 15000}]
        if node and self.p(0.08):
            meta["deletionTimestamp"] = "2026-11-22T12:00:00Z"
            meta["deletionGracePeriodSeconds"] = 30
        if pending and self.p(0.08):
            pod_status = {"nominatedNodeName": f"n{self.r.randint(0, 5)}"}
        else:
            pod_status = None
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        if pod_status:
            pod["status"] = pod_status
        if node:
            status = {"phase": self.pick(["Running", "Running", "Running", "Pending", "Succeeded"])}
            if self.p(0.7):
                status["startTime"] = f"2026-11-{self.r.randint(1, 20):02d}T12:00:00Z"
            pod["status"] = status
        return pod

    def scenario(self):
        docs = []
        for ns, labels in NAMESPACES.items():
            if ns == "undeclared":
                continue
            meta = {"name": ns}
            if labels:
                meta["labels"] = labels
            docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
        docs.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "high"},
                "value": 500,
                **({"preemptionPolicy": "Never"} if self.p(0.2) else {}),
            }
        )
        docs.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "low"},
                "value": -10,
                "globalDefault": self.p(0.3),
            }
        )
        n_nodes = self.r.randint(2, 9)
        nodes = [self.node(i) for i in range(n_nodes)]
        docs += nodes
        for i in range(self.r.randint(0, 3 * n_nodes)):
            docs.append(self.pod(f"run-{i}", node=self.pick(nodes)["metadata"]["name"]))
        if self.p(0.3):
            for app in self.r.sample(APPS, 2):
                docs.append(
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "metadata": {"name": f"{app}-rs", "namespace": "default", "uid": f"uid-{app}-rs"},
                        "spec": {
                            "selector": {"matchLabels": {"app": app}},
                            "template": {
                                "metadata": {"labels": {"app": app}},
                                "spec": {"containers": [{"name": "c", "image": "x"}]},
                            },
                        },
                    }
                )
        if self.p(0.2):
            docs.append(
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {"name": "svc", "namespace": "default"},
                    "spec": {"selector": {"app": self.pick(APPS)}},
                }
            )
        if self.p(0.3):
            docs.append(
                {
                    "apiVersion": "policy/v1",
                    "kind": "PodDisruptionBudget",
                    "metadata": {"name": "pdb", "namespace": "default"},
                    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": self.pick(APPS)}}},
                    "status": {
                        "disruptionsAllowed": self.r.randint(0, 1),
                        "currentHealthy": 1,
                        "desiredHealthy": 1,
                        "expectedPods": 1,
                    },
                }
            )
        for i in range(self.r.randint(1, 5)):
            docs.append(self.pod(f"pending-{i}", pending=True))
        if self.p(0.35):
            docs.append(self.config())
        return docs

    def config(self):
        profile = {"schedulerName": "default-scheduler"}
        plugins, args = {}, []
        if self.p(0.4):
            strategy = self.pick(
                [
                    {"type": "MostAllocated"},
                    {
                        "type": "LeastAllocated",
                        "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
                    },
                    {
                        "type": "RequestedToCapacityRatio",
                        "requestedToCapacityRatio": {
                            "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
                        },
                    },
                    {
                        "type": "MostAllocated",
                        "resources": [{"name": "cpu", "weight": 1}, {"name": "example.com/gpu", "weight": 3}],
                    },
                ]
            )
            args.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}})
        if self.p(0.3):
            args.append(
                {
                    "name": "InterPodAffinity",
                    "args": {
                        "hardPodAffinityWeight": self.r.randint(0, 100),
                        "ignorePreferredTermsOfExistingPods": self.p(0.5),
                    },
                }
            )
        if self.p(0.3):
            pts = {"defaultingType": "List"}
            if self.p(0.7):
                pts["defaultConstraints"] = [
                    {
                        "maxSkew": self.r.randint(1, 3),
                        "topologyKey": self.pick(["topology.kubernetes.io/zone", "kubernetes.io/hostname"]),
                        "whenUnsatisfiable": self.pick(["ScheduleAnyway", "DoNotSchedule"]),
                    }
                ]
            args.append({"name": "PodTopologySpread", "args": pts})
        if self.p(0.2):
            args.append(
                {
                    "name": "NodeResourcesBalancedAllocation",
                    "args": {
                        "resources": [
                            {"name": "cpu", "weight": 1},
                            {"name": "memory", "weight": 1},
                            {"name": "example.com/gpu", "weight": 1},
                        ]
                    },
                }
            )
        if self.p(0.3):
            plugins["score"] = {
                "enabled": [
                    {
                        "name": self.pick(["InterPodAffinity", "NodeAffinity", "TaintToleration", "ImageLocality"]),
                        "weight": self.r.randint(1, 10),
                    }
                ]
            }
        if self.p(0.2):
            plugins.setdefault("score", {})["disabled"] = [
                {"name": self.pick(["ImageLocality", "NodeResourcesBalancedAllocation", "PodTopologySpread"])}
            ]
        if self.p(0.1):
            plugins["filter"] = {"disabled": [{"name": self.pick(["NodePorts", "TaintToleration"])}]}
        if self.p(0.08):
            plugins["score"] = {"disabled": [{"name": "*"}]}
        if plugins:
            profile["plugins"] = plugins
        if args:
            profile["pluginConfig"] = args
        cfg = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [profile],
        }
        if self.p(0.3):
            cfg["percentageOfNodesToScore"] = self.pick([0, 50, 100])
        return cfg


VOLUME_ZONES = ["za", "zb", "zc"]
DRIVER = "csi.example.com"


class VolumeGenerator:
    """Clusters whose pods use claims: Immediate and WaitForFirstConsumer classes, local and CSI
    volumes pinned by node affinity, CSI attach limits, ReadWriteOncePod, in-tree disks."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def p(self, x):
        return self.r.random() < x

    def pick(self, s):
        return self.r.choice(s)

    def scenario(self):
        docs = []
        n = self.r.randint(2, 7)
        nodes = []
        for i in range(n):
            zone = self.pick(VOLUME_ZONES)
            labels = {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": zone}
            if self.p(0.5):
                labels[f"topology.{DRIVER}/zone"] = zone
            node = {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"n{i}", "labels": labels},
                "spec": {},
                "status": {
                    "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                    "capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                },
            }
            if self.p(0.2):
                node["spec"]["taints"] = [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]
            nodes.append(node)
            if self.p(0.6):
                drv = {"name": DRIVER, "nodeID": f"n{i}", "topologyKeys": [f"topology.{DRIVER}/zone"]}
                if self.p(0.6):
                    drv["allocatable"] = {"count": self.r.randint(1, 4)}
                docs.append(
                    {
                        "apiVersion": "storage.k8s.io/v1",
                        "kind": "CSINode",
                        "metadata": {"name": f"n{i}"},
                        "spec": {"drivers": [drv]},
                    }
                )
        docs = nodes + docs
        if self.p(0.5):
            docs.append(
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "CSIDriver",
                    "metadata": {"name": DRIVER},
                    "spec": {"attachRequired": self.p(0.7), "storageCapacity": False},
                }
            )
        classes = []
        for name in ("fast", "wait", "local"):
            if name == "fast" or self.p(0.7):
                sc = {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "StorageClass",
                    "metadata": {"name": name},
                    "provisioner": "kubernetes.io/no-provisioner" if name == "local" else DRIVER,
                    "volumeBindingMode": "Immediate" if name == "fast" else "WaitForFirstConsumer",
                }
                if name == "wait" and self.p(0.3):
                    sc["allowedTopologies"] = [
                        {
                            "matchLabelExpressions": [
                                {"key": "topology.kubernetes.io/zone", "values": self.r.sample(VOLUME_ZONES, 2)}
                            ]
                        }
                    ]
                if name == "fast" and self.p(0.3):
                    sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
                classes.append(name)
                docs.append(sc)
        pvs, claims = [], []
        for i in range(self.r.randint(1, 8)):
            cls = self.pick(classes)
            pv = {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": f"pv{i}"},
                "spec": {
                    "capacity": {"storage": self.pick(["1Gi", "5Gi", "10Gi"])},
                    "accessModes": [self.pick(["ReadWriteOnce", "ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"])],
                    "storageClassName": cls,
                    "persistentVolumeReclaimPolicy": "Delete",
                },
                "status": {"phase": "Available"},
            }
            if cls == "local" or self.p(0.4):
                target = self.pick(nodes)["metadata"]
                if self.p(0.5):
                    term = {"key": "kubernetes.io/hostname", "operator": "In", "values": [target["name"]]}
                else:
                    term = {
                        "key": "topology.kubernetes.io/zone",
                        "operator": "In",
                        "values": [target["labels"]["topology.kubernetes.io/zone"]],
                    }
                pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [term]}]}}
            if self.p(0.3):
                pv["metadata"]["labels"] = {"topology.kubernetes.io/zone": self.pick(VOLUME_ZONES)}
            if cls == "local":
                pv["spec"]["local"] = {"path": f"/mnt/disk{i}"}
            else:
                pv["spec"]["csi"] = {"driver": DRIVER, "volumeHandle": f"vol-{i}"}
            pvs.append(pv)
        for i in range(self.r.randint(1, 8)):
            cls = self.pick(classes + [None])
            claim = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": f"c{i}", "namespace": "default", "uid": f"uid-c{i}"},
                "spec": {
                    "accessModes": [self.pick(["ReadWriteOnce", "ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"])],
                    "resources": {"requests": {"storage": self.pick(["1Gi", "2Gi", "8Gi"])}},
                },
                "status": {"phase": "Pending"},
            }
            if cls:
                claim["spec"]["storageClassName"] = cls
            free = [pv for pv in pvs if "claimRef" not in pv["spec"]]
            if free and self.p(0.4):
                pv = self.pick(free)
                pv["spec"]["claimRef"] = {
                    "kind": "PersistentVolumeClaim",
                    "namespace": "default",
                    "name": f"c{i}",
                    "uid": f"uid-c{i}",
                }
                pv["status"]["phase"] = "Bound"
                claim["spec"]["volumeName"] = pv["metadata"]["name"]
                claim["spec"]["storageClassName"] = pv["spec"]["storageClassName"]
                claim["spec"]["accessModes"] = pv["spec"]["accessModes"]
                claim["status"] = {
                    "phase": "Bound",
                    "accessModes": pv["spec"]["accessModes"],
                    "capacity": pv["spec"]["capacity"],
                }
                claim["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
            claims.append(claim)
        docs += pvs + claims

        def pod(name, node=None):
            spec = {
                "containers": [
                    {"name": "c", "image": "app", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}
                ]
            }
            vols = []
            for j, claim in enumerate(self.r.sample(claims, min(len(claims), self.r.randint(0, 2)))):
                vols.append({"name": f"v{j}", "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}})
            if self.p(0.15):
                vols.append({"name": "disk", "gcePersistentDisk": {"pdName": self.pick(["pd-a", "pd-b"])}})
            if self.p(0.1):
                vols.append({"name": "ebs", "awsElasticBlockStore": {"volumeID": self.pick(["vol-a", "vol-b"])}})
            if vols:
                spec["volumes"] = vols
            if node:
                spec["nodeName"] = node
            if self.p(0.2):
                spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
            out = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {"app": "db"}},
                "spec": spec,
            }
            if node:
                out["status"] = {"phase": "Running"}
            return out

        for i in range(self.r.randint(0, 6)):
            docs.append(pod(f"run-{i}", node=self.pick(nodes)["metadata"]["name"]))
        used = set()
        for i in range(self.r.randint(1, 5)):
            p = pod(f"pending-{i}")
            names = {
                v["persistentVolumeClaim"]["claimName"]
                for v in p["spec"].get("volumes", [])
                if "persistentVolumeClaim" in v
            }
            if (
                names & used
            ):  # a claim an earlier pending pod binds: the spec's stand-in controller decides what follows
                continue
            used |= names
            docs.append(p)
        return docs


def preemption_scenario(seed: int) -> list[dict]:
    """Full nodes, lower-priority victims (some with equal start times), PDBs, nominations."""
    r = random.Random(seed)
    docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod", "labels": {"env": "prod"}}}]
    n = r.randint(2, 8)
    zones = ["a", "b"]
    nodes = []
    for i in range(n):
        z = r.choice(zones)
        nodes.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"n{i}",
                    "labels": {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": z},
                },
                "spec": {},
                "status": {
                    "allocatable": {"cpu": str(r.choice([2, 4])), "memory": "8Gi", "pods": str(r.choice([4, 8, 110]))},
                    "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                },
            }
        )
    docs += nodes
    apps = ["web", "db", "batch"]
    for i in range(r.randint(n, 5 * n)):
        node = r.choice(nodes)["metadata"]["name"]
        spec = {
            "nodeName": node,
            "priority": r.choice([-10, 0, 0, 10, 100, 1000]),
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {
                        "requests": {
                            "cpu": r.choice(["250m", "500m", "1", "1500m"]),
                            "memory": r.choice(["256Mi", "1Gi"]),
                        }
                    },
                }
            ],
        }
        if r.random() < 0.15:
            spec["affinity"] = {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": r.choice(apps)}},
                            "topologyKey": r.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
                        }
                    ]
                }
            }
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"run-{i}",
                "namespace": r.choice(["default", "prod"]),
                "labels": {"app": r.choice(apps)},
            },
            "spec": spec,
            "status": {"phase": "Running"},
        }
        if r.random() < 0.7:
            pod["status"]["startTime"] = f"2026-11-{r.randint(1, 3):02d}T{r.choice([10, 12]):02d}:00:00Z"
        docs.append(pod)
    for j in range(r.randint(0, 2)):
        docs.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb{j}", "namespace": r.choice(["default", "prod"])},
                "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": r.choice(apps)}}},
                "status": {
                    "disruptionsAllowed": r.randint(0, 2),
                    "currentHealthy": 2,
                    "desiredHealthy": 1,
                    "expectedPods": 2,
                },
            }
        )
    for i in range(r.randint(1, 5)):
        spec = {
            "priority": r.choice([5, 50, 500, 2000]),
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {
                        "requests": {"cpu": r.choice(["500m", "1", "2", "3"]), "memory": r.choice(["512Mi", "2Gi"])}
                    },
                }
            ],
        }
        if r.random() < 0.15:
            spec["preemptionPolicy"] = "Never"
        if r.random() < 0.3:
            spec["affinity"] = {
                "podAffinity" if r.random() < 0.4 else "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": r.choice(apps)}},
                            "topologyKey": r.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
                        }
                    ]
                }
            }
        if r.random() < 0.2:
            spec["topologySpreadConstraints"] = [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "web"}},
                }
            ]
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"pending-{i}",
                "namespace": r.choice(["default", "prod"]),
                "labels": {"app": r.choice(apps)},
            },
            "spec": spec,
        }
        if r.random() < 0.2:
            pod["status"] = {"nominatedNodeName": r.choice(nodes)["metadata"]["name"]}
        docs.append(pod)
    return docs


def big_scenario(seed: int) -> list[dict]:
    """100-260 nodes (sometimes grouped by zone in the document) and percentageOfNodesToScore
    0-50, where the walk order and the stopping point of Filter decide what is evaluated."""
    g = ClusterGenerator(seed)
    docs = [d for d in g.scenario() if d["kind"] not in ("Node", "Pod", "KubeSchedulerConfiguration")]
    nodes = [g.node(i) for i in range(g.r.randint(100, 260))]
    if g.p(0.5):
        nodes.sort(key=lambda d: d["metadata"]["labels"].get("topology.kubernetes.io/zone", ""))
    docs += nodes
    for i in range(g.r.randint(0, 2 * len(nodes))):
        docs.append(g.pod(f"run-{i}", node=g.pick(nodes)["metadata"]["name"]))
    for i in range(g.r.randint(2, 8)):
        docs.append(g.pod(f"pending-{i}", pending=True))
    config = (
        g.config()
        if g.p(0.5)
        else {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler"}],
        }
    )
    config["percentageOfNodesToScore"] = g.pick([0, 5, 10, 30, 50])
    docs.append(config)
    return docs


SCORE_PLUGINS = [
    "NodeResourcesFit",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
    "TaintToleration",
    "NodeAffinity",
    "PodTopologySpread",
    "InterPodAffinity",
]
FILTER_PLUGINS = [
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "PodTopologySpread",
    "InterPodAffinity",
]


def _profile(g: ClusterGenerator, name: str) -> dict:
    """A profile with random plugin sets (multiPoint, per point, weights, disabling) and args."""
    profile: dict = {"schedulerName": name}
    plugins: dict = {}
    if g.p(0.3):
        plugins["multiPoint"] = {"enabled": [{"name": g.pick(SCORE_PLUGINS), "weight": g.r.randint(1, 5)}]}
        if g.p(0.5):
            plugins["multiPoint"]["disabled"] = [
                {"name": g.pick(["ImageLocality", "NodeResourcesBalancedAllocation", "NodePorts"])}
            ]
    if g.p(0.4):
        plugins["score"] = {
            "enabled": [{"name": n, "weight": g.r.randint(1, 10)} for n in g.r.sample(SCORE_PLUGINS, g.r.randint(1, 3))]
        }
        if g.p(0.3):
            plugins["score"]["disabled"] = [{"name": g.pick(SCORE_PLUGINS + ["*"])}]
    if g.p(0.2):
        plugins["filter"] = {"disabled": [{"name": g.pick(FILTER_PLUGINS)}]}
    if plugins:
        profile["plugins"] = plugins
    args = []
    if g.p(0.4):
        added: dict = {}
        if g.p(0.7):
            added["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [g.node_term()]}
        if g.p(0.5):
            added["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": g.r.randint(1, 100), "preference": g.node_term()}
            ]
        args.append({"name": "NodeAffinity", "args": {"addedAffinity": added}})
    if g.p(0.4):
        fit: dict = {
            "scoringStrategy": g.pick(
                [
                    {"type": "LeastAllocated"},
                    {"type": "MostAllocated"},
                    {
                        "type": "LeastAllocated",
                        "resources": [{"name": "cpu", "weight": 1}, {"name": "example.com/gpu", "weight": 2}],
                    },
                ]
            )
        }
        if g.p(0.5):
            fit["ignoredResources"] = ["example.com/gpu"]
        if g.p(0.3):
            fit["ignoredResourceGroups"] = ["nvidia.com"]
        args.append({"name": "NodeResourcesFit", "args": fit})
    if g.p(0.4):
        spread: dict = {"defaultingType": g.pick(["System", "List"])}
        if spread["defaultingType"] == "List" and g.p(0.8):
            spread["defaultConstraints"] = [
                {
                    "maxSkew": g.r.randint(1, 2),
                    "topologyKey": g.pick(["topology.kubernetes.io/zone", "kubernetes.io/hostname"]),
                    "whenUnsatisfiable": g.pick(["DoNotSchedule", "ScheduleAnyway"]),
                }
            ]
        args.append({"name": "PodTopologySpread", "args": spread})
    if g.p(0.3):
        args.append({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": g.r.randint(0, 100)}})
    if g.p(0.2):
        args.append(
            {
                "name": "DefaultPreemption",
                "args": {
                    "minCandidateNodesPercentage": g.r.randint(0, 100),
                    "minCandidateNodesAbsolute": g.r.randint(1, 100),
                },
            }
        )
    if args:
        profile["pluginConfig"] = args
    if g.p(0.2):
        profile["percentageOfNodesToScore"] = g.pick([0, 50, 100])
    return profile


def config_scenario(seed: int) -> list[dict]:
    """Scheduler configurations: one or two profiles (pods pick theirs by schedulerName, some a
    scheduler nobody runs), multiPoint and per-point plugin sets with weights, NodeAffinity's
    addedAffinity, Fit's ignored resources, spreading defaults, per-profile percentages."""
    g = ClusterGenerator(seed)
    docs = [d for d in g.scenario() if d["kind"] != "KubeSchedulerConfiguration"]
    names = ["default-scheduler"] + (["batch-scheduler"] if g.p(0.4) else [])
    for doc in docs:
        if doc["kind"] == "Pod" and "nodeName" not in doc["spec"] and g.p(0.5):
            doc["spec"]["schedulerName"] = g.pick(names + (["nobody-runs-this"] if g.p(0.1) else []))
    docs.append(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [_profile(g, name) for name in names],
        }
    )
    return docs


GPU_DRIVER = "gpu.example.com"
GPU_MODELS = {"h100": "80Gi", "a100": "40Gi", "l4": "24Gi"}
FINALIZER = "resource.kubernetes.io/delete-protection"


class DraGenerator:
    """Random GPU-like clusters for Dynamic Resource Allocation: one node-local slice per GPU node
    (sometimes a pool of two slices, sometimes incomplete, sometimes a network-attached all-nodes
    pool), device classes with CEL selectors (model, memory as a quantity, driver version as
    semver), running pods holding allocated claims (from templates or shared), an allocated claim
    nobody reserves, an unallocated shared claim, and pending pods asking by count, All, selector,
    same-NUMA constraint or firstAvailable, some of a class or template that does not exist, beside
    low-priority cpu fillers that preemption may evict."""

    def __init__(self, seed: int) -> None:
        self.g = ClusterGenerator(seed)
        self.r = self.g.r
        self.docs: list[dict] = []
        self.free: dict[str, list[str]] = {}  # node -> free device names
        self.models: dict[str, str] = {}

    def scenario(self) -> list[dict]:
        nodes = [self._node(i) for i in range(self.r.randint(3, 14))]
        self._classes()
        self._templates()
        if self.r.random() < 0.3:
            self._network_pool()
        for node in nodes:
            self._running(node)
        self._shared(nodes)
        for i in range(self.r.randint(3, 12)):
            self._pending(i)
        return self.docs

    # ------------------------------------------------------------------ cluster

    def _node(self, i: int) -> str:
        name = f"node-{i}"
        zone = self.g.pick(ZONES)
        model = self.g.pick(list(GPU_MODELS)) if self.r.random() < 0.8 else ""
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}
        if model:
            labels["gpu.example.com/model"] = model
        cpu = self.g.pick(["8", "16", "32"])
        self.docs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "status": {
                    "allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"},
                    "capacity": {"cpu": cpu, "memory": "64Gi", "pods": "110"},
                },
            }
        )
        if model:
            self._slices(name, model)
        return name

    def _device(self, index: int, model: str, numa_split: int) -> dict:
        return {
            "name": f"gpu-{index}",
            "attributes": {
                "model": {"string": model},
                "index": {"int": index},
                "numa": {"int": int(index >= numa_split)},
                "driverVersion": {"version": self.g.pick(["1.2.3", "1.3.0", "2.0.0-rc.1"])},
            },
            "capacity": {"memory": {"value": GPU_MODELS[model]}},
        }

    def _slices(self, node: str, model: str) -> None:
        count = self.r.choice([1, 2, 4, 4, 8])
        devices = [self._device(i, model, count // 2 or 1) for i in range(count)]
        self.models[node] = model
        split = count > 1 and self.r.random() < 0.15
        incomplete = split and self.r.random() < 0.3
        parts = [devices[: count // 2], devices[count // 2 :]] if split else [devices]
        for n, part in enumerate(parts):
            if incomplete and n == 1:
                continue
            self.docs.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceSlice",
                    "metadata": {"name": f"{node}-gpu-{n}"},
                    "spec": {
                        "driver": GPU_DRIVER,
                        "nodeName": node,
                        "pool": {"name": node, "generation": 1, "resourceSliceCount": len(parts)},
                        "devices": part,
                    },
                }
            )
        self.free[node] = [] if incomplete else [d["name"] for d in devices]

    def _network_pool(self) -> None:
        devices = [self._device(i, "a100", 2) for i in range(self.r.randint(1, 3))]
        self.docs.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": "fabric-gpus"},
                "spec": {
                    "driver": GPU_DRIVER,
                    "allNodes": True,
                    "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }
        )

    def _classes(self) -> None:
        classes = {
            "gpu": f'device.driver == "{GPU_DRIVER}"',
            "gpu-big": f'device.driver == "{GPU_DRIVER}" && '
            f'device.capacity["{GPU_DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0',
            "gpu-new-driver": f'device.attributes["{GPU_DRIVER}"].driverVersion.isGreaterThan(semver("1.2.5"))',
        }
        classes.update(
            {
                f"gpu-{m}": f'device.driver == "{GPU_DRIVER}" && device.attributes["{GPU_DRIVER}"].model == "{m}"'
                for m in GPU_MODELS
            }
        )
        for name, expression in classes.items():
            self.docs.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceClass",
                    "metadata": {"name": name},
                    "spec": {"selectors": [{"cel": {"expression": expression}}]},
                }
            )

    # ------------------------------------------------------------------ claims

    def _request(self) -> tuple[dict, list]:
        cls = self.g.pick(["gpu", "gpu", "gpu-big", "gpu-h100", "gpu-a100", "gpu-l4", "gpu-new-driver", "tpu"])
        shape = self.r.random()
        if shape < 0.45:
            return {"name": "gpu", "exactly": {"deviceClassName": cls, "count": self.r.randint(1, 4)}}, []
        if shape < 0.55:
            return {"name": "gpu", "exactly": {"deviceClassName": cls, "allocationMode": "All"}}, []
        if shape < 0.7:
            selector = f'device.attributes["{GPU_DRIVER}"].index >= {self.r.randint(1, 4)}'
            return {
                "name": "gpu",
                "exactly": {
                    "deviceClassName": cls,
                    "count": self.r.randint(1, 2),
                    "selectors": [{"cel": {"expression": selector}}],
                },
            }, []
        if shape < 0.85:
            return (
                {"name": "gpu", "exactly": {"deviceClassName": cls, "count": 2}},
                [{"requests": ["gpu"], "matchAttribute": f"{GPU_DRIVER}/numa"}],
            )
        return {
            "name": "gpu",
            "firstAvailable": [
                {"name": "many", "deviceClassName": cls, "count": 4},
                {"name": "few", "deviceClassName": "gpu", "count": 1},
            ],
        }, []

    def _templates(self) -> None:
        self.templates = []
        for i in range(self.r.randint(2, 5)):
            request, constraints = self._request()
            devices: dict = {"requests": [request]}
            if constraints:
                devices["constraints"] = constraints
            name = f"tpl-{i}"
            self.templates.append(name)
            self.docs.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaimTemplate",
                    "metadata": {"name": name, "namespace": "default"},
                    "spec": {"spec": {"devices": devices}},
                }
            )

    def _claim(self, name: str, node: str, devices: list[str], users: list[str], owner: str = "") -> dict:
        metadata: dict = {"name": name, "namespace": "default", "uid": f"uid-claim-{name}", "finalizers": [FINALIZER]}
        if owner:
            metadata["annotations"] = {"resource.kubernetes.io/pod-claim-name": "gpus"}
            metadata["ownerReferences"] = [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": owner,
                    "uid": f"uid-{owner}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        status: dict = {}
        if devices:
            status["allocation"] = {
                "devices": {
                    "results": [{"request": "gpu", "driver": GPU_DRIVER, "pool": node, "device": d} for d in devices]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                    ]
                },
            }
            if users:
                status["reservedFor"] = [{"resource": "pods", "name": u, "uid": f"uid-{u}"} for u in users]
        doc = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": metadata,
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "gpu",
                                "allocationMode": "ExactCount",
                                "count": max(len(devices), 1),
                            },
                        }
                    ]
                }
            },
        }
        if status:
            doc["status"] = status
        return doc

    def _pod(self, name: str, priority: int, cpu: str, node: str = "", claim: Optional[dict] = None) -> dict:
        container: dict = {"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": cpu}}}
        spec: dict = {"containers": [container], "priority": priority}
        doc: dict = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": f"uid-{name}",
                "labels": {"app": name.split("-")[0]},
            },
            "spec": spec,
        }
        if claim is not None:
            container["resources"]["claims"] = [{"name": "gpus"}]
            spec["resourceClaims"] = [{"name": "gpus", **claim}]
        if node:
            spec["nodeName"] = node
            doc["status"] = {"phase": "Running"}
        return doc

    def _running(self, node: str) -> None:
        for i in range(self.r.randint(0, 3)):
            self.docs.append(self._pod(f"filler-{node}-{i}", self.r.randint(0, 20), self.g.pick(["1", "2", "4"]), node))
        free = self.free.get(node, [])
        if free and self.r.random() < 0.6:
            taken = [free.pop(0) for _ in range(min(len(free), self.r.randint(1, 2)))]
            holder = f"holder-{node}"
            if self.r.random() < 0.5:
                claim_name = f"{holder}-gpus-abcde"
                pod = self._pod(
                    holder, self.r.randint(0, 50), "1", node, {"resourceClaimTemplateName": self.templates[0]}
                )
                pod["status"]["resourceClaimStatuses"] = [{"name": "gpus", "resourceClaimName": claim_name}]
                self.docs.append(self._claim(claim_name, node, taken, [holder], owner=holder))
            else:
                claim_name = f"{holder}-gpus"
                pod = self._pod(holder, self.r.randint(0, 50), "1", node, {"resourceClaimName": claim_name})
                self.docs.append(self._claim(claim_name, node, taken, [holder]))
            self.docs.append(pod)

    def _shared(self, nodes: list[str]) -> None:
        self.shared = []
        gpu_nodes = [n for n in nodes if self.free.get(n)]
        if gpu_nodes:
            node = self.g.pick(gpu_nodes)
            user = f"sharer-{node}"
            self.docs.append(self._claim("shared-model", node, [self.free[node].pop(0)], [user]))
            self.docs.append(self._pod(user, 5, "1", node, {"resourceClaimName": "shared-model"}))
            self.shared.append("shared-model")
        gpu_nodes = [n for n in nodes if self.free.get(n)]
        if gpu_nodes and self.r.random() < 0.5:
            node = self.g.pick(gpu_nodes)
            self.docs.append(self._claim("orphan", node, [self.free[node].pop(0)], []))
            self.shared.append("orphan")
        if self.r.random() < 0.5:
            self.docs.append(self._claim("fresh", "", [], []))
            self.shared.append("fresh")

    def _pending(self, i: int) -> None:
        priority = self.g.pick([0, 10, 100, 1000])
        cpu = self.g.pick(["500m", "1", "2", "8"])
        roll = self.r.random()
        if roll < 0.15:
            self.docs.append(self._pod(f"web-{i}", priority, cpu))
            return
        if roll < 0.35 and self.shared:
            claim = {"resourceClaimName": self.g.pick(self.shared)}
        elif roll < 0.4:
            claim = {"resourceClaimTemplateName": "no-such-template"}
        else:
            claim = {"resourceClaimTemplateName": self.g.pick(self.templates)}
        pod = self._pod(f"job-{i}", priority, cpu, claim=claim)
        if self.r.random() < 0.1:
            pod["spec"]["preemptionPolicy"] = "Never"
        self.docs.append(pod)


def dra_scenario(seed: int) -> list[dict]:
    return DraGenerator(seed).scenario()


KINDS = {
    "general": lambda seed: ClusterGenerator(seed).scenario(),
    "big": big_scenario,
    "preemption": preemption_scenario,
    "volumes": lambda seed: VolumeGenerator(seed).scenario(),
    "config": config_scenario,
    "dra": dra_scenario,
}


def scenario_text(kind: str, seed: int) -> str:
    return "---\n".join(yaml.safe_dump(doc, sort_keys=False) for doc in KINDS[kind](seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in range(args.seed, args.seed + args.count):
        (args.out / f"{args.kind}_{seed}.yaml").write_text(scenario_text(args.kind, seed))


if __name__ == "__main__":
    main()
