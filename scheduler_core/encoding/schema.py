"""The JSON Schema of the payloads the browser reads, generated from their declarations.

    .venv/bin/python -m scheduler_core schema > static/schema/payloads.json

One document (JSON Schema 2020-12) whose ``$defs`` hold every declared payload — the event stream's
(``Event``: one branch per kind of event, from ``events.EVENT_KINDS``), the run's story the run
view's timeline draws (``RunStory``), the attempts and rollouts of ``timeline --json``, and those
of layers above this one that the CLI adds (``cli.ANSWER_PAYLOADS``: findings) — each made by
msgspec from its struct.
The web app serves it with the static files; tests/scheduler_core/encoding/test_schema.py fails when
the served copy is not what this module makes, and holds the engine's payloads and the browser's
readers to it.

Objects a payload declares are closed (``additionalProperties: false``): the engine writes only
what is declared, so a reader that looks for anything else looks for what never comes. Maps keyed
by node or pod names stay open. The typed reading back stays lenient (an unknown key is ignored),
so a stored run read by a later release still reads.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable
from typing import Any

import msgspec

from scheduler_core.encoding.events import EVENT_KINDS, Event, ExtensionPoint
from scheduler_core.encoding.timeline import RolloutEntry, RunStory, TimelineAttempt

DRAFT = "https://json-schema.org/draft/2020-12/schema"
REF = "#/$defs/{name}"
SCHEMA_PATH = "static/schema/payloads.json"  # where the web app serves it, from the repository's root

# Payloads outside the event stream (what they refer to comes along).
OTHER_PAYLOADS: tuple[type[msgspec.Struct], ...] = (RunStory, TimelineAttempt, RolloutEntry)


def payload_schema(extra: Iterable[type[msgspec.Struct]] = ()) -> dict[str, Any]:
    """The schema document: every declaration under ``$defs``, by its name."""
    declared: dict[str, type[msgspec.Struct]] = {
        t.__name__: t for kind in EVENT_KINDS.values() for t in (kind.by_plugin, kind.summary) if t is not None
    }
    declared.update((t.__name__, t) for t in OTHER_PAYLOADS)
    declared.update((t.__name__, t) for t in extra)
    _, components = msgspec.json.schema_components(list(declared.values()), ref_template=REF)
    for component in components.values():
        _close(component)
        _clean_description(component)
    components[Event.__name__] = _event_schema()
    return {
        "$schema": DRAFT,
        "$id": "payloads.json",
        "title": "SchedLab payloads",
        "description": "Generated from the payloads' declarations by scheduler_core/encoding/schema.py: do not edit.",
        "$defs": dict(sorted(components.items())),
    }


def _clean_description(schema: dict[str, Any]) -> None:
    """A declaration's docstring as its description, indentation taken out (inspect.cleandoc): what
    msgspec 0.23 writes, and what earlier releases wrote with each later line still indented, so
    the served file is the same whichever msgspec the machine installed."""
    description = schema.get("description")
    if isinstance(description, str):
        schema["description"] = inspect.cleandoc(description)


def _close(schema: dict[str, Any]) -> None:
    """A declared object (it has properties) admits no other key."""
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)


def _event_schema() -> dict[str, Any]:
    """An event: its envelope (the Event struct's keys) and, per extension point, the payload a plugin's
    event carries (``plugin`` a name) and the framework's summary (``plugin`` null)."""
    keys = {info.name: info.encode_name for info in msgspec.structs.fields(Event)}
    branches = []
    for point, kind in EVENT_KINDS.items():
        for plugin, declared in (({"type": "string"}, kind.by_plugin), ({"type": "null"}, kind.summary)):
            if declared is not None:
                branches.append(_envelope(keys, point, plugin, declared))
    return {"title": "Event", "description": "One event of the stream (docs/ENGINE_API.md).", "oneOf": branches}


def _envelope(
    keys: dict[str, str], point: ExtensionPoint, plugin: dict[str, Any], declared: type[msgspec.Struct]
) -> dict[str, Any]:
    properties = {
        keys["cycle"]: {"type": "integer"},
        keys["pod"]: {"type": "string"},
        keys["extension_point"]: {"const": point.value},
        keys["plugin"]: plugin,
        keys["payload"]: {"$ref": REF.format(name=declared.__name__)},
    }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def schema_text(extra: Iterable[type[msgspec.Struct]] = ()) -> str:
    """The schema as the served file holds it (``python -m scheduler_core schema`` adds the answers' payloads)."""
    return json.dumps(payload_schema(extra), indent=1) + "\n"
