"""One declaration per payload: a msgspec ``Struct`` whose fields are its wire form.

A payload's JSON keys, which of them may be left out, their types and their order are said once,
in its ``Wire`` subclass; every form is derived from that:

- ``to_json()`` — the JSON form (a dict): each field under its camelCase key, in declaration
  order, a field left out when it holds its default (msgspec's ``omit_defaults``; a field without
  a default is always written, and so is every field of a payload declared ``omit_defaults=False``);
  a tagged payload's tag first. Values are not copied: a list the engine handed over is the list
  in the JSON, so the columnar encoder's identity caches keep working and nothing is walked twice
  (a tuple, which a frozen payload holds, becomes a list);
- ``from_json(data)`` — the typed form read back (``msgspec.convert``: checked against the
  declared types, fields left out get their defaults);
- the JSON Schema (``encoding/schema.py``, from ``msgspec.json.schema_components``), the pipe
  codec's and the columnar form's field lists (``__struct_fields__``);
- ``row_writer(cls)`` / ``rows_writer(cls)`` — the JSON form of one or many payloads written
  straight from their values, without making the structs: for a picture that writes thousands of
  domains a cycle (a comprehension compiled from the declared keys is as fast as a hand-written
  literal; making each struct and its ``to_json`` took four times as long: 500 domains 0.87 ms against
  0.20 ms);
- ``json_without(payload, kind)`` — the JSON form less every field whose declared type holds a
  ``kind`` (``holds``): the capacity answers as the web app stores and serves them, without their
  trials (answers/capacity_json.py ``without_trials``); the web app's schemas of them leave out the
  same fields by the same test (webui/schemas/common.py ``EngineSchema``).

Why not ``msgspec.to_builtins`` for the JSON form: it copies every container (a CycleStart with a
1,000-pod queue took 26 µs instead of 0.7), and the columnar encoder hands its own markers through
the JSON, which a copy would lose. ``to_builtins`` stays the reference the tests hold this writer to.
"""

from __future__ import annotations

import collections.abc
import enum
import functools
import types
import typing
from datetime import datetime
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar, Union

import msgspec

WireT = TypeVar("WireT", bound="Wire")
FieldWriter = tuple[str, str, Callable[[Any], bool] | None, Callable[[Any], Any] | None]


class Wire(msgspec.Struct, omit_defaults=True, rename="camel"):
    """A payload whose fields are its wire form (subclasses declare the fields)."""

    # (attribute, JSON key, "left out when" test or None, converter or None), per subclass.
    __wire_fields__: ClassVar[tuple[FieldWriter, ...] | None] = None

    def to_json(self) -> dict[str, Any]:
        fields = type(self).__dict__.get("__wire_fields__") or _prepare(type(self))
        out: dict[str, Any] = {}
        for attribute, key, left_out, convert in fields:
            value = getattr(self, attribute)
            if left_out is not None and left_out(value):
                continue
            out[key] = value if convert is None else convert(value)
        return out

    @classmethod
    def from_json(cls: type[WireT], data: Any) -> WireT:
        """The typed payload of ``data`` (its JSON form); msgspec.ValidationError when it does not fit."""
        return msgspec.convert(data, cls)


def _prepare(cls: type[Wire]) -> tuple[FieldWriter, ...]:
    """The writer of each field of ``cls``, made once per class from its declaration; a tagged
    payload (one of a union, ``tag_field``) writes its tag first, as msgspec does."""
    hints = typing.get_type_hints(cls)
    config = cls.__struct_config__
    fields = tuple(
        (info.name, info.encode_name, _left_out_test(info, config.omit_defaults), _converter(hints[info.name]))
        for info in msgspec.structs.fields(cls)
    )
    if config.tag_field is not None:
        tag = config.tag
        fields = ((_TAG, config.tag_field, None, lambda _: tag), *fields)
    cls.__wire_fields__ = fields
    return fields


_TAG = "__class__"  # the tag's writer reads an attribute every object has, and writes the tag instead


def _left_out_test(info: msgspec.structs.FieldInfo, omit_defaults: bool) -> Callable[[Any], bool] | None:
    """When the field is not written: it holds its default (never, for a field without one, nor in a
    payload declared ``omit_defaults=False``, which writes every key)."""
    if info.required or not omit_defaults:
        return None
    default = info.default if info.default is not msgspec.NODEFAULT else info.default_factory()
    if default is None:
        return _is_none
    return lambda value: bool(value == default)


def _is_none(value: Any) -> bool:
    return value is None


def _converter(hint: Any, inside: bool = False) -> Callable[[Any], Any] | None:
    """How a value of the declared type becomes JSON; None: it already is JSON. A field of open
    type may hold a plugin's typed picture or state; inside a list or map it is JSON already."""
    if hint is Any:
        return None if inside else written
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        choices = [arg for arg in args if arg is not type(None)]
        if len(choices) > 1:  # one of several payloads: each writes itself
            return written
        convert = _converter(choices[0], inside)
        return None if convert is None else _unless_none(convert)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum_value
    if hint is datetime:
        return _rfc3339
    if isinstance(hint, type) and issubclass(hint, Wire):
        return written
    if origin is list and args:
        item = _converter(args[0], inside=True)
        return None if item is None else lambda values: [item(value) for value in values]
    if origin is tuple and args:  # a frozen payload's sequence: a JSON list, as msgspec writes it
        each = _converter(args[0], inside=True)
        if each is None:
            return list
        return lambda values: [each(value) for value in values]
    if origin is collections.abc.Sequence and args and _converter(args[0], inside=True) is None:
        return _as_list  # a node list the hand-over kept as positions (NodePositions): its names
    if origin is dict and len(args) == 2:
        entry = _converter(args[1], inside=True)
        return None if entry is None else lambda values: {key: entry(value) for key, value in values.items()}
    return None


def _as_list(values: Any) -> Any:
    """A sequence that is not a list or tuple (NodePositions) as its list; anything else as it is
    (a column reference the encoder put in its place)."""
    if type(values) is list or isinstance(values, (list, tuple, str)):
        return values
    return list(values) if isinstance(values, collections.abc.Sequence) else values


def _unless_none(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


def _enum_value(value: enum.Enum) -> Any:
    return value.value


def _rfc3339(value: datetime) -> str:
    """A time as msgspec writes it (and the API server): UTC as ``Z``."""
    return value.isoformat().replace("+00:00", "Z")


def written(value: Any) -> Any:
    """A value held by a field of open type: its own ``to_json()`` when it has one (a nested payload,
    a plugin's typed picture or state), else the value (already JSON)."""
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else value


Row = tuple[Any, ...]


@functools.cache
def row_writer(cls: type[Wire]) -> Callable[..., dict[str, Any]]:
    """``write(*values)``: the JSON form of ``cls(*values)``, its keys from the declaration, in its
    order. Only for a payload that writes every key (declared ``omit_defaults=False``, or every field
    without a default); the values are written as they are handed over, so the caller hands each in
    its JSON form (a nested payload written, a list not a tuple) — a column reference too."""
    keys = _every_key(cls)
    names = [f"v{i}" for i in range(len(keys))]
    body = ", ".join(f"{key!r}: {name}" for key, name in zip(keys, names))
    # Only declared keys go into the source, each written as a Python literal (repr).
    made: Callable[..., dict[str, Any]] = eval(f"lambda {', '.join(names)}: {{{body}}}")
    return made


@functools.cache
def rows_writer(cls: type[Wire]) -> Callable[[Iterable[Row]], list[dict[str, Any]]]:
    """``write(rows)``: ``row_writer(cls)(*row)`` for every row, in one comprehension."""
    keys = _every_key(cls)
    names = [f"v{i}" for i in range(len(keys))]
    body = ", ".join(f"{key!r}: {name}" for key, name in zip(keys, names))
    made: Callable[[Iterable[Row]], list[dict[str, Any]]] = eval(
        f"lambda rows: [{{{body}}} for {', '.join(names)}, in rows]"
    )
    return made


def _every_key(cls: type[Wire]) -> tuple[str, ...]:
    """The keys of a payload that writes every one of them, in order; TypeError for one that may
    leave a key out (its rows would not be its JSON form)."""
    fields = cls.__dict__.get("__wire_fields__") or _prepare(cls)
    if cls.__struct_config__.tag_field is not None:
        raise TypeError(f"{cls.__name__} is tagged: write it with to_json")
    if any(left_out is not None for _, _, left_out, _ in fields):
        raise TypeError(f"{cls.__name__} leaves a key out when it holds its default: write it with to_json")
    return tuple(key for _, key, _, _ in fields)


def holds(hint: Any, kind: type) -> bool:
    """Whether a declared type holds a ``kind``: is it, or has it inside (an Optional, a list's items,
    a map's values, a union's choices)."""
    return hint is kind or any(holds(arg, kind) for arg in typing.get_args(hint))


def reaches(hint: Any, kind: type) -> bool:
    """Whether a declared type holds a ``kind`` at any depth: it ``holds`` it, or a payload it holds
    has a field that reaches it (an answer's trial inside a nested template)."""
    return _reaches(hint, kind, ())


def _reaches(hint: Any, kind: type, walking: tuple[type, ...]) -> bool:
    if holds(hint, kind):
        return True
    if isinstance(hint, type) and issubclass(hint, Wire):
        if hint in walking:  # a payload nested in itself: its fields are being walked already
            return False
        known = _reached.get((hint, kind))
        if known is None:
            known = any(_reaches(field, kind, (*walking, hint)) for field in _hints(hint).values())
            if not walking:  # an answer found inside a cycle could depend on where the walk began
                _reached[(hint, kind)] = known
        return known
    if isinstance(hint, list):  # a Callable's parameters
        return any(_reaches(arg, kind, walking) for arg in hint)
    return any(_reaches(arg, kind, walking) for arg in typing.get_args(hint))


_reached: dict[tuple[type, type], bool] = {}  # (payload, kind) -> whether it reaches the kind


def json_without(payload: Wire, kind: type[Wire]) -> dict[str, Any]:
    """``payload.to_json()`` less every field, at any depth, whose declared type holds a ``kind``
    (``holds``); every other key as ``to_json`` writes it, in its order. Only the fields that
    ``reaches`` the kind are walked: the others (a nested explanation) are written by ``to_json``'s
    own writers."""
    fields = type(payload).__dict__.get("__wire_fields__") or _prepare(type(payload))
    hints = _hints(type(payload))
    out: dict[str, Any] = {}
    for attribute, key, left_out, convert in fields:
        if attribute == _TAG:  # a tagged payload's tag: written as to_json writes it
            out[key] = convert(payload) if convert is not None else None
            continue
        hint = hints[attribute]
        if holds(hint, kind):
            continue
        value = getattr(payload, attribute)
        if left_out is not None and left_out(value):
            continue
        if reaches(hint, kind):
            out[key] = _without(value, kind)
        else:
            out[key] = value if convert is None else convert(value)
    return out


@functools.cache
def _hints(cls: type[Wire]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _without(value: Any, kind: type[Wire]) -> Any:
    if isinstance(value, Wire):
        return json_without(value, kind)
    if isinstance(value, (list, tuple)):
        return [_without(item, kind) for item in value]
    if isinstance(value, dict):
        return {key: _without(item, kind) for key, item in value.items()}
    return written(value.value if isinstance(value, enum.Enum) else value)
