"""What every router's schemas share: the camelCase bases, the schemas made from an engine payload's
declaration (``EngineSchema``, ``engine_schema``) and the one error shape (webui/api.py)."""

from __future__ import annotations

import types
import typing
from collections.abc import Collection
from typing import Any, Literal, Union, cast

import msgspec
from ninja import Schema
from ninja.schema import ResolverMetaclass
from pydantic import ConfigDict, Field, WithJsonSchema
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


LeftOut = Collection[str | type]  # fields by Python name, or every field holding a type (at any depth)


class _FromPayload(ResolverMetaclass):  # ninja's Schema's metaclass (pydantic's, with resolvers)
    """Gives a schema declared with ``payload=`` the payload's fields before pydantic reads its own."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type[Any], ...],
        namespace: dict[str, Any],
        payload: type[msgspec.Struct] | None = None,
        without: LeftOut = (),
        **kwargs: Any,
    ) -> type:
        if payload is not None:
            namespace = {**namespace, **_payload_fields(payload, without, namespace)}
        made: type = super().__new__(mcs, name, bases, namespace, **kwargs)
        return made


class EngineSchema(ApiSchema, metaclass=_FromPayload):
    """A schema whose fields are an engine payload's (``class FitOut(EngineSchema, payload=engine.FitAnswerJSON,
    without=(engine.TrialJSON,))``): made from its one declaration, the msgspec Struct, never copied.
    Each field is the Struct's: its Python name, its JSON name as alias, its type (a nested payload is
    a schema made the same way, named as its Struct), its default; in declaration order. ``without``
    leaves fields out: by Python name, or every field whose type holds a given type (``engine.holds``,
    in nested payloads too: the test ``engine.without_trials`` writes the stored answers by). A field the
    class body declares itself is the web app's: it replaces the payload's of that name in its place
    (say why in a comment), or comes after them. A name in ``without`` the payload lacks fails at import.
    tests/webui/schemas/test_common.py holds the schemas' JSON Schema to the Structs'."""

    def __init_subclass__(
        cls, payload: type[msgspec.Struct] | None = None, without: LeftOut = (), **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)


def _payload_fields(payload: type[msgspec.Struct], without: LeftOut, namespace: dict[str, Any]) -> dict[str, Any]:
    """The class namespace's annotations and field defaults: the payload's fields (less those left
    out, those the body declares in their place), then the body's own."""
    names = {info.name for info in msgspec.structs.fields(payload)}
    unknown = sorted(name for name in without if isinstance(name, str) and name not in names)
    if unknown:
        raise TypeError(f"{payload.__name__} declares no field {', '.join(unknown)}")
    kinds = tuple(kind for kind in without if isinstance(kind, type))
    own = dict(namespace.get("__annotations__", {}))
    hints = typing.get_type_hints(payload)
    annotations: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    config = payload.__struct_config__
    if config.tag_field is not None:  # one of a union: its tag first, as the engine writes it
        tag_name = config.tag_field.replace("-", "_")
        annotations[tag_name] = Literal[config.tag]
        fields[tag_name] = Field(alias=config.tag_field, default=config.tag)
    for info in msgspec.structs.fields(payload):
        hint = hints[info.name]
        if info.name in without or any(engine.holds(hint, kind) for kind in kinds):
            continue
        if info.name in own:  # the web app's own field in the payload's place
            annotations[info.name] = own.pop(info.name)
            continue
        annotations[info.name] = _schema_type(hint, kinds)
        if info.required:
            fields[info.name] = Field(alias=info.encode_name)
        elif info.default_factory is not msgspec.NODEFAULT:
            fields[info.name] = Field(alias=info.encode_name, default_factory=info.default_factory)
        else:
            fields[info.name] = Field(alias=info.encode_name, default=info.default)
    annotations.update(own)
    documented = {"__doc__": payload.__doc__} if payload.__doc__ and not namespace.get("__doc__") else {}
    return {"__annotations__": annotations, **fields, **documented}


_made: dict[tuple[type[msgspec.Struct], tuple[type, ...]], type[EngineSchema]] = {}


def _schema_type(hint: Any, kinds: tuple[type, ...]) -> Any:
    """The declared type with each nested payload replaced by its schema (made once per payload and
    the kinds it leaves out: a payload that reaches none of them, a capacity answer's explanation,
    is the one schema every answer shares, as the runs' CycleExplanationOut's parts are)."""
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        kinds = tuple(kind for kind in kinds if engine.reaches(hint, kind))
        made = _made.get((hint, kinds))
        if made is None:
            named = {"__module__": __name__, "__qualname__": hint.__name__}
            made = _made[(hint, kinds)] = cast(
                type[EngineSchema],
                types.new_class(
                    hint.__name__, (EngineSchema,), {"payload": hint, "without": kinds}, lambda ns: ns.update(named)
                ),
            )
        return made
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None or origin is Literal or not args:
        return hint
    made_args = tuple(_schema_type(arg, kinds) for arg in args)
    if origin in (Union, types.UnionType):
        return Union[made_args]
    return origin[made_args]


class ErrorBody(ApiSchema):
    code: str
    message: str
    details: dict[str, Any] = {}


class ErrorOut(ApiSchema):
    error: ErrorBody


# The error answers every operation may give (one shape: ErrorOut); an operation adds 409 or 429 itself.
ERRORS = {400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 503: ErrorOut}
