"""webui/schemas/common.py: fields named in snake_case are read and written in the API's camelCase, every
schema of every router follows that rule, a schema made from an engine payload's declaration
(EngineSchema) has its fields and its JSON Schema, and errors have one shape."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re

from typing import Any, Optional

import msgspec
import pytest
from pydantic.alias_generators import to_camel

import webui.schemas
from scheduler_core.util.wire import Wire
from webui.schemas.common import ApiInput, ApiSchema, EngineSchema, ErrorOut


class Cycle(ApiSchema):
    first_seq: int
    pod: str
    node_name: str | None = None


class Body(ApiInput):
    compare_run: int | None = None


def test_an_answer_is_built_by_either_name_and_written_by_its_camel_case_one():
    by_name, by_json = Cycle(first_seq=3, pod="p"), Cycle.model_validate({"firstSeq": 3, "pod": "p"})
    assert by_name == by_json
    assert by_name.model_dump() == {"firstSeq": 3, "pod": "p", "nodeName": None}
    assert json.loads(by_name.model_dump_json(exclude_unset=True)) == {"firstSeq": 3, "pod": "p"}


def test_a_request_body_is_read_by_its_camel_case_names_only():
    assert Body.model_validate({"compareRun": 4}).compare_run == 4
    assert Body.model_validate({"compare_run": 4}).compare_run is None  # ignored, as any unknown key


def _schemas() -> list[type[ApiSchema]]:
    for module in pkgutil.iter_modules(webui.schemas.__path__):
        importlib.import_module(f"webui.schemas.{module.name}")
    found, pending = [], [ApiSchema]
    while pending:
        for subclass in pending.pop().__subclasses__():
            pending.append(subclass)
            if subclass.__module__.startswith("webui.schemas."):
                found.append(subclass)
    return found


def test_every_schema_names_its_fields_in_snake_case_and_writes_them_in_camel_case():
    schemas = _schemas()
    assert (
        len(schemas) > 100
    )  # every router's: session, validate, demos, comparisons, scenarios, runs, shares, capacity
    misnamed = [
        f"{schema.__name__}.{name}"
        for schema in schemas
        for name, field in schema.model_fields.items()
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or field.alias != KUBERNETES_SPELLINGS.get(name, to_camel(name))
    ]
    assert misnamed == []


# Keys the API writes as Kubernetes spells them (a port's hostIP), not as camelCase would.
KUBERNETES_SPELLINGS = {"host_ip": "hostIP"}


def test_an_error_has_one_shape():
    error = ErrorOut.model_validate({"error": {"code": "not_found", "message": "scenario 7 not found"}})
    assert json.loads(error.model_dump_json()) == {
        "error": {"code": "not_found", "message": "scenario 7 not found", "details": {}}
    }


class Room(Wire):
    """One domain's room."""

    domain_name: str
    full: bool = False


class Draft(Wire):
    text: str


class Counted(Wire):
    """Copies counted per domain."""

    target: str
    rooms: list[Room]
    draft: Optional[Draft]
    per_node: dict[str, int]
    picture: Optional[dict[str, Any]]


class CountedOut(EngineSchema, payload=Counted, without=(Draft,)):
    pass


class CountedWithMore(Counted):
    added_later: int = 0


class CountedWithMoreOut(EngineSchema, payload=CountedWithMore, without=(Draft,)):
    pass


class BoundedOut(EngineSchema, payload=Counted, without=("draft", "per_node")):
    """The web app's view: rooms bounded."""

    rooms: list[str]  # the web app's own, in the payload's place
    room_count: int


def without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_titles(v) for k, v in node.items() if k not in ("title", "description")}
    return [without_titles(v) for v in node] if isinstance(node, list) else node


def inlined(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return inlined(defs[node["$ref"].rsplit("/", 1)[1]], defs)
        return {
            k: inlined(v, defs) for k, v in node.items() if k != "$defs" and (k, v) != ("additionalProperties", True)
        }
    return [inlined(v, defs) for v in node] if isinstance(node, list) else node


def test_an_engine_schema_has_the_payload_s_fields_by_their_json_names_in_declaration_order():
    assert [(name, field.alias) for name, field in CountedOut.model_fields.items()] == [
        ("target", "target"),
        ("rooms", "rooms"),
        ("per_node", "perNode"),
        ("picture", "picture"),
    ]  # the draft left out: its type is one left out
    read = CountedOut.model_validate(
        {"target": "t", "rooms": [{"domainName": "a"}], "draft": {"text": "x"}, "perNode": {"n": 1}, "picture": None}
    )
    assert read.model_dump() == {
        "target": "t",
        "rooms": [{"domainName": "a", "full": False}],
        "perNode": {"n": 1},
        "picture": None,
    }
    room = CountedOut.model_fields["rooms"].annotation.__args__[0]
    assert (room.__name__, issubclass(room, EngineSchema), room.__doc__) == ("Room", True, Room.__doc__)


def test_its_json_schema_is_the_declaration_s_less_what_it_leaves_out():
    schema = CountedOut.model_json_schema(by_alias=True)
    (_, components) = msgspec.json.schema_components([Counted], ref_template="#/$defs/{name}")
    declared = inlined(components["Counted"], components)
    del declared["properties"]["draft"]
    declared["required"].remove("draft")
    assert without_titles(inlined(schema, schema.get("$defs", {}))) == without_titles(declared)
    assert schema["description"] == Counted.__doc__


def test_a_field_added_to_the_payload_is_in_the_schema_made_from_it():
    assert "addedLater" in CountedWithMoreOut.model_json_schema(by_alias=True)["properties"]
    assert (
        CountedWithMoreOut.model_validate({"target": "t", "rooms": [], "perNode": {}, "picture": None}).added_later == 0
    )


def test_the_web_app_s_own_fields_take_the_payload_s_place_or_come_after():
    assert list(BoundedOut.model_fields) == ["target", "rooms", "picture", "room_count"]
    assert BoundedOut.model_fields["rooms"].annotation == list[str]
    assert BoundedOut.__doc__ == "The web app's view: rooms bounded."


def test_a_name_left_out_that_the_payload_lacks_fails_at_import():
    with pytest.raises(TypeError, match="Counted declares no field stopped"):

        class Misnamed(EngineSchema, payload=Counted, without=("stopped",)):
            pass
