"""What every router's schemas share: the camelCase bases and the one error shape (webui/api.py)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import ConfigDict, WithJsonSchema
from pydantic.alias_generators import to_camel

from webui.services import engine


class ApiSchema(Schema):
    """An answer's schema. Fields are named in Python's snake_case and each has its JSON name, the
    camelCase the engine's JSON and the event stream use, as its alias: ``first_seq`` is ``firstSeq``,
    a one-word name is itself. An answer is built by either name (presenters use the Python one; the
    engine's JSON, validated as it is, the other) and always written by alias: every router sets
    ``by_alias`` (ninja passes it explicitly) and ``serialize_by_alias`` covers the answers a
    router serialises itself (webui/responses.py's prebuilt bytes)."""

    model_config = ConfigDict(
        alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )


class ApiInput(ApiSchema):
    """A request body's schema: read by its JSON (camelCase) names only, so a body means what it meant
    before the fields had Python names (a snake_case key is ignored like any unknown key)."""

    model_config = ConfigDict(validate_by_name=False)


def engine_schema(name: str) -> WithJsonSchema:
    """For a field holding an engine payload served exactly as the engine writes it (its ``to_json()``),
    ``Annotated[dict[str, Any], engine_schema("UpgradeComparison")]``: its JSON Schema in OpenAPI is its
    one declaration's (the msgspec Struct of the served payloads.json, scheduler_core/cli.py
    ANSWER_PAYLOADS, every $ref inlined), never a pydantic copy of it."""
    return WithJsonSchema(engine.payload_json_schema(name))


class ErrorBody(ApiSchema):
    code: str
    message: str
    details: dict[str, Any] = {}


class ErrorOut(ApiSchema):
    error: ErrorBody


# The error answers every operation may give (one shape: ErrorOut); an operation adds 409 or 429 itself.
ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 503: ErrorOut}
