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
from scheduler_core.model import NoticeCode
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
        (NodeSelectorRequirement("metadata.name", "NotIn", ("n9",)),),
    )
    [preferred] = found.preferred
    assert (preferred.weight, preferred.preference.match_expressions) == (
        30,
        (NodeSelectorRequirement("disk", "Exists", ()),),
    )


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
    assert required.label_selector == LabelSelector(
        (("app", "db"),), (LabelSelectorRequirement("tier", "NotIn", ("test",)),)
    )
    assert (required.topology_key, required.namespaces, required.match_label_keys) == ("zone", ("prod",), ("version",))
    [preferred] = found.pod_anti_affinity.preferred
    assert (preferred.weight, preferred.term.topology_key) == (100, "kubernetes.io/hostname")
    assert found.node_affinity is None


REQUIRED_NODE = "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
PREFERRED_NODE = "nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
REQUIRED_POD = "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def required_term(term: str) -> str:
    return f"""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - {term}
"""


def preferred_term(term: str, weight: str = "weight: 10") -> str:
    return f"""  nodeAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - {weight}
      preference: {term}
"""


def required_pod_term(term: str, kind: str = "podAffinity") -> str:
    """A required (anti-)affinity term written in flow style on one line."""
    return f"""  {kind}:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {term}
"""


@pytest.mark.parametrize(
    ("body", "path", "message", "at"),
    [
        pytest.param(
            """  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}
""",
            "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
            "Required value: must have at least one node selector term",
            "nodeSelectorTerms",
            id="a required node affinity needs a term",
        ),
        pytest.param(
            required_term("matchExpressions: [{key: zone, operator: In}]"),
            f"{REQUIRED_NODE}.matchExpressions[0].values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "operator: In",
            id="In needs values",
        ),
        pytest.param(
            required_term("matchExpressions: [{key: cores, operator: Gt, values: ['1', '2']}]"),
            f"{REQUIRED_NODE}.matchExpressions[0].values",
            "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
            "operator: Gt",
            id="Gt takes one value",
        ),
        pytest.param(
            required_term("matchFields: [{key: metadata.uid, operator: In, values: [x]}]"),
            f"{REQUIRED_NODE}.matchFields[0].key",
            'invalid value "metadata.uid": not a valid field selector key',
            "matchFields",
            id="matchFields reads metadata.name only",
        ),
        pytest.param(
            """  nodeAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - {preference: {matchExpressions: [{key: disk, operator: Exists}]}}
""",
            f"{PREFERRED_NODE}.weight",
            "invalid value 0: must be in the range 1-100",
            "preference:",
            id="a preferred term needs a weight",
        ),
        pytest.param(
            required_pod_term("{labelSelector: {matchLabels: {app: db}}}"),
            f"{REQUIRED_POD}.topologyKey",
            "Required value: can not be empty",
            "labelSelector",
            id="a pod affinity term needs a topology key",
        ),
        pytest.param(
            required_pod_term("{topologyKey: zone, labelSelector: {}, matchLabelKeys: [v], mismatchLabelKeys: [v]}"),
            f"{REQUIRED_POD}.matchLabelKeys[0]",
            'invalid value "v": exists in both matchLabelKeys and mismatchLabelKeys',
            "topologyKey: zone",
            id="a key cannot both match and mismatch",
        ),
        pytest.param(
            required_pod_term(
                "{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Exists, values: [x]}]}}"
            ),
            f"{REQUIRED_POD}.labelSelector.matchExpressions[0].values",
            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            "topologyKey: zone",
            id="Exists takes no values",
        ),
        # ValidateLabelSelectorRequirement's default case (Gt is a node selector operator only).
        pytest.param(
            required_pod_term(
                "{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ['1']}]}}"
            ),
            f"{REQUIRED_POD}.labelSelector.matchExpressions[0].operator",
            'invalid value "Gt": not a valid selector operator',
            "topologyKey",
            id="an unknown operator is refused as no selector operator",
        ),
        # validateLabelKeys reads the list once; so does the loader, even when matchLabelKeys is no list.
        pytest.param(
            required_pod_term(
                "{topologyKey: zone, labelSelector: {}, matchLabelKeys: version, mismatchLabelKeys: [version]}"
            ),
            f"{REQUIRED_POD}.matchLabelKeys",
            'expected a list, got a string ("version")',
            "topologyKey",
            id="label keys that are no list are reported once",
        ),
        # ValidateMatchLabelKeysAndMismatchLabelKeys step 2: ``version`` is in matchLabels and in an
        # expression, which the release refuses whatever the pod's labels (the merge only adds).
        pytest.param(
            """  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: zone
      labelSelector:
        matchLabels: {version: v1}
        matchExpressions: [{key: version, operator: In, values: [v1]}]
      matchLabelKeys:
      - team
      - version
""",
            f"{REQUIRED_POD}.matchLabelKeys[1]",
            'invalid value "version": exists in both matchLabelKeys and labelSelector',
            "- version",
            id="a match label key the selector names twice is refused",
        ),
    ],
)
def test_an_invalid_selector_is_refused_at_its_field(body, path, message, at):
    """Exactly one error, at its field's path and line, worded as the release words it."""
    found, text = refused(body)
    assert found == [(f"{AFFINITY}.{path}", message, line_of(text, at))]


@pytest.mark.parametrize(
    ("body", "path", "message", "at"),
    [
        pytest.param(
            preferred_term("{matchFields: [{key: metadata.name, operator: In, values: [a, b, c]}]}"),
            f"{PREFERRED_NODE}.preference.matchFields[0].values",
            "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            "preference:",
            id="a preferred matchFields with three values",
        ),
        pytest.param(
            required_term("matchFields: [{key: metadata.name, operator: NotIn, values: []}]"),
            f"{REQUIRED_NODE}.matchFields[0].values",
            "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            "matchFields",
            id="a required matchFields without values",
        ),
        pytest.param(
            required_term("matchFields: [{key: metadata.name, operator: Exists}]"),
            f"{REQUIRED_NODE}.matchFields[0].operator",
            'invalid value "Exists": not a valid selector operator',
            "matchFields",
            id="matchFields takes In and NotIn only",
        ),
        pytest.param(
            required_term("matchFields: [{key: metadata.name, operator: In, values: [Node_1]}]"),
            f"{REQUIRED_NODE}.matchFields[0].values[0]",
            'invalid value "Node_1": a lowercase RFC 1123 subdomain',
            "matchFields",
            id="a matchFields value is a node name",
        ),
        pytest.param(
            required_term("matchExpressions: [{operator: Exists}]"),
            f"{REQUIRED_NODE}.matchExpressions[0].key",
            'invalid value "": name part must be non-empty',
            "matchExpressions",
            id="a requirement without a key",
        ),
        pytest.param(
            required_term("matchExpressions: [{key: zone}]"),
            f"{REQUIRED_NODE}.matchExpressions[0].operator",
            'invalid value "": not a valid selector operator',
            "matchExpressions",
            id="a requirement without an operator",
        ),
        pytest.param(
            preferred_term("{matchExpressions: [{key: disk, operator: Exists}]}", "weight: 101"),
            f"{PREFERRED_NODE}.weight",
            "invalid value 101: must be in the range 1-100",
            "weight: 101",
            id="a preferred node term weighs at most 100",
        ),
        pytest.param(
            required_pod_term("{topologyKey: zone, matchLabelKeys: [version]}", kind="podAntiAffinity"),
            "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys",
            "Forbidden: must not be specified when labelSelector is not set",
            "topologyKey: zone",
            id="matchLabelKeys without a labelSelector",
        ),
        pytest.param(
            """  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: zone
      labelSelector: {}
      namespaces:
      - Prod
""",
            "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace",
            'invalid value "Prod": a lowercase RFC 1123 label',
            "- Prod",
            id="a namespace not a DNS label",
        ),
    ],
)
def test_node_selectors_and_affinity_terms_are_refused_as_the_release_words_it(body, path, message, at):
    """ValidateNodeFieldSelectorRequirement (one metadata.name value, In/NotIn, a node name),
    ValidateNodeSelectorRequirement (label values in required terms; ValidateLabelName on the key;
    the operator switch's default case), ValidatePreferredSchedulingTerms (weight 1-100),
    validateLabelKeys (only beside a labelSelector) and validatePodAffinityTerm (namespaces
    reported at the term's ``namespace``)."""
    found, text = refused(body)
    assert [(p, message in m, line) for p, m, line in found] == [(f"{AFFINITY}.{path}", True, line_of(text, at))], found


def test_what_the_release_accepts_in_node_selectors_and_affinity_loads():
    """The same functions' edges: a required term's Gt value is counted, not parsed as an integer
    (it must still be a label value); a preferred term's values may be any string
    (ValidatePreferredSchedulingTerms passes allowInvalidLabelValue); Exists with an empty value
    list; weights 1 and 100; one matchFields value either way; label keys beside an empty
    labelSelector; a pod's required matchFields with several values, which SchedLab keeps for the
    conformance corpus (the term never matches, as in the release)."""
    found = the_affinity("""  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: cores, operator: Gt, values: [v2]}, {key: disk, operator: Exists, values: []}]
        matchFields: [{key: metadata.name, operator: NotIn, values: [n9]}]
      - matchFields: [{key: metadata.name, operator: In, values: [n1, n2]}]
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 1
      preference: {matchExpressions: [{key: zone, operator: In, values: ['not a label value']}]}
    - weight: 100
      preference: {matchFields: [{key: metadata.name, operator: In, values: [n1]}]}
  podAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm: {topologyKey: zone, labelSelector: {}, matchLabelKeys: [version], mismatchLabelKeys: [team]}
""")
    required = found.node_affinity.required.terms
    assert required[0].match_expressions[0].values == ("v2",)
    assert required[1].match_fields == (NodeSelectorRequirement("metadata.name", "In", ("n1", "n2")),)
    assert [p.weight for p in found.node_affinity.preferred] == [1, 100]
    [term] = found.pod_affinity.preferred
    assert (term.term.match_label_keys, term.term.mismatch_label_keys) == (("version",), ("team",))


def test_a_stored_pod_whose_selector_holds_its_merged_match_label_key_loads():
    """A pod read from a dump: creation already appended ``version In (v1)`` for its matchLabelKeys
    (the pod registry's applyMatchLabelKeysAndMismatchLabelKeys), and the stored object is valid."""
    text = stream(
        NODE,
        pod(
            CONTAINER
            + """affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: zone
      labelSelector:
        matchLabels: {app: web}
        matchExpressions: [{key: version, operator: In, values: [v1]}]
      matchLabelKeys: [version]
""",
            extra_meta="labels: {app: web, version: v1}",
        ),
    )
    [term] = load_scenario(text).pods[0].affinity.pod_anti_affinity.required
    assert term.match_label_keys == ("version",)


def test_an_existing_pods_required_term_keeps_an_invalid_label_value_with_a_notice():
    """allowInvalidLabelValueInRequiredNodeAffinity: the v1.35 API server lets a pod that already
    has such a value keep it (a dump's pods), so it loads, the value named at its field and line in
    a notice; the term never matches (labels.py), as the release's lazy selector parse makes it."""
    text = stream(
        NODE,
        pod(
            CONTAINER
            + "affinity:\n"
            + """  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: zone, operator: NotIn, values: ['___@#$%^']}]
"""
        ),
    )
    scenario = load_scenario(text)
    [notice] = [n for n in scenario.notices if n.code is NoticeCode.KEPT_INVALID]
    path = f"{AFFINITY}.{REQUIRED_NODE}.matchExpressions[0].values[0]"
    assert path in notice.message and f"(line {line_of(text, '___@#$%^')})" in notice.message
    assert 'invalid value "___@#$%^"' in notice.message and notice.objects == ("Pod default/web-1",)
    [term] = scenario.pods[0].affinity.node_affinity.required.terms
    assert term.match_expressions[0].values == ("___@#$%^",)


def test_a_new_pods_or_a_volumes_invalid_label_value_is_still_refused():
    """Only a pod that exists keeps one: a PersistentVolume's node affinity (ValidateNodeSelector as
    objects are created) refuses it; so would a pod a step creates (scenario/manifests)."""
    volume = """---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /x}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: zone, operator: In, values: ['a b']}]
"""
    found = errors_of(stream(NODE) + volume)
    assert [(e.path, 'invalid value "a b"' in e.message) for e in found] == [
        ("spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]", True)
    ]
