"""Payloads with every field set away from its default, made from their declarations (events.py).

A field added to a payload is in its example without a word here, so every form a test runs the
examples through (JSON, the typed reading back, the schema, the columnar form, the pipe) meets it.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, Union

import msgspec

from scheduler_core.encoding.events import EVENT_KINDS, Event, event_from_json
from scheduler_core.framework.preemption.candidates import ONLY_CANDIDATE, PreemptionRanking
from scheduler_core.util.wire import Wire
from scheduler_core.framework.status import StatusJson


def every_field_set(cls: type[Wire]) -> Wire:
    """An instance of ``cls`` whose every field holds a value of its declared type, none its default."""
    hints = typing.get_type_hints(cls)
    values = {
        info.name: _MEANINGFUL.get((cls, info.name)) or example_of(hints[info.name], info.name)
        for info in msgspec.structs.fields(cls)
    }
    return cls(**values)


# Fields a payload reads when it is made (what it derives, its sentence, says what they mean).
_MEANINGFUL: dict[tuple[type, str], Any] = {(PreemptionRanking, "deciding"): ONLY_CANDIDATE}


def example_of(hint: Any, name: str) -> Any:
    """A value of the declared type that no default equals (an open type gets a small JSON object)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return {"about": name, "count": 1}
    if hint is StatusJson:
        return {"code": "Unschedulable", "reasons": [f"{name} reason"]}
    if origin in (Union, types.UnionType):
        return example_of(next(arg for arg in args if arg is not type(None)), name)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)[-1]
    if isinstance(hint, type) and issubclass(hint, Wire):
        return every_field_set(hint)
    if origin in (list, Sequence):
        return [example_of(args[0], name), example_of(args[0], f"{name}-2")]
    if origin is tuple:  # a frozen payload's sequence (tuple[X, ...])
        return (example_of(args[0], name), example_of(args[0], f"{name}-2"))
    if origin is dict:  # one key for every map: a payload's maps are keyed by the same nodes
        return {"node-a": example_of(args[1], name)}
    return _SCALARS[hint](name)


_SCALARS = {
    str: lambda name: f"{name}-value",
    int: lambda name: 7,
    bool: lambda name: True,
    datetime: lambda name: datetime(2026, 11, 26, 8, 30, tzinfo=timezone.utc),
}


def example_events() -> list[Event]:
    """One event per kind of payload each extension point carries, every field set, read back typed
    from its JSON (so Score, NormalizeScore and Total come as the engine's own types)."""
    events = []
    for point, kind in EVENT_KINDS.items():
        for plugin, declared in (("SomePlugin", kind.by_plugin), (None, kind.summary)):
            if declared is None:
                continue
            payload = every_field_set(declared)
            events.append(
                event_from_json(
                    {
                        "cycle": 3,
                        "pod": "default/p",
                        "extensionPoint": point.value,
                        "plugin": plugin,
                        "payload": msgspec.to_builtins(payload),
                    }
                )
            )
    return events
