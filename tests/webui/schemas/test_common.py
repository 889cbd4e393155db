"""webui/schemas/common.py: fields named in snake_case are read and written in the API's camelCase, every
schema of every router follows that rule, and errors have one shape."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re

from pydantic.alias_generators import to_camel

import webui.schemas
from webui.schemas.common import ApiInput, ApiSchema, ErrorOut


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
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or field.alias != to_camel(name)
    ]
    assert misnamed == []


def test_an_error_has_one_shape():
    error = ErrorOut.model_validate({"error": {"code": "not_found", "message": "scenario 7 not found"}})
    assert json.loads(error.model_dump_json()) == {
        "error": {"code": "not_found", "message": "scenario 7 not found", "details": {}}
    }
