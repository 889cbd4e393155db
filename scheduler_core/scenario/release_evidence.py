"""What a dump says of the cluster's release (release/choice.py weighs it).

- a Node's ``status.nodeInfo.kubeletVersion``;
- the control plane's static pods in ``kube-system`` (kubeadm, kops and most self-managed
  clusters): the kube-scheduler's and kube-apiserver's image tags, and the kube-scheduler's own
  ``--feature-gates``;
- a version record without a kind: ``kubectl version -o yaml|json`` (``serverVersion``), the
  API's ``/version`` answer as sonobuoy keeps it (``ServerVersion.json``: ``gitVersion``, ``major``,
  ``minor``), a troubleshoot bundle's ``cluster_version.json`` (``info`` and ``string``);
- an OpenShift ``ClusterVersion`` (must-gather, insights): OpenShift 4.N ships Kubernetes 1.(N+13).

Everything here is read leniently: a version record that cannot be read is no evidence, never an
error (the scheduler does not read these fields).
"""

from __future__ import annotations

from typing import Any, Optional

from scheduler_core.release.choice import ReleaseEvidence, ReleaseSource
from scheduler_core.release.gates import FEATURE_SPECS
from scheduler_core.release.versions import Version, parse_version
from scheduler_core.scenario.yamltree import YList, YMap

CONTROL_PLANE_NAMESPACE = "kube-system"
SCHEDULER_COMPONENT = "kube-scheduler"
APISERVER_COMPONENT = "kube-apiserver"
OPENSHIFT_CLUSTER_VERSION = "ClusterVersion"
OPENSHIFT_MINOR_OFFSET = 13  # OpenShift 4.N ships Kubernetes 1.(N+13): 4.19 -> 1.32, 4.23 -> 1.36


def node_evidence(node: YMap, name: str) -> Optional[ReleaseEvidence]:
    """The node's kubelet version, a lower bound of the control plane's."""
    info = _path(node, "status", "nodeInfo")
    text = info.get("kubeletVersion") if isinstance(info, dict) else None
    version = parse_version(text) if isinstance(text, str) else None
    if version is None:
        return None
    return ReleaseEvidence(ReleaseSource.KUBELET_VERSION, version, f"Node {name}: kubeletVersion {text}")


def pod_evidence(pod: YMap, namespace: str, name: str) -> Optional[ReleaseEvidence]:
    """A control-plane static pod's version (its image tag), and the scheduler's --feature-gates."""
    if namespace != CONTROL_PLANE_NAMESPACE:
        return None
    containers = _path(pod, "spec", "containers")
    if not isinstance(containers, list):
        return None
    for container in containers:
        if not isinstance(container, dict):
            continue
        image = container.get("image")
        if not isinstance(image, str):
            continue
        component = _component(image, container.get("name"))
        if component is None:
            continue
        version = parse_version(image.rsplit(":", 1)[-1].split("@", 1)[0]) if ":" in image else None
        if version is None:
            continue
        where = f"Pod {namespace}/{name}: image {image[:120]}"
        if component == SCHEDULER_COMPONENT:
            gates = _feature_gates(container)
            return ReleaseEvidence(ReleaseSource.SCHEDULER_IMAGE, version, where, gates)
        return ReleaseEvidence(ReleaseSource.APISERVER_IMAGE, version, where)
    return None


def _component(image: str, container_name: Any) -> Optional[str]:
    repository = image.rsplit(":", 1)[0].split("@", 1)[0].rsplit("/", 1)[-1]
    for component in (SCHEDULER_COMPONENT, APISERVER_COMPONENT):
        if repository == component or (repository == "hyperkube" and container_name == component):
            return component
    return None


def _feature_gates(container: dict[str, Any]) -> dict[str, bool]:
    """``--feature-gates=A=true,B=false`` in the container's command or args: the gates SchedLab models."""
    gates: dict[str, bool] = {}
    words = [w for key in ("command", "args") for w in (container.get(key) or []) if isinstance(w, str)]
    for index, word in enumerate(words):
        value: Optional[str] = None
        if word.startswith("--feature-gates="):
            value = word.split("=", 1)[1]
        elif word == "--feature-gates" and index + 1 < len(words):
            value = words[index + 1]
        if value is None:
            continue
        for entry in value.split(","):
            gate, _, setting = entry.strip().partition("=")
            if gate in FEATURE_SPECS and setting.strip().lower() in ("true", "false"):
                gates[gate] = setting.strip().lower() == "true"
    return gates


def version_record_evidence(value: Any, file: Optional[str]) -> Optional[ReleaseEvidence]:
    """A kind-less version record (kubectl version, /version, a support bundle's), or None."""
    if not isinstance(value, YMap) or "kind" in value:
        return None
    where = f"{file or 'the scenario'}"
    server = value.get("serverVersion")
    if isinstance(server, dict):
        return _version_info(server, f"{where}: serverVersion")
    info = value.get("info")
    if isinstance(info, dict) and "string" in value:
        return _version_info(info, f"{where}: info")
    if "gitVersion" in value and "major" in value:
        return _version_info(value, where)
    return None


def is_version_record(value: Any) -> bool:
    """A document that is a version record: read as evidence, never as objects."""
    return version_record_evidence(value, None) is not None


def _version_info(info: dict[str, Any], where: str) -> Optional[ReleaseEvidence]:
    text = info.get("gitVersion")
    version = parse_version(text) if isinstance(text, str) else None
    if version is None:
        major, minor = info.get("major"), info.get("minor")
        if isinstance(major, (str, int)) and isinstance(minor, (str, int)):
            version = parse_version(f"{major}.{str(minor).rstrip('+')}")
            text = f"{major}.{minor}"
    if version is None:
        return None
    return ReleaseEvidence(ReleaseSource.SERVER_VERSION, version, f"{where} {text}")


def cluster_version_evidence(obj: YMap, name: str) -> Optional[ReleaseEvidence]:
    """OpenShift's ClusterVersion: the desired release (status.desired.version, else the newest
    completed entry of status.history), 4.N -> Kubernetes 1.(N+13)."""
    desired = _path(obj, "status", "desired")
    text = desired.get("version") if isinstance(desired, dict) else None
    if not isinstance(text, str):
        history = _path(obj, "status", "history")
        if isinstance(history, YList) and history and isinstance(history[0], dict):
            text = history[0].get("version")
    openshift = parse_version(text) if isinstance(text, str) else None
    if openshift is None or openshift.major != 4:
        return None
    version = Version(1, openshift.minor + OPENSHIFT_MINOR_OFFSET)
    return ReleaseEvidence(
        ReleaseSource.OPENSHIFT_VERSION, version, f"ClusterVersion {name}: OpenShift {text} ships Kubernetes {version}"
    )


def _path(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
