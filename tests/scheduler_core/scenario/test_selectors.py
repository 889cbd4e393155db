"""scenario/selectors.py: label selectors, node selectors and (anti-)affinity read from a pod, and
refused as the API server refuses them, each problem at its field and line."""

from __future__ import annotations

import pytest

from scheduler_core.model import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from scheduler_core.scenario import load_scenario
from tests.scheduler_core.scenario.support import CONTAINER, NODE, errors_of, line_of, pod, stream

AFFINITY = "spec.affinity"


def the_affinity(body: str):
    return load_scenario(stream(NODE, pod(CONTAINER + "affinity:\n" + body))).pods[0].affinity


def refused(body: str) -> tuple[list[tuple[str, str, int]], str]:
    text = stream(NODE, pod(CONTAINER + "affinity:\n" + body))
    return [(e.path, e.message, e.line) for e in errors_of(text)], text


def test_it_reads_required_and_preferred_node_affinity():
    found = the_affinity("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: zone, operator: In, values: [a, b]}, {key: cores, operator: Gt, values: ['4']}]
        matchFields: [{key: metadata.name, operator: NotIn, values: [n9]}]
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 30
      preference: {matchExpressions: [{key: disk, operator: Exists}]}
""").node_affinity
    [term] = found.required.terms
    assert term == NodeSelectorTerm(
        (NodeSelectorRequirement("zone", "In", ("a", "b")), NodeSelectorRequirement("cores", "Gt", ("4",))),
        (NodeSelectorRequirement("metadata.name", "NotIn", ("n9",)),))
    [preferred] = found.preferred
    assert (preferred.weight, preferred.preference.match_expressions) == (
        30, (NodeSelectorRequirement("disk", "Exists", ()),))


def test_it_reads_pod_affinity_and_anti_affinity_terms():
    found = the_affinity("""  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchLabels: {app: db}, matchExpressions: [{key: tier, operator: NotIn, values: [test]}]}
      topologyKey: zone
      namespaces: [prod]
      matchLabelKeys: [version]
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
""")
    [required] = found.pod_affinity.required
    assert required.label_selector == LabelSelector((("app", "db"),), (LabelSelectorRequirement("tier", "NotIn", ("test",)),))
    assert (required.topology_key, required.namespaces, required.match_label_keys) == ("zone", ("prod",), ("version",))
    [preferred] = found.pod_anti_affinity.preferred
    assert (preferred.weight, preferred.term.topology_key) == (100, "kubernetes.io/hostname")
    assert found.node_affinity is None


@pytest.mark.parametrize(("body", "path", "message", "at"), [
    pytest.param("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}
""", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
        "Required value: must have at least one node selector term", "nodeSelectorTerms",
        id="a required node affinity needs a term"),
    pytest.param("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In}]}]
""", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
        "Required value: must be specified when `operator` is 'In' or 'NotIn'", "operator: In", id="In needs values"),
    pytest.param("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: cores, operator: Gt, values: ['1', '2']}]}]
""", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
        "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'", "operator: Gt",
        id="Gt takes one value"),
    pytest.param("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchFields: [{key: metadata.uid, operator: In, values: [x]}]}]
""", "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key",
        'invalid value "metadata.uid": not a valid field selector key', "matchFields",
        id="matchFields reads metadata.name only"),
    pytest.param("""  nodeAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - {preference: {matchExpressions: [{key: disk, operator: Exists}]}}
""", "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
        "invalid value 0: must be in the range 1-100", "preference:", id="a preferred term needs a weight"),
    pytest.param("""  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {labelSelector: {matchLabels: {app: db}}}
""", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
        "Required value: can not be empty", "labelSelector", id="a pod affinity term needs a topology key"),
    pytest.param("""  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {topologyKey: zone, labelSelector: {}, matchLabelKeys: [v], mismatchLabelKeys: [v]}
""", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]",
        'invalid value "v": exists in both matchLabelKeys and mismatchLabelKeys', "topologyKey: zone",
        id="a key cannot both match and mismatch"),
    pytest.param("""  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Exists, values: [x]}]}}
""", "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values",
        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'", "topologyKey: zone",
        id="Exists takes no values"),
])
def test_an_invalid_selector_is_refused_at_its_field(body, path, message, at):
    found, text = refused(body)
    assert found == [(f"{AFFINITY}.{path}", message, line_of(text, at))]


def test_an_unknown_operator_is_refused_as_no_selector_operator():
    """ValidateLabelSelectorRequirement's default case (Gt is a node selector operator only)."""
    found, text = refused("""  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ['1']}]}}
""")
    [(path, message, line)] = found
    assert path == f"{AFFINITY}.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator"
    assert message == 'invalid value "Gt": not a valid selector operator' and line == line_of(text, "topologyKey")
