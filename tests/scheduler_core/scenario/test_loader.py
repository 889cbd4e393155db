"""load_scenario: the objects it builds, the defaults it applies and every error it reports."""

from __future__ import annotations

import dataclasses
import enum
import json
from pathlib import Path

import pytest

from scheduler_core.model import LabelSelector, NoticeCode, Toleration
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named
from scheduler_core.scenario import Limits, ScenarioError, ScenarioInvalid, load_scenario, loader, yamltree

from tests.scheduler_core.scenario.support import CONTAINER, NODE, errors_of, line_of, pod, stream


# ---------------------------------------------------------------------------- happy path


def test_it_builds_nodes_and_pods_in_document_order_with_lines():
    text = stream(NODE, pod(CONTAINER, "a"), NODE.replace("n1", "n2"), pod(CONTAINER + "nodeName: n1\n", "b"))
    scenario = load_scenario(text)
    assert [n.name for n in scenario.nodes] == ["n1", "n2"]
    assert [(p.name, p.doc_index) for p in scenario.pods] == [("a", 0), ("b", 1)]
    assert [n.doc_index for n in scenario.nodes] == [0, 1]
    starts = [i for i, line in enumerate(text.splitlines(), start=1) if line == "apiVersion: v1"]
    assert [scenario.nodes[0].line, scenario.pods[0].line, scenario.nodes[1].line, scenario.pods[1].line] == starts
    assert [p.name for p in scenario.pending_pods] == ["a"]


def test_it_applies_the_api_servers_defaults():
    text = stream(
        NODE,
        pod("""\
        containers:
        - name: c
          resources:
            requests: {memory: 1Gi}
            limits: {cpu: 500m, memory: 2Gi}
        tolerations:
        - key: k
          value: v
        topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: zone
          whenUnsatisfiable: DoNotSchedule
        """),
    )
    scenario = load_scenario(text)
    web = scenario.pods[0]
    assert web.namespace == "default"
    assert web.priority == 0
    assert web.preemption_policy == "PreemptLowerPriority"
    assert web.containers[0].requests == {"cpu": 500, "memory": 2**30}
    assert web.tolerations == (Toleration("k", "Equal", "v", ""),)
    spread = web.topology_spread_constraints[0]
    assert (spread.node_affinity_policy, spread.node_taints_policy, spread.min_domains) == (None, None, None)
    assert (web.termination_grace_period_seconds, web.finalizers, web.is_deleted_at_once) == (30, (), False)
    assert scenario.nodes[0].allocatable == {"cpu": 4000, "memory": 8 * 2**30, "pods": 110}
    assert set(scenario.namespaces) == {"default"}


def test_it_creates_namespaces_named_by_pods_and_affinity_terms_without_labels():
    text = stream(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n  labels:\n    env: prod\n",
        pod(
            CONTAINER
            + """\
            affinity:
              podAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                - topologyKey: zone
                  namespaces: [other]
                  labelSelector: {matchLabels: {app: a}}
            """,
            extra_meta="namespace: team",
        ),
    )
    namespaces = load_scenario(text).namespaces
    assert namespaces["prod"].labels == {"env": "prod"}
    assert namespaces["team"].labels == {} and namespaces["other"].labels == {}


def test_it_reads_every_pod_field_the_scheduler_uses():
    text = stream(
        NODE,
        pod(
            """\
        priority: 100
        preemptionPolicy: Never
        schedulerName: custom
        nodeSelector: {disk: ssd}
        overhead: {cpu: 100m}
        containers:
        - name: c
          image: nginx:1
          ports: [{containerPort: 80, hostPort: 8080, protocol: UDP, hostIP: 127.0.0.1}]
          resources: {requests: {cpu: '1', example.com/gpu: '2'}, limits: {example.com/gpu: '2'}}
        initContainers:
        - name: sidecar
          restartPolicy: Always
          resources: {requests: {memory: 64Mi}}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: cores, operator: Gt, values: ['4']}]
                matchFields: [{key: metadata.name, operator: In, values: [n1]}]
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 5
              preference: {matchExpressions: [{key: zone, operator: Exists}]}
          podAntiAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [x]}]}
                namespaceSelector: {}
                matchLabelKeys: [tier]
                mismatchLabelKeys: [team]
        tolerations: [{operator: Exists}]
        """,
            extra_meta="""\
        labels: {app: web, tier: '1'}
        ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1, controller: true}]
        """,
        ),
    )
    web = load_scenario(text).pods[0]
    assert (web.priority, web.preemption_policy, web.scheduler_name) == (100, "Never", "custom")
    assert web.labels == {"app": "web", "tier": "1"} and web.node_selector == {"disk": "ssd"}
    assert web.overhead == {"cpu": 100}
    assert web.containers[0].requests == {"cpu": 1000, "example.com/gpu": 2}
    assert web.containers[0].ports[0].host_port == 8080 and web.containers[0].ports[0].protocol == "UDP"
    assert web.init_containers[0].restart_policy == "Always"
    required = web.affinity.node_affinity.required.terms[0]
    assert required.match_expressions[0].values == ("4",) and required.match_fields[0].key == "metadata.name"
    term = web.affinity.pod_anti_affinity.preferred[0]
    assert term.weight == 100 and term.term.namespace_selector == LabelSelector()
    assert term.term.match_label_keys == ("tier",) and term.term.mismatch_label_keys == ("team",)
    assert web.owner_references[0].controller and web.owner_references[0].kind == "ReplicaSet"


def test_it_reads_what_decides_whether_a_delete_removes_the_pod_at_once():
    """rest.BeforeDelete: grace period 0 is not graceful; store.Delete keeps an object with finalizers."""
    at_once, kept = load_scenario(
        stream(
            NODE,
            pod(CONTAINER + "terminationGracePeriodSeconds: 0\n"),
            pod(
                CONTAINER + "terminationGracePeriodSeconds: 0\n",
                name="kept",
                extra_meta="finalizers: [example.com/keep]\n",
            ),
        )
    ).pods
    assert (at_once.termination_grace_period_seconds, at_once.is_deleted_at_once) == (0, True)
    assert (kept.finalizers, kept.is_deleted_at_once) == (("example.com/keep",), False)


def test_it_reads_node_taints_images_and_extended_resources():
    text = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
spec:
  unschedulable: true
  taints: [{key: gpu, value: 'yes', effect: NoSchedule}]
status:
  capacity: {cpu: '8'}
  allocatable: {cpu: 7500m, memory: 1Gi, example.com/gpu: '4', hugepages-2Mi: 4Mi, ephemeral-storage: 10Gi}
  images: [{names: [nginx:1, nginx@sha256:abc], sizeBytes: 1000}]
"""
    node = load_scenario(text).nodes[0]
    assert node.unschedulable and node.taints[0].effect == "NoSchedule"
    assert node.allocatable == {
        "cpu": 7500,
        "memory": 2**30,
        "example.com/gpu": 4,
        "hugepages-2Mi": 4 * 2**20,
        "ephemeral-storage": 10 * 2**30,
    }
    assert node.images[0].names == ("nginx:1", "nginx@sha256:abc") and node.images[0].size_bytes == 1000


def test_it_reads_services_and_workloads():
    text = stream(
        "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: prod}\nspec: {selector: {app: a}}\n",
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec: {selector: {matchLabels: {app: a}}}\n",
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: ss}\nspec: {selector: {matchLabels: {app: b}}}\n",
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\n"
        "spec: {template: {metadata: {labels: {app: c}}}}\n",
    )
    scenario = load_scenario(text)
    assert scenario.services[0].selector == {"app": "a"} and scenario.services[0].namespace == "prod"
    assert [w.kind for w in scenario.workloads] == ["ReplicaSet", "StatefulSet", "ReplicationController"]
    assert scenario.workloads[2].selector == LabelSelector((("app", "c"),))


def test_it_reads_a_kind_list_in_yaml_and_in_json():
    items = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}},
    ]
    as_json = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)
    scenario = load_scenario(as_json)
    assert [n.name for n in scenario.nodes] == ["n1"] and [p.name for p in scenario.pods] == ["p"]
    errors = errors_of(as_json.replace('"name": "c"', '"name": 5'))
    assert errors[0].object == "Pod default/p" and errors[0].path == "spec.containers[0].name"
    assert errors[0].line == line_of(as_json, '"name": "c"')


def test_it_accepts_status_and_managed_fields_and_refuses_unknown_fields():
    # Strict field validation (scenario/unknown_fields.py): a field no release's API type has is refused.
    text = (
        pod(
            CONTAINER,
            extra_meta="""\
        managedFields: [{manager: kubectl, operation: Update}]
        creationTimestamp: "2024-01-01T00:00:00Z"
        """,
        )
        + "status:\n  phase: Pending\n  conditions: [{type: PodScheduled, status: 'False'}]\n"
    )
    assert load_scenario(text).pods[0].name == "web-1"
    unknown = text.replace("containers:", "futureField: {x: 1}\n  containers:")
    assert [(e.path, e.message) for e in errors_of(unknown)] == [
        ("spec.futureField", 'unknown field "spec.futureField"')
    ]


def test_it_accepts_bytes_with_a_bom_and_skips_empty_documents():
    text = ("\ufeff" + stream(NODE, "", "# only a comment\n")).encode("utf-8")
    assert len(load_scenario(text).nodes) == 1


def test_it_accepts_every_corpus_and_bench_file(corpus_files):
    for path in corpus_files:
        scenario = load_scenario(path.read_bytes(), limits=Limits(max_bytes=16 * 2**20))
        assert scenario.nodes, path


# ---------------------------------------------------------------------------- errors

ERROR_CASES = [
    (
        "a bare integer label value",
        pod(CONTAINER, extra_meta="labels: {tier: 1}"),
        "metadata.labels.tier",
        "labels: {tier: 1}",
        'quote it: "1"',
    ),
    (
        "labels that are not a map",
        pod(CONTAINER, extra_meta="labels: [a]"),
        "metadata.labels",
        "labels: [a]",
        "expected a mapping",
    ),
    (
        "an invalid label key",
        pod(CONTAINER, extra_meta="labels: {'bad key': a}"),
        "metadata.labels.bad key",
        "bad key",
        "name part must consist",
    ),
    (
        "a label value too long",
        pod(CONTAINER, extra_meta=f"labels: {{a: {'x' * 64}}}"),
        "metadata.labels.a",
        "labels:",
        "no more than 63",
    ),
    ("an invalid pod name", pod(CONTAINER, name="Web_1"), "metadata.name", "Web_1", "RFC 1123 subdomain"),
    (
        "a missing name",
        "apiVersion: v1\nkind: Node\nmetadata: {labels: {a: b}}\n",
        "metadata.name",
        "metadata:",
        "Required value",
    ),
    (
        "an invalid namespace",
        pod(CONTAINER, extra_meta="namespace: Bad.NS"),
        "metadata.namespace",
        "Bad.NS",
        "RFC 1123 label",
    ),
    (
        "a malformed cpu quantity",
        pod("containers:\n- name: c\n  resources: {requests: {cpu: 2x}}\n"),
        "spec.containers[0].resources.requests.cpu",
        "2x",
        "quantities must match the regular expression",
    ),
    (
        "a negative memory quantity",
        pod("containers:\n- name: c\n  resources: {requests: {memory: -1Gi}}\n"),
        "spec.containers[0].resources.requests.memory",
        "-1Gi",
        "greater than or equal to 0",
    ),
    (
        "a request above its limit",
        pod("containers:\n- name: c\n  resources:\n    requests: {cpu: '2'}\n    limits: {cpu: '1'}\n"),
        "spec.containers[0].resources.requests.cpu",
        "requests: {cpu",
        "less than or equal to cpu limit",
    ),
    (
        "an unknown unprefixed resource",
        pod("containers:\n- name: c\n  resources: {requests: {gpu: '1'}}\n"),
        "spec.containers[0].resources.requests.gpu",
        "gpu",
        "standard resource type or fully qualified",
    ),
    (
        "a fractional extended resource",
        pod("containers:\n- name: c\n  resources: {requests: {example.com/gpu: 500m}}\n"),
        "spec.containers[0].resources.requests.example.com/gpu",
        "gpu",
        "must be an integer",
    ),
    ("no containers", pod("priority: 1\n"), "spec.containers", "spec:", "Required value"),
    (
        "a duplicate container name",
        pod("containers:\n- name: c\n- name: c\n"),
        "spec.containers",
        "containers:",
        "Duplicate value",
    ),
    (
        "an In requirement without values",
        pod(
            CONTAINER
            + """\
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: zone
              labelSelector: {matchExpressions: [{key: app, operator: In}]}
        """
        ),
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchExpressions[0].values",
        "operator: In",
        "must be specified",
    ),
    (
        "an Exists requirement with values",
        pod(
            CONTAINER
            + """\
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: zone
              labelSelector: {matchExpressions: [{key: app, operator: Exists, values: [a]}]}
        """
        ),
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchExpressions[0].values",
        "operator: Exists",
        "may not be specified",
    ),
    (
        "an unknown selector operator",
        pod(
            CONTAINER
            + """\
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: zone
              labelSelector:
                matchExpressions:
                - {key: app, operator: Gt, values: ['1']}
        """
        ),
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchExpressions[0].operator",
        "operator: Gt",
        'invalid value "Gt": not a valid selector operator',
    ),
    (
        "an empty topologyKey",
        pod(
            CONTAINER
            + """\
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: a}}
              topologyKey: ""
        """
        ),
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
        'topologyKey: ""',
        "can not be empty",
    ),
    (
        "a Gt node requirement with two values",
        pod(
            CONTAINER
            + """\
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: cores, operator: Gt, values: ['1', '2']}]
        """
        ),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].values",
        "operator: Gt",
        "single value",
    ),
    (
        "required node affinity without terms",
        pod(
            CONTAINER
            + """\
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}
        """
        ),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
        "nodeSelectorTerms",
        "at least one node selector term",
    ),
    (
        "a preferred weight of 0",
        pod(
            CONTAINER
            + """\
        affinity:
          nodeAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 0
              preference: {matchExpressions: [{key: a, operator: Exists}]}
        """
        ),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
        "weight: 0",
        "invalid value 0: must be in the range 1-100",
    ),
    (
        "a pod affinity weight of 101",
        pod(
            CONTAINER
            + """\
        affinity:
          podAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 101
              podAffinityTerm: {topologyKey: zone, labelSelector: {}}
        """
        ),
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
        "weight: 101",
        "invalid value 101: must be in the range 1-100",
    ),
    (
        "maxSkew 0",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
        """
        ),
        "spec.topologySpreadConstraints[0].maxSkew",
        "maxSkew: 0",
        "between 1 and",
    ),
    (
        "minDomains with ScheduleAnyway",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
        """
        ),
        "spec.topologySpreadConstraints[0].minDomains",
        "minDomains",
        "whenUnsatisfiable=DoNotSchedule",
    ),
    (
        "minDomains 0",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 0}
        """
        ),
        "spec.topologySpreadConstraints[0].minDomains",
        "minDomains",
        "between 1 and",
    ),
    (
        "an unknown whenUnsatisfiable",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}
        """
        ),
        "spec.topologySpreadConstraints[0].whenUnsatisfiable",
        "Maybe",
        'unsupported value "Maybe"',
    ),
    (
        "a missing spread topologyKey",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, whenUnsatisfiable: DoNotSchedule}
        """
        ),
        "spec.topologySpreadConstraints[0].topologyKey",
        "maxSkew: 1",
        "Required value",
    ),
    (
        "a duplicate spread constraint",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
        - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
        """
        ),
        "spec.topologySpreadConstraints[1]",
        "maxSkew: 2",
        "Duplicate value",
    ),
    (
        "an unknown nodeTaintsPolicy",
        pod(
            CONTAINER
            + """\
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}
        """
        ),
        "spec.topologySpreadConstraints[0].nodeTaintsPolicy",
        "Always",
        'unsupported value "Always"',
    ),
    (
        "an unknown taint effect",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints:\n  - {key: a, effect: Sometimes}\n",
        "spec.taints[0].effect",
        "Sometimes",
        'unsupported value "Sometimes"',
    ),
    (
        "a taint without effect",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints:\n  - {key: a}\n",
        "spec.taints[0].effect",
        "key: a",
        "Required value",
    ),
    (
        "a toleration with an unknown effect",
        pod(CONTAINER + "tolerations: [{key: a, effect: Never}]\n"),
        "spec.tolerations[0].effect",
        "Never",
        'unsupported value "Never"',
    ),
    (
        "an Exists toleration with a value",
        pod(CONTAINER + "tolerations: [{key: a, operator: Exists, value: b}]\n"),
        "spec.tolerations[0].operator",
        "tolerations",
        "value must be empty",
    ),
    (
        "tolerationSeconds without NoExecute",
        pod(CONTAINER + "tolerations: [{key: a, value: b, effect: NoSchedule, tolerationSeconds: 5}]\n"),
        "spec.tolerations[0].effect",
        "tolerations",
        "'NoExecute'",
    ),
    (
        "a hostPort out of range",
        pod("containers:\n- name: c\n  ports: [{containerPort: 80, hostPort: 70000}]\n"),
        "spec.containers[0].ports[0].hostPort",
        "70000",
        "between 0 and 65535",
    ),
    (
        "a hostNetwork pod with a hostPort other than its containerPort",
        pod("hostNetwork: true\ncontainers:\n- name: c\n  ports: [{containerPort: 80, hostPort: 8080}]\n"),
        "spec.containers[0].ports[0].containerPort",
        "hostPort: 8080",
        "must match `hostPort` when `hostNetwork` is true",
    ),
    (
        "an invalid hostIP",
        pod("containers:\n- name: c\n  ports: [{containerPort: 80, hostIP: nowhere}]\n"),
        "spec.containers[0].ports[0].hostIP",
        "nowhere",
        "valid IP",
    ),
    (
        "an unknown protocol",
        pod("containers:\n- name: c\n  ports: [{containerPort: 80, protocol: ICMP}]\n"),
        "spec.containers[0].ports[0].protocol",
        "ICMP",
        'unsupported value "ICMP"',
    ),
    (
        "a priority that is not an integer",
        pod(CONTAINER + "priority: high\n"),
        "spec.priority",
        "high",
        "expected an integer",
    ),
    ("a priority beyond int32", pod(CONTAINER + "priority: 4294967296\n"), "spec.priority", "4294967296", "between"),
    (
        "a negative terminationGracePeriodSeconds",
        pod(CONTAINER + "terminationGracePeriodSeconds: -1\n"),
        "spec.terminationGracePeriodSeconds",
        "terminationGracePeriodSeconds",
        "must be between 0 and",
    ),
    (
        "an unknown preemptionPolicy",
        pod(CONTAINER + "preemptionPolicy: Always\n"),
        "spec.preemptionPolicy",
        "preemptionPolicy",
        'unsupported value "Always"',
    ),
    (
        "an unknown container restartPolicy",
        pod(CONTAINER + "initContainers: [{name: i, restartPolicy: Sometimes}]\n"),
        "spec.initContainers[0].restartPolicy",
        "initContainers",
        'supported values: "Always"',
    ),
    (
        "two controller owner references",
        pod(
            CONTAINER,
            extra_meta="""\
        ownerReferences:
        - {kind: ReplicaSet, name: a, controller: true}
        - {kind: ReplicaSet, name: b, controller: true}
        """,
        ),
        "metadata.ownerReferences",
        "ownerReferences",
        "Only one reference",
    ),
    (
        "a string where a boolean is expected",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: 'yes'}\n",
        "spec.unschedulable",
        "unschedulable",
        "expected a boolean",
    ),
    (
        "a wrong apiVersion",
        "apiVersion: apps/v1\nkind: Node\nmetadata: {name: n1}\n",
        "apiVersion",
        "apps/v1",
        'unsupported value "apps/v1"',
    ),
    (
        "an object without a kind",
        "apiVersion: v1\nmetadata: {name: d}\n",
        "kind",
        "apiVersion: v1",
        "Required value: every object needs apiVersion and kind",
    ),
    (
        "a known kind with an unknown apiVersion",
        "apiVersion: v2\nkind: Pod\nmetadata: {name: d}\n",
        "apiVersion",
        "apiVersion: v2",
        'unsupported value "v2" for kind Pod',
    ),
    (
        "a ReplicaSet without selector",
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec: {}\n",
        "spec.selector",
        "spec: {}",
        "Required value",
    ),
]


@pytest.mark.parametrize(
    "text, path, line_fragment, message",
    [case[1:] for case in ERROR_CASES],
    ids=[f"it reports {case[0]}" for case in ERROR_CASES],
)
def test_it_reports_each_invalid_field_with_path_and_line(text, path, line_fragment, message):
    errors = errors_of(text)
    matching = [e for e in errors if e.path == path]
    assert matching, f"no error at {path}: {[str(e) for e in errors]}"
    error = matching[0]
    assert message in error.message
    assert error.line == line_of(text, line_fragment)
    assert error.object.split()[0] in ("Pod", "Node", "ReplicaSet", "document", "object")


def test_it_reports_every_error_with_its_line_sorted():
    text = stream(
        NODE.replace("cpu: '4'", "cpu: four"),
        pod(CONTAINER + "priority: high\n", "a"),
        pod(CONTAINER + "nodeName: Ghost\n", "b", extra_meta="labels: {x: 1}"),
    )
    errors = errors_of(text)
    assert [e.path for e in errors] == ["status.capacity.cpu", "spec.priority", "metadata.labels.x", "spec.nodeName"]
    assert [e.line for e in errors] == sorted(e.line for e in errors)
    assert [e.object for e in errors] == ["Node n1", "Pod default/a", "Pod default/b", "Pod default/b"]


def test_it_names_the_document_when_the_object_has_no_name():
    errors = errors_of(stream(NODE, "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: c}]}\n"))
    assert errors[0].object == "document 2" and errors[0].path == "metadata.name"


def test_it_ignores_a_pod_bound_to_a_node_not_in_the_scenario_with_a_notice():
    scenario = load_scenario(stream(NODE, pod(CONTAINER + "nodeName: n9\n")))
    assert scenario.running_pods == [] and scenario.pending_pods == []
    notice, nothing_pending = scenario.notices
    assert nothing_pending.code is NoticeCode.NO_PENDING_PODS
    assert notice.code is NoticeCode.MISSING_NODE and notice.objects == ("Pod default/web-1",)
    assert "n9" in notice.message


def test_it_refuses_duplicate_object_names_but_not_across_namespaces():
    text = stream(pod(CONTAINER, "a"), pod(CONTAINER, "a"))
    [error] = errors_of(text)
    assert error.path == "metadata.name" and "already defined at line 1" in error.message
    assert len(load_scenario(stream(pod(CONTAINER, "a"), pod(CONTAINER, "a", "namespace: prod"))).pods) == 2


def test_it_reports_yaml_syntax_errors_with_their_line():
    text = NODE + "---\nkind: Pod\nmetadata: {name: [unclosed\n"
    errors = errors_of(text)
    assert any("YAML syntax error" in e.message and e.line in (12, 13) for e in errors)


def test_it_refuses_non_utf8_bytes_naming_the_line():
    [error] = errors_of(NODE.encode() + b"---\nkind: Pod\nmetadata: {name: \xff}\n")
    assert error.line == 12 and "UTF-8" in error.message


def test_it_refuses_duplicate_mapping_keys():
    text = NODE.replace("  name: n1\n", "  name: n1\n  name: n2\n")
    [error] = errors_of(text)
    assert 'duplicate key "name"' in error.message and error.line == 5


def test_it_refuses_a_document_that_is_not_a_mapping():
    [error] = errors_of(stream(NODE, "- a\n- b\n"))
    assert error.object == "document 2" and "expected a mapping" in error.message


@pytest.mark.parametrize(
    "limits, text, fragment",
    [
        (Limits(max_bytes=100), NODE * 2, "Limits.max_bytes"),
        (Limits(max_nodes=1), stream(NODE, NODE.replace("n1", "n2")), "Limits.max_nodes"),
        (Limits(max_pods=1), stream(pod(CONTAINER, "a"), pod(CONTAINER, "b")), "Limits.max_pods"),
        (Limits(max_pending_pods=1), stream(pod(CONTAINER, "a"), pod(CONTAINER, "b")), "Limits.max_pending_pods"),
        (Limits(max_documents=1), stream(NODE, NODE.replace("n1", "n2")), "Limits.max_documents"),
        (Limits(max_depth=2), NODE, "Limits.max_depth"),
    ],
    ids=[
        "it enforces max_bytes",
        "it enforces max_nodes",
        "it enforces max_pods",
        "it enforces max_pending_pods",
        "it enforces max_documents",
        "it enforces max_depth",
    ],
)
def test_it_names_the_limit_a_scenario_exceeds(limits, text, fragment):
    assert any(fragment in e.message for e in errors_of(text, limits))


def test_it_refuses_an_alias_bomb_quickly():
    bomb = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        bomb.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    errors = errors_of("\n".join(bomb) + "\nkind: Node\nmetadata: {name: n1}\n")
    assert any("Limits.max_aliases" in e.message for e in errors)


def test_a_few_aliases_are_fine():
    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: &l {a: b}}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: &m {c: d}}\nspec: {}\n"
    )
    assert [n.labels for n in load_scenario(text).nodes] == [{"a": "b"}, {"c": "d"}]


def test_error_json_and_str_have_the_documented_shape():
    error = ScenarioError("Pod default/web-1", "spec.containers[0].resources.requests.cpu", 12, "bad")
    assert error.to_json() == {
        "object": "Pod default/web-1",
        "path": "spec.containers[0].resources.requests.cpu",
        "line": 12,
        "message": "bad",
        "code": "invalid",
        "limit": None,
    }
    assert str(error) == "line 12: Pod default/web-1: spec.containers[0].resources.requests.cpu: bad"


def test_it_rejects_input_that_is_not_text():
    [error] = errors_of(12345)  # type: ignore[arg-type]
    assert "expected text or bytes" in error.message


def test_a_limit_problem_says_which_limit_in_its_code():
    text = "\n---\n".join(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}" for i in range(3))
    with pytest.raises(ScenarioInvalid) as err:
        load_scenario(text, limits=Limits(max_nodes=2))
    problem = err.value.errors[0]
    assert (problem.code, problem.limit) == ("limit_exceeded", "max_nodes")
    assert problem.to_json()["code"] == "limit_exceeded"


# ---------------------------------------------------------------------- what a cluster dump holds

PRIORITY_CLASSES = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: fallback}
value: 7
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: also-default}
value: 9
globalDefault: true
"""


@pytest.mark.parametrize(
    "spec, priority, policy, class_name",
    [
        pytest.param(
            CONTAINER + "priorityClassName: batch\n",
            100,
            "Never",
            "batch",
            id="a named class gives its value and its preemption policy",
        ),
        pytest.param(
            CONTAINER + "priorityClassName: system-node-critical\n",
            2000001000,
            "PreemptLowerPriority",
            "system-node-critical",
            id="the built-in system classes exist without being listed",
        ),
        pytest.param(
            CONTAINER,
            7,
            "PreemptLowerPriority",
            "fallback",
            id="a pod without a class gets the lowest-valued globalDefault class",
        ),
        pytest.param(
            CONTAINER + "priorityClassName: batch\npriority: 5\n",
            5,
            "Never",
            "batch",
            id="a stored pod keeps the priority the API server resolved at creation",
        ),
    ],
)
def test_it_resolves_priority_as_the_priority_admission_plugin_does(spec, priority, policy, class_name):
    [web] = load_scenario(stream(PRIORITY_CLASSES, pod(spec))).pods
    assert (web.priority, web.preemption_policy, web.priority_class_name) == (priority, policy, class_name)


def test_a_pod_without_priority_naming_a_missing_class_is_an_error_at_its_field():
    text = stream(pod(CONTAINER + "priorityClassName: gold\n"))
    [error] = errors_of(text)
    assert (error.object, error.path, error.line) == (
        "Pod default/web-1",
        "spec.priorityClassName",
        line_of(text, "priorityClassName"),
    )
    assert 'no PriorityClass with name "gold" was found' in error.message


def test_without_classes_a_pod_without_priority_has_priority_zero():
    [web] = load_scenario(pod(CONTAINER)).pods
    assert (web.priority, web.priority_class_name) == (0, "")


@pytest.mark.parametrize(
    "document, message",
    [
        pytest.param(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-mine}\nvalue: 1\n",
            'priority class names with "system-" prefix are reserved',
            id="the system- prefix is reserved",
        ),
        pytest.param(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: huge}\nvalue: 1000000001\n",
            "maximum allowed value of a user defined priority is 1000000000",
            id="user values stop at one billion",
        ),
        pytest.param(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: novalue}\n",
            "Required value",
            id="the value is required",
        ),
    ],
)
def test_it_refuses_priority_classes_the_api_server_refuses(document, message):
    [error] = errors_of(document)
    assert message in error.message and error.object.startswith("PriorityClass ")


def test_it_accepts_the_system_classes_as_a_dump_lists_them():
    text = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-cluster-critical}\n"
        "value: 2000000000\n"
    )
    assert load_scenario(text).priority_classes["system-cluster-critical"].value == 2000000000


def test_it_accepts_every_other_kind_and_reports_it_once_as_ignored():
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: kube-system}\nspec: {}\n"
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
    listed = (
        '{"apiVersion": "v1", "kind": "List", "items": ['
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]}'
    )
    scenario = load_scenario(
        stream(NODE, deployment, config_map, deployment.replace("name: d", "name: e"), listed + "\n", pod(CONTAINER))
    )
    [notice] = scenario.notices
    assert notice.code is NoticeCode.IGNORED_KINDS
    assert notice.message == (
        "ignored (the scheduler does not read them): 2 ConfigMap, 2 Deployment; the Deployment objects are "
        "read by the capacity questions, and by a run's stand-in controllers once the scenario has a Changes document"
    )


def test_errors_inside_a_list_name_the_object_not_its_position():
    listed = (
        '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", '
        '"metadata": {"name": "x"}}, {"apiVersion": "v1", "kind": "Pod", "metadata": '
        '{"name": "coredns-1", "namespace": "kube-system"}, "spec": {"containers": [{"name": "c", '
        '"resources": {"requests": {"cpu": "lots"}}}]}}]}'
    )
    [error] = errors_of(listed)
    assert error.object == "Pod kube-system/coredns-1"
    assert error.path == "spec.containers[0].resources.requests.cpu"


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_finished_pods_are_left_out_with_a_notice(phase):
    finished = pod(CONTAINER + "nodeName: n1\n", "done") + f"status: {{phase: {phase}}}\n"
    pending_finished = pod(CONTAINER, "never-ran") + f"status: {{phase: {phase}}}\n"
    scenario = load_scenario(stream(NODE, finished, pending_finished))
    assert scenario.running_pods == [] and scenario.pending_pods == []
    notice, nothing_pending = scenario.notices
    assert nothing_pending.code is NoticeCode.NO_PENDING_PODS
    assert notice.code is NoticeCode.FINISHED_PODS and notice.objects == ("Pod default/done", "Pod default/never-ran")


def test_it_reads_what_the_scheduler_reads_of_a_pods_life():
    text = (
        pod(CONTAINER + "nodeName: n1\n", extra_meta="deletionTimestamp: '2024-05-01T10:00:05Z'")
        + "status:\n  phase: Running\n  startTime: '2024-05-01T09:00:00Z'\n  nominatedNodeName: n2\n"
    )
    [web] = load_scenario(stream(NODE, text)).pods
    assert web.is_terminating and web.deletion_timestamp.isoformat() == "2024-05-01T10:00:05+00:00"
    assert web.start_time.isoformat() == "2024-05-01T09:00:00+00:00"
    assert (web.phase, web.nominated_node_name) == ("Running", "n2")


def test_it_reports_a_time_that_is_not_rfc_3339():
    text = pod(CONTAINER) + "status:\n  startTime: yesterday\n"
    [error] = errors_of(text)
    assert error.path == "status.startTime" and "RFC 3339" in error.message


def test_pods_for_another_scheduler_and_gated_pods_are_never_queued_and_are_reported():
    other = pod(CONTAINER + "schedulerName: volcano\n", "batch-job")
    gated = pod(CONTAINER + "schedulingGates: [{name: example.com/quota}]\n", "gated")
    plain = pod(CONTAINER, "plain")
    scenario = load_scenario(stream(NODE, other, gated, plain))
    assert [p.name for p in scenario.pending_pods] == ["plain"]
    assert [(n.code, n.objects) for n in scenario.scheduling_notices()] == [
        (NoticeCode.OTHER_SCHEDULER, ("Pod default/batch-job",)),
        (NoticeCode.SCHEDULING_GATED, ("Pod default/gated",)),
    ]


def test_a_second_profile_takes_the_pods_that_name_it():
    config = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles: [{schedulerName: default-scheduler}, {schedulerName: packer}]\n"
    )
    packed = pod(CONTAINER + "schedulerName: packer\n", "packed")
    scenario = load_scenario(stream(NODE, config, packed))
    assert [p.name for p in scenario.pending_pods] == ["packed"] and scenario.scheduling_notices() == []


def test_it_accepts_a_stored_pod_whose_match_label_keys_the_api_server_already_merged():
    # A v1.35 API server merges matchLabelKeys into the labelSelector at creation, so `kubectl get`
    # prints the key in both; that pod must load (refusing it would refuse every such real dump).
    spread = """
        topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: zone
          whenUnsatisfiable: DoNotSchedule
          matchLabelKeys: [tier]
          labelSelector:
            matchLabels: {app: web}
            matchExpressions: [{key: tier, operator: In, values: [front]}]
        """
    scenario = load_scenario(stream(NODE, pod(CONTAINER + spread, extra_meta="labels: {app: web, tier: front}")))
    [constraint] = scenario.pending_pods[0].topology_spread_constraints
    assert constraint.match_label_keys == ("tier",)
    assert [r.key for r in constraint.label_selector.match_expressions] == ["tier"]


def test_it_keeps_a_missing_spread_selector_missing_even_with_match_label_keys():
    spread = """
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, matchLabelKeys: [tier]}
        """
    scenario = load_scenario(stream(NODE, pod(CONTAINER + spread, extra_meta="labels: {tier: front}")))
    [constraint] = scenario.pending_pods[0].topology_spread_constraints
    assert constraint.label_selector is None and constraint.match_label_keys == ("tier",)


def test_it_stores_node_affinity_values_the_api_server_does_not_check():
    # ValidateNodeSelectorRequirement counts Gt/Lt values but does not parse them ("four" is stored),
    # and ValidatePreferredSchedulingTerms lets any label value through ("a b"); the scheduler's
    # lazy-error node selector makes such a term match nothing (test_labels).
    terms = """
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: cores, operator: Lt, values: [four]}]
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 5
              preference: {matchExpressions: [{key: zone, operator: In, values: ["a b"]}]}
        """
    scenario = load_scenario(stream(NODE, pod(CONTAINER + terms)))
    node_affinity = scenario.pending_pods[0].affinity.node_affinity
    [required_term] = node_affinity.required.terms
    [preferred] = node_affinity.preferred
    assert required_term.match_expressions[0].values == ("four",)
    assert preferred.preference.match_expressions[0].values == ("a b",)


def test_a_list_item_whose_kind_is_not_a_string_is_named_once_by_its_name():
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: 7\n  metadata: {name: weird}\n"
    [error] = errors_of(text)
    assert error.object == "object weird" and error.path == "kind" and error.line == 5
    assert "expected a string" in error.message


def test_a_pending_pod_whose_claim_template_is_missing_is_said_held_at_pre_enqueue():
    """DynamicResources.PreEnqueue: no template, so the controller makes no claim and the pod waits."""
    claims = """
        resourceClaims:
        - {name: gpu, resourceClaimTemplateName: single-gpu}
        """
    scenario = load_scenario(stream(NODE, pod(CONTAINER + claims)))
    assert scenario.pods[0].resource_claims == ("gpu",) and scenario.pending_pods == scenario.pods
    [notice] = scenario.scheduling_notices()
    assert notice.code is NoticeCode.RESOURCE_CLAIMS and notice.objects == ("Pod default/web-1",)
    assert 'pod "default/web-1": ResourceClaim not created yet' in notice.message
    # where DynamicResourceAllocation is off (v1.33's default) no PreEnqueue holds it: no such notice
    older = load_scenario(stream(NODE, pod(CONTAINER + claims)), release=ReleaseRequest(release_named("v1.33")))
    assert not [n for n in older.scheduling_notices() if n.code is NoticeCode.RESOURCE_CLAIMS]


def test_a_resource_claim_names_exactly_one_source():
    [error] = errors_of(stream(NODE, pod(CONTAINER + "resourceClaims: [{name: gpu}]\n")))
    assert error.path == "spec.resourceClaims[0]" and "must specify one of" in error.message


def test_a_host_network_pods_ports_default_their_host_port_to_the_container_port():
    # SetDefaults_Pod's defaultHostNetworkPorts, for containers and init containers alike.
    text = stream(
        NODE,
        pod("""\
        hostNetwork: true
        containers:
        - {name: c, image: x, ports: [{containerPort: 9100}, {containerPort: 53, protocol: UDP}]}
        initContainers:
        - {name: i, image: x, restartPolicy: Always, ports: [{containerPort: 15000}]}
        """),
    )
    pod_ = load_scenario(text).pods[0]
    assert [(p.container_port, p.host_port, p.protocol) for p in pod_.containers[0].ports] == [
        (9100, 9100, "TCP"),
        (53, 53, "UDP"),
    ]
    assert pod_.init_containers[0].ports[0].host_port == 15000


def test_toleration_seconds_and_each_volume_source_are_kept_for_the_pod_signature():
    text = stream(
        NODE,
        pod(
            CONTAINER
            + """\
      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
      volumes:
      - {name: data, persistentVolumeClaim: {claimName: c1}}
      - {name: scratch}
"""
        ),
    )
    loaded = load_scenario(text).pods[0]
    assert loaded.tolerations[0].seconds == 300
    assert [v.source_key for v in loaded.volumes] == ['{"persistentVolumeClaim":{"claimName":"c1"}}', '{"emptyDir":{}}']


# ---------------------------------------------------------------------------- typed lists, empty scenarios


def raw_list(kind: str, *items: dict, api_version: str = "v1") -> str:
    """A list as the API answers a list request (kubectl get --raw): its items carry no kind."""
    return json.dumps(
        {"kind": kind, "apiVersion": api_version, "metadata": {"resourceVersion": "7"}, "items": list(items)}
    )


RAW_NODE = {"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
RAW_POD = {"metadata": {"name": "web", "namespace": "prod"}, "spec": {"containers": [{"name": "c"}]}}


def test_the_items_of_a_typed_list_take_their_kind_from_the_list():
    scenario = load_scenario(raw_list("NodeList", RAW_NODE) + "\n" + raw_list("PodList", RAW_POD))
    assert [n.name for n in scenario.nodes] == ["n1"] and [p.key for p in scenario.pending_pods] == ["prod/web"]


def test_the_items_of_a_typed_list_take_its_api_version_and_it_is_checked():
    rs = {"metadata": {"name": "web", "namespace": "prod"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    assert [
        w.name for w in load_scenario(stream(NODE, raw_list("ReplicaSetList", rs, api_version="apps/v1"))).workloads
    ] == ["web"]
    [error] = errors_of(stream(NODE, raw_list("ReplicaSetList", rs, api_version="extensions/v1beta1")))
    assert error.path == "apiVersion" and 'unsupported value "extensions/v1beta1" for kind ReplicaSet' in error.message


def test_the_items_of_a_typed_list_of_another_kind_are_counted_as_ignored():
    events = raw_list("EventList", {"metadata": {"name": "e1"}}, {"metadata": {"name": "e2"}})
    scenario = load_scenario(stream(NODE, pod(CONTAINER), events + "\n"))
    [ignored] = [n for n in scenario.notices if n.code is NoticeCode.IGNORED_KINDS]
    assert ignored.message.endswith(": 2 Event")


def test_an_item_of_a_plain_list_still_needs_its_kind():
    [error] = errors_of(json.dumps({"apiVersion": "v1", "kind": "List", "items": [RAW_NODE]}))
    assert error.object == "object n1" and error.path == "kind"


def test_a_top_level_json_array_of_objects_is_read_as_a_list():
    node = {"apiVersion": "v1", "kind": "Node", **RAW_NODE}
    assert [n.name for n in load_scenario(json.dumps([node])).nodes] == ["n1"]


def test_a_scenario_without_nodes_says_so_loudly():
    scenario = load_scenario(pod(CONTAINER))
    [no_nodes] = [n for n in scenario.notices if n.code is NoticeCode.NO_NODES]
    assert "nothing to schedule against" in no_nodes.message


def test_a_scenario_without_pending_pods_says_there_is_nothing_to_schedule():
    scenario = load_scenario(stream(NODE, pod(CONTAINER + "nodeName: n1\n")))
    assert [n.code for n in scenario.notices] == [NoticeCode.NO_PENDING_PODS]
    assert "1 pod(s) already on nodes" in scenario.notices[0].message


def test_the_pods_already_on_nodes_are_those_check_calls_running():
    """A pod bound to a node the dump lacks is left out with its own notice, not counted as on a
    node ("4 pod(s) already on nodes" under "3 running": issue 51 item 7)."""
    scenario = load_scenario(
        stream(NODE, pod(CONTAINER + "nodeName: n1\n"), pod(CONTAINER + "nodeName: gone\n", name="b"))
    )
    [nothing] = [n for n in scenario.notices if n.code is NoticeCode.NO_PENDING_PODS]
    assert "(1 pod(s) already on nodes)" in nothing.message


def test_an_empty_list_reads_as_nothing_and_says_so():
    scenario = load_scenario(raw_list("NodeList"))
    assert [n.code for n in scenario.notices] == [NoticeCode.NO_NODES, NoticeCode.NO_PENDING_PODS]


def test_no_pending_pods_is_not_said_when_the_steps_or_their_controllers_make_the_work():
    """A scenario whose pending pods come only from a Changes document (a workload short of pods,
    a step that scales one) has work to schedule: no "nothing to schedule" notice then."""
    from tests.scheduler_core.builders import changes_text, node_text, scenario_text, workload_text

    with_steps = load_scenario(
        scenario_text(
            node_text("n1"),
            workload_text("Deployment", "web", replicas=2),
            changes_text(["scale: {kind: Deployment, name: web, replicas: 3}"]),
        )
    )
    assert NoticeCode.NO_PENDING_PODS not in [n.code for n in with_steps.notices]
    without = load_scenario(scenario_text(node_text("n1")))
    assert NoticeCode.NO_PENDING_PODS in [n.code for n in without.notices]


# ---------------------------------------------------------------------------- a default document, read once


def test_a_default_document_is_read_after_the_sources_only_when_they_hold_no_changes_document():
    from scheduler_core.scenario.loader import SourceText, load_sources, load_sources_or_with

    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n"
        "  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: x}]}\n"
    )
    changes = "apiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps: []\n"
    default = SourceText("default.yaml", changes)
    plain = [SourceText("a.yaml", stream(NODE, pod(CONTAINER, "a"))), SourceText("b.yaml", deployment)]
    scenario, read = load_sources_or_with(plain, default)
    assert read and _read(scenario) == _read(load_sources([*plain, default]))
    assert scenario.changes is not None and [w.name for w in scenario.changes.workloads] == ["web"]
    own = [*plain, SourceText("c.yaml", changes.replace("steps: []", "steps:\n- operations:\n  - cordon: {node: n1}"))]
    scenario, read = load_sources_or_with(own, default)
    assert not read and _read(scenario) == _read(load_sources(own)) and len(scenario.changes.steps) == 1
    broken = [SourceText("a.yaml", stream(NODE, pod(CONTAINER, "a")) + "---\nkind: Pod\n")]
    with pytest.raises(ScenarioInvalid) as alone:
        load_sources(broken)
    with pytest.raises(ScenarioInvalid) as with_default:
        load_sources_or_with(broken, default)
    assert [str(e) for e in with_default.value.errors] == [str(e) for e in alone.value.errors]


def _read(scenario) -> tuple:
    changes = scenario.changes
    return (
        [(n.name, n.line, dict(n.labels)) for n in scenario.nodes],
        [(p.key, p.line) for p in scenario.pods],
        [n.message for n in scenario.notices],
        [(w.kind, w.name) for w in scenario.workloads],
        None
        if changes is None
        else (len(changes.steps), sorted(map(str, changes.manifests)), [(w.kind, w.name) for w in changes.workloads]),
    )


def test_a_budget_carries_its_spec_for_the_disruption_controller_only_in_a_run_with_steps():
    budget = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {maxUnavailable: "25%", selector: {matchLabels: {app: web}}}
status: {disruptionsAllowed: 1}
"""
    steps = """apiVersion: schedlab.io/v1alpha1
kind: Changes
steps:
- name: maintenance
  operations:
  - cordon: {node: n1}
"""
    without = load_scenario(stream(NODE, budget))
    assert [pdb.spec for pdb in without.pdbs] == [None]  # nothing computes its status: the dump's holds
    loaded = load_scenario(stream(NODE, budget, steps))
    (spec,) = [pdb.spec for pdb in loaded.pdbs]
    assert (spec.max_unavailable, spec.min_available) == ("25%", None)
    assert loaded.pdbs[0].disruptions_allowed == 1


DECLARING_NODE = NODE + "  declaredFeatures: [RestartAllContainersOnContainerExits]\n"


def test_declared_features_are_kept_with_node_declared_features_on():
    scenario = load_scenario(DECLARING_NODE, release=ReleaseRequest(release_named("v1.36")))
    assert scenario.nodes[0].declared_features == ("RestartAllContainersOnContainerExits",)
    assert not [n for n in scenario.notices if n.code is NoticeCode.DECLARED_FEATURES_OFF]


def test_declared_features_are_ignored_with_a_notice_when_the_gate_is_off():
    # Kept in the model (an upgrade comparison replays the scenario as loaded under the newer
    # release); nothing reads them with the gate off.
    scenario = load_scenario(DECLARING_NODE, release=ReleaseRequest(release_named("v1.35")))
    assert scenario.nodes[0].declared_features == ("RestartAllContainersOnContainerExits",)
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.DECLARED_FEATURES_OFF]
    assert notice.objects == ("Node n1",)
    assert notice.message == (
        "status.declaredFeatures of 1 node(s) ignored: the feature gate NodeDeclaredFeatures is off in "
        "this release (its API server drops the field) and the NodeDeclaredFeatures plugin does not run"
    )


DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"


def _loaded_or_errors(text: str):
    """What a load gives, comparable (the model's objects compare by identity): the check report,
    the single pass's trace, every object's line — or the problems."""
    from scheduler_core import simulate, trace_summary
    from scheduler_core.answers.check import check_scenario

    try:
        scenario = load_scenario(text)
    except ScenarioInvalid as invalid:
        return invalid.errors
    lines = [(n.name, n.line) for n in scenario.nodes] + [(p.key, p.line) for p in scenario.pods]
    steps = len(scenario.changes.steps) if scenario.changes is not None else None
    return check_scenario(scenario).to_json(), trace_summary(simulate(scenario)), lines, steps


def test_a_big_text_read_a_run_of_documents_at_a_time_loads_as_it_does_whole(monkeypatch):
    """Runs of a few documents (as a 16 MB run of a big dump): the same scenario, or the same
    problems, syntax problems and each object's, as for one run."""
    from scheduler_core.scenario import yamltree

    broken = stream(
        NODE,
        pod(CONTAINER + "nodeName: [5]\n", "z"),
        pod(CONTAINER, "a"),
        pod(CONTAINER + "priorityClassName: nowhere\n", "b"),
        pod(CONTAINER, "c", extra_meta="labels: {x: '1'}\nlabels: {y: '2'}"),
        pod(CONTAINER + "nodeName: 5\n", "d"),
        NODE,
    )
    texts = [(DUMPS / name).read_text() for name in ("kubeadm_calico.yaml", "aks_mid_preemption.yaml")]
    texts += [
        (DUMPS / "onprem_sidecars_resize.yaml").read_text()
        + "---\nkind: Changes\napiVersion: schedlab.io/v1\nsteps: []\n"
    ]
    for text in [*texts, broken]:
        whole = _loaded_or_errors(text)
        monkeypatch.setattr(yamltree, "RUN_CHARS", 300)
        in_runs = _loaded_or_errors(text)
        monkeypatch.undo()
        assert in_runs == whole
    problems = _loaded_or_errors(broken)
    assert isinstance(problems, list) and len(problems) == 5
    messages = [problem.message for problem in problems]
    assert any("duplicate key" in m for m in messages)  # a syntax problem, and the objects' own
    assert any('no PriorityClass with name "nowhere"' in m for m in messages)  # said once every class is known


# ---------------------------------------------------------------------------- a big text in two processes

REPO = Path(__file__).resolve().parents[3]
SHARED_DIR = REPO.parent / "shared"


def _plain(value: object) -> object:
    """A loaded value as nested tuples of what it holds (compared fields only, in order): two loads
    compare equal exactly when they read the same, whichever of their equal parts are one object."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        compared = [f.name for f in dataclasses.fields(value) if f.compare]
        return (type(value).__name__, tuple((name, _plain(getattr(value, name))) for name in compared))
    if isinstance(value, dict):
        return ("dict", tuple((_plain(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_plain(item) for item in value))
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, frozenset(_plain(item) for item in value))
    return value if value is None or isinstance(value, (str, int, float, bytes, enum.Enum)) else repr(value)


def _read_both_ways(text: str, limits: Limits | None = None) -> tuple[object, object]:
    """The text read in one process and in two: the scenario, or the problems."""

    def read(second_process: bool) -> object:
        try:
            return _plain(load_scenario(text, limits=limits, second_process=second_process))
        except ScenarioInvalid as invalid:
            return invalid.errors

    return read(False), read(True)


@pytest.fixture
def split_everything(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every text of two documents or more is cut in two; the list gets one entry per cut read in two
    processes: whether the child's half was taken as it read it."""
    monkeypatch.setattr(yamltree, "SPLIT_CHARS", 0)
    taken: list[bool] = []
    merged = loader._merged

    def noting(*args: object) -> bool:
        taken.append(merged(*args))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(loader, "_merged", noting)
    return taken


def test_every_corpus_text_read_in_two_processes_is_the_text_read_in_one(split_everything):
    files = [
        *sorted((SHARED_DIR / "conformance" / "public").glob("*.yaml")),
        *sorted((SHARED_DIR / "conformance-timeline" / "public").glob("*.yaml")),
        *sorted((REPO / "tests" / "fixtures" / "dumps").glob("*.yaml")),
        *sorted((REPO / "examples").glob("*.yaml")),
    ]
    assert len(files) > 150
    for path in files:
        one, two = _read_both_ways(path.read_text())
        assert one == two, path
    # The child's half was taken for most of them (the rest: a Changes document, one document only).
    assert split_everything.count(True) > 120


def _pods(count: int, first: int = 0, spec: str = CONTAINER) -> list[str]:
    return [pod(spec, f"p{number}") for number in range(first, first + count)]


@pytest.mark.parametrize(
    "text",
    [
        # a name in both halves: the second is a duplicate, named at its line
        stream(NODE, *_pods(6), *_pods(1, 2)),
        # a priority class the second half names and nobody defines: the admission's problem, at its pod
        stream(NODE, *_pods(6), pod(CONTAINER + "priorityClassName: missing\n", "late")),
        # a syntax error in either half, which ends the parse there
        stream(NODE, "kind: Pod\nmetadata: {name: [unclosed\n", *_pods(6)),
        stream(NODE, *_pods(6), "kind: Pod\nmetadata: {name: [unclosed\n"),
        # an invalid field in the second half
        stream(NODE, *_pods(6), pod(CONTAINER, "bad", "labels: {tier: 1}")),
        # the configuration, DRA and a PriorityClass after the middle
        stream(NODE, *_pods(6), "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"),
        stream(NODE, *_pods(6), "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"),
        stream(
            NODE,
            *_pods(6, spec=CONTAINER + "priorityClassName: high\n"),
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 1000\n",
        ),
        # empty documents, comments and "..." around the cut
        "# a dump\n" + stream(NODE, *_pods(3), "", "", *_pods(3, 3)) + "---\n",
        stream(NODE, *_pods(3)) + "...\n" + stream(*_pods(3, 3)),
    ],
)
def test_a_text_read_in_two_processes_has_the_one_process_reads_problems_and_objects(split_everything, text):
    one, two = _read_both_ways(text)
    assert one == two


def test_a_limit_passed_only_by_both_halves_together_is_named_as_one_process_names_it(split_everything):
    text = stream(NODE, *_pods(8))
    one, two = _read_both_ways(text, Limits(max_pods=7))
    assert one == two and isinstance(one, list) and "more than 7 pods" in one[0].message
    assert split_everything == [False]


def test_the_halves_objects_keep_their_order_lines_and_numbers(split_everything):
    scenario = load_scenario(stream(NODE, *_pods(9)), second_process=True)
    assert split_everything == [True]
    assert [pod.name for pod in scenario.pods] == [f"p{n}" for n in range(9)]
    assert [pod.doc_index for pod in scenario.pods] == list(range(9))
    assert scenario.pods[-1].line == line_of(stream(NODE, *_pods(9)), "name: p8") - 3  # its apiVersion line


def test_every_field_a_read_collects_is_added_to_the_first_halfs_one_way_or_another():
    handled = (
        loader._CONCATENATED + loader._UPDATED + loader._NOT_SENT + loader._MERGED_APART + loader._EMPTY_IN_A_HALF_TAKEN
    )
    assert sorted(handled) == sorted(f.name for f in dataclasses.fields(loader._Collected))


def test_sources_given_up_are_emptied_as_they_are_read_and_read_the_same():
    # load_paths gives its own list of files (let_go): each file's bytes go once decoded, the scenario
    # the same as a read that keeps them; a list not given up is left as it was.
    from scheduler_core.scenario.loader import SourceText, load_sources

    def sources() -> list[SourceText]:
        return [SourceText("a.yaml", stream(NODE).encode()), SourceText("b.yaml", pod(CONTAINER, "a"))]

    kept, given = sources(), sources()
    read_kept, read_given = load_sources(kept), load_sources(given, let_go=True)
    assert kept == sources() and [source.text for source in given] == ["", ""]
    assert [source.name for source in given] == ["a.yaml", "b.yaml"]
    assert [n.name for n in read_given.nodes] == [n.name for n in read_kept.nodes] == ["n1"]
    assert [p.key for p in read_given.pods] == [p.key for p in read_kept.pods]
    assert [n.to_json() for n in read_given.notices] == [n.to_json() for n in read_kept.notices]


def test_devices_with_binding_conditions_are_named_where_the_release_keeps_them():
    """Nobody in a replay sets a device's binding conditions: the notice says what follows."""
    text = (REPO / "examples" / "dra_binding_conditions.yaml").read_text()
    [notice] = [n for n in load_scenario(text).notices if n.code is NoticeCode.BINDING_CONDITIONS]
    assert notice.objects == ("ResourceSlice fabric-gpus",)
    assert notice.message.startswith("2 device(s) have binding conditions: a pod allocated one waits in PreBind")
    older = load_scenario(text, release=ReleaseRequest(release_named("v1.35")))
    assert not [n for n in older.notices if n.code is NoticeCode.BINDING_CONDITIONS]
