"""webui/schemas/capacity.py: a question's input is bounded as declared; its progress is written in
camelCase; the answers the API serves (OpenAPI) are the engine's declarations (capacity_json.py) less
their trials, plus the few fields the web app adds — a field the engine adds, drops or retypes is
served so, and a schema written by hand beside the declaration fails here."""

from typing import Any

import msgspec
import pytest
from pydantic import ValidationError

from scheduler_core.answers import capacity_json
from webui.api import api
from webui.schemas.capacity import CapacityIn, CapacityProgressOut


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "how many"},
        {"kind": "fit", "max": 0},
        {"kind": "fit", "max": 100_001},
        {"kind": "nodes", "likes": ["n"] * 11},
        {"kind": "fit", "workload": "x" * 401},
    ],
    ids=[
        "an unknown kind",
        "a max below one",
        "a max over 100000",
        "more than ten template nodes",
        "a name over 400 characters",
    ],
)
def test_it_refuses_a_question_out_of_bounds(body: dict):
    with pytest.raises(ValidationError):
        CapacityIn.model_validate(body)


def test_the_one_pass_s_rate_is_written_as_copies_per_second():
    out = CapacityProgressOut(done=1, estimate=2, copies=30, copies_per_second=812.5)
    assert out.model_dump() == {"done": 1, "estimate": 2, "copies": 30, "copiesPerSecond": 812.5}


# The answer's schema in OpenAPI, its declaration, and the fields the web app adds (its own schema).
SERVED = {
    "fit": ("FitOut", capacity_json.FitAnswerJSON, {}),
    "copies": (
        "CopiesOut",
        capacity_json.PassAnswerJSON,
        {"checkedNext": None, "placements": None, "stoppedAtMax": {"type": "boolean"}, "perNode": "PerNodeOut"},
    ),
    "nodes": ("NodesNeededOut", capacity_json.NodesAnswerJSON, {}),
    "removable": ("RemovableOut", capacity_json.RemovableAnswerJSON, {}),
    "fragmentation": ("FragmentationOut", capacity_json.FragmentationAnswerJSON, {}),
}
OPENAPI = api.get_openapi_schema()
COMPONENTS = OPENAPI["components"]["schemas"]


def inlined(node: Any, defs: dict[str, Any]) -> Any:
    """Every $ref replaced by what it names; titles, descriptions and pydantic's explicit open maps dropped."""
    if isinstance(node, dict):
        if "$ref" in node:
            return inlined(defs[node["$ref"].rsplit("/", 1)[1]], defs)
        return {
            k: inlined(v, defs)
            for k, v in node.items()
            if k not in ("title", "description") and (k, v) != ("additionalProperties", True)
        }
    return [inlined(v, defs) for v in node] if isinstance(node, list) else node


def without_trials(node: Any) -> Any:
    """The declaration's schema less every field that holds a TrialJSON, at any depth (as stored and served)."""
    if isinstance(node, dict):
        properties = node.get("properties", {})
        trials = {key for key, value in properties.items() if "#/$defs/TrialJSON" in str(value)}
        kept = {k: without_trials(v) for k, v in node.items() if k not in ("properties", "required")}
        if "properties" in node:
            kept["properties"] = {k: without_trials(v) for k, v in properties.items() if k not in trials}
        if "required" in node:
            kept["required"] = [k for k in node["required"] if k not in trials]
        return kept
    return [without_trials(v) for v in node] if isinstance(node, list) else node


def declared(struct: type[msgspec.Struct]) -> dict[str, Any]:
    _, components = msgspec.json.schema_components([struct], ref_template="#/$defs/{name}")
    trimmed = without_trials(components)
    return inlined(trimmed[struct.__name__], trimmed)


@pytest.mark.parametrize(("component", "struct", "added"), SERVED.values(), ids=SERVED.keys())
def test_each_answer_the_api_serves_is_the_engine_s_declaration_less_its_trials(component, struct, added):
    answer = COMPONENTS["AnswerOut"]["properties"][next(k for k, v in SERVED.items() if v[0] == component)]
    assert {"$ref": f"#/components/schemas/{component}"} in answer["anyOf"]
    served = inlined(COMPONENTS[component], COMPONENTS)
    expected = declared(struct)
    if "explanation" in expected["properties"]:
        # the engine's CycleExplanation (CycleExplanationOut, made from it as the run view's explanations
        # are), or the headline an answer stored before the declarations kept (migration 0012)
        assert COMPONENTS[component]["properties"]["explanation"]["anyOf"] == [
            {"$ref": "#/components/schemas/CycleExplanationOut"},
            {"$ref": "#/components/schemas/HeadlineOnlyOut"},
            {"type": "null"},
        ]
        expected["properties"]["explanation"] = served["properties"]["explanation"]
    for key, schema in added.items():  # what the web app adds in place of, or beside, the engine's fields
        if schema is None:
            del expected["properties"][key]
            expected["required"].remove(key)
        else:
            expected["properties"][key] = inlined(COMPONENTS[schema], COMPONENTS) if isinstance(schema, str) else schema
            expected["required"].append(key)
    if component == "CopiesOut":  # the engine's count per domain, its domains bounded: counted by domainCount
        spread = expected["properties"]["perDomain"]["anyOf"][0]
        spread["properties"]["domainCount"] = {"type": "integer"}
        spread["required"].append("domainCount")
    assert served == expected
    assert "TrialJSON" not in str(COMPONENTS[component]) and "scenarioText" not in str(served)
