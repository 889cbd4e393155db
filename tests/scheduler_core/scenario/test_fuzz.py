"""Adversarial input: load_scenario returns a Scenario or raises ScenarioInvalid with errors — nothing else,
never an internal error (the catch-all in load_scenario must never be needed), never a hang."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_core.model import Scenario
from scheduler_core.scenario import Limits, ScenarioInvalid, load_scenario

SMALL = Limits(max_bytes=200_000, max_nodes=50, max_pods=50, max_pending_pods=50, max_documents=50)


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
    )


VALID_POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web-1",
        "namespace": "prod",
        "labels": {"app": "web"},
        "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "controller": True}],
    },
    "spec": {
        "nodeName": "n1",
        "priority": 10,
        "nodeSelector": {"disk": "ssd"},
        "preemptionPolicy": "Never",
        "containers": [
            {
                "name": "c",
                "image": "nginx",
                "ports": [{"containerPort": 80, "hostPort": 80}],
                "resources": {"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}},
            }
        ],
        "initContainers": [{"name": "i", "restartPolicy": "Always"}],
        "overhead": {"cpu": "10m"},
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["4"]}],
                            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
                        }
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 3, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}
                ],
            },
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "topologyKey": "zone",
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "namespaces": ["x"],
                        "namespaceSelector": {"matchExpressions": [{"key": "t", "operator": "In", "values": ["a"]}]},
                    }
                ]
            },
        },
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "minDomains": 2,
                "labelSelector": {"matchLabels": {"app": "web"}},
                "matchLabelKeys": ["tier"],
                "nodeTaintsPolicy": "Honor",
            }
        ],
    },
}
VALID_NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {"zone": "a"}},
    "spec": {"unschedulable": False, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
    "status": {
        "capacity": {"cpu": "4", "memory": "8Gi", "example.com/gpu": "2"},
        "images": [{"names": ["nginx"], "sizeBytes": 10}],
    },
}
VALID_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "percentageOfNodesToScore": 50,
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 2}]}},
            "pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 5}}],
        }
    ],
}


def _outcome(text: str | bytes) -> None:
    try:
        result = load_scenario(text, limits=SMALL)
    except ScenarioInvalid as invalid:
        assert invalid.errors
        assert not any("internal error" in e.message for e in invalid.errors), [str(e) for e in invalid.errors]
        for error in invalid.errors:
            assert isinstance(error.message, str) and str(error)
        return
    assert isinstance(result, Scenario)


def test_the_fixtures_are_valid():
    assert isinstance(load_scenario(yaml.safe_dump_all([VALID_NODE, VALID_POD, VALID_CONFIG])), Scenario)


# ---------------------------------------------------------------------------- strategies

junk_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**62, max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(
        [
            "",
            "-1",
            "1e999999999",
            "0x10",
            "In",
            "Gt",
            "Exists",
            "NoSchedule",
            "Always",
            "1.5Ki",
            "abc",
            "-",
            ".",
            "Bad Name",
            "a" * 300,
            "kubernetes.io/hostname",
            "é",
            "\t",
        ]
    ),
)
junk = st.recursive(
    junk_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["name", "key", "values", "operator"]), inner, max_size=3
        )
    ),
    max_leaves=8,
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


def _replace(document: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    document = copy.deepcopy(document)
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return document


@st.composite
def mutated_documents(draw) -> str:
    documents = [copy.deepcopy(VALID_NODE), copy.deepcopy(VALID_POD), copy.deepcopy(VALID_CONFIG)]
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, 2))
        path = draw(st.sampled_from(_paths(documents[index])))
        documents[index] = _replace(documents[index], path, draw(junk))
    return yaml.safe_dump_all(documents, allow_unicode=True)


# ---------------------------------------------------------------------------- properties


@fuzz(250)
@given(mutated_documents())
def test_wrong_types_and_values_anywhere_only_raise_scenario_invalid(text):
    _outcome(text)


@fuzz(150)
@given(st.binary(max_size=400))
def test_random_bytes_only_raise_scenario_invalid(data):
    _outcome(data)


@fuzz(150)
@given(st.text(alphabet=st.sampled_from(list("[]{}:-,&*!|>'\"#%@` \n\tab01<?")), max_size=200))
def test_random_yaml_punctuation_only_raises_scenario_invalid(text):
    _outcome(text)


@fuzz(100)
@given(st.lists(junk, max_size=4))
def test_random_yaml_structures_only_raise_scenario_invalid(documents):
    _outcome(yaml.safe_dump_all(documents))


@fuzz(50)
@given(st.integers(1, 20), st.integers(2, 12), st.sampled_from(["[", "{a: "]))
def test_alias_bombs_and_deep_nesting_are_refused_fast(levels, fanout, opener):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * fanout) + "]")
    _outcome("\n".join(lines) + "\nkind: Node\nmetadata: {name: n}\n")
    closer = "]" if opener == "[" else "}"
    _outcome(opener * (levels * 500) + "1" + closer * (levels * 500))


def test_a_nesting_bomb_at_the_size_limit_is_refused_in_well_under_a_second():
    import time

    start = time.perf_counter()
    _outcome("[" * 190_000 + "]" * 190_000)
    assert time.perf_counter() - start < 1.0
