"""The kind a file's place in a dump names (for objects and lists written without one)."""

from __future__ import annotations

import pytest

from scheduler_core.scenario.layouts import is_yaml_or_json, kind_from_path, vocabulary

WORDS = vocabulary(
    [
        "Node",
        "Pod",
        "ReplicaSet",
        "ReplicationController",
        "Service",
        "PriorityClass",
        "Namespace",
        "StorageClass",
        "CSIStorageCapacity",
    ]
)


@pytest.mark.parametrize(
    "path, kind",
    [
        ("nodes.json", "Node"),
        ("kube-system/pods.json", "Pod"),
        ("kube-system/replication-controllers.json", "ReplicationController"),
        ("kube-system/events.json", "Event"),
        ("resources/cluster/Nodes.json", "Node"),
        ("resources/ns/default/Pods.json", "Pod"),
        ("resources/cluster/StorageClasses.json", "StorageClass"),
        ("resources/cluster/CSIStorageCapacities.json", "CSIStorageCapacity"),
        ("bundle/cluster-resources/nodes.json", "Node"),
        ("bundle/cluster-resources/pods/nodes.json", "Pod"),
        ("bundle/cluster-resources/priorityclasses.json", "PriorityClass"),
        ("mg/quay-io-x/cluster-scoped-resources/core/nodes/ip-10-0-1-10.yaml", "Node"),
        ("mg/quay-io-x/namespaces/prod/core/pods.yaml", "Pod"),
        ("mg/quay-io-x/namespaces/prod/apps/replicasets.yaml", "ReplicaSet"),
        ("mg/quay-io-x/namespaces/prod/pods/web-1/web-1.yaml", "Pod"),
        ("mg/quay-io-x/namespaces/nodes/core/pods.yaml", "Pod"),
        ("insights/config/node/ip-10-0-1-10.json", "Node"),
        ("insights/config/pod/openshift-monitoring/prometheus-k8s-0.json", "Pod"),
        ("insights/config/clusteroperator/kube-scheduler.json", ""),
        ("meta/config.json", ""),
        ("cluster-info/cluster_version.json", ""),
    ],
    ids=lambda value: value if "/" in value or "." in value else None,
)
def test_the_kind_a_path_names(path, kind):
    assert kind_from_path(tuple(path.split("/")), WORDS) == kind


def test_plurals_follow_the_api_resource_names():
    assert {
        WORDS[w]
        for w in (
            "priorityclasses",
            "storageclasses",
            "csistoragecapacities",
            "services",
            "replicationcontrollers",
            "ingresses",
            "endpoints",
            "networkpolicies",
        )
    } == {
        "PriorityClass",
        "StorageClass",
        "CSIStorageCapacity",
        "Service",
        "ReplicationController",
        "Ingress",
        "Endpoints",
        "NetworkPolicy",
    }


@pytest.mark.parametrize(
    "name, wanted",
    [
        ("a.yaml", True),
        ("a.YML", True),
        ("a.json", True),
        ("logs.txt", False),
        ("current.log", False),
        ("timestamp", False),
        ("a.json.gz", False),
    ],
)
def test_only_yaml_and_json_files_are_read(name, wanted):
    assert is_yaml_or_json(name) is wanted
