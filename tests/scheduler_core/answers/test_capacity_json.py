"""scheduler_core.answers.capacity_json: each capacity answer's wire form, declared once — written as
msgspec reads the declaration, and what `capacity --json` prints for every kind of question fits the
served schema; less its trials (as the web app stores it) it is the same JSON without them."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import jsonschema
import msgspec
import pytest

from scheduler_core.answers import capacity_json
from scheduler_core.cli import main
from scheduler_core.util.wire import Wire
from tests.scheduler_core.encoding.payload_examples import every_field_set

ROOT = Path(__file__).resolve().parents[3]
SERVED = json.loads((ROOT / "static" / "schema" / "payloads.json").read_text())
DECLARED = [
    value
    for value in vars(capacity_json).values()
    if isinstance(value, type) and issubclass(value, Wire) and value.__module__ == capacity_json.__name__
]
WEB = str(ROOT / "examples" / "capacity_web.yaml")
PODS = str(ROOT / "examples" / "capacity_pods.yaml")
QUESTIONS = {
    "how many more replicas fit (trials)": ([WEB, "--workload", "default/web"], "FitAnswerJSON"),
    "how many more copies of a pod fit (one pass)": ([PODS, "--pod", "default/api-0"], "PassAnswerJSON"),
    "how many nodes like node-1": ([WEB, "--add-like", "node-1"], "NodesAnswerJSON"),
    "which nodes can go": ([WEB, "--removable"], "RemovableAnswerJSON"),
    "fragmentation": ([WEB, "--fragmentation"], "FragmentationAnswerJSON"),
}


@pytest.mark.parametrize("declared", DECLARED, ids=lambda t: t.__name__)
def test_every_field_set_writes_every_key_as_msgspec_does(declared):
    payload = every_field_set(declared)
    assert payload.to_json() == msgspec.json.decode(msgspec.json.encode(payload))  # a frozen payload's tuple a list
    assert declared.from_json(msgspec.to_builtins(payload)) == payload


def test_every_answer_is_in_the_served_schema():
    assert {t.__name__ for t in capacity_json.CAPACITY_ANSWERS} <= set(SERVED["$defs"])


@pytest.mark.parametrize("arguments, declared", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_what_capacity_json_prints_fits_the_served_schema(capsys, arguments, declared):
    assert main(["capacity", *arguments, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator({**SERVED, "$ref": f"#/$defs/{declared}"})
    assert [error.message for error in validator.iter_errors(printed)] == []


def _less_trials(written, struct):
    """``written`` (a declaration's JSON) less, at any depth, the keys whose declared type holds a TrialJSON."""
    hints = typing.get_type_hints(struct)
    config = struct.__struct_config__
    out = {config.tag_field: written[config.tag_field]} if config.tag_field is not None else {}
    for info in msgspec.structs.fields(struct):
        hint = hints[info.name]
        if "TrialJSON" in repr(hint):
            continue
        value = written[info.encode_name]
        choices = [a for a in _args(hint) if isinstance(a, type) and issubclass(a, Wire)]
        if choices and isinstance(value, list):
            value = [_less_trials(item, _chosen(choices, item)) for item in value]
        elif choices and isinstance(value, dict) and typing.get_origin(hint) is dict:
            value = {key: _less_trials(item, _chosen(choices, item)) for key, item in value.items()}
        elif choices and value is not None:
            value = _less_trials(value, _chosen(choices, value))
        out[info.encode_name] = value
    return out


def _chosen(choices, written):
    """The payload of a union (tagged) that wrote ``written``, or the one payload declared."""
    tagged = [c for c in choices if c.__struct_config__.tag_field is not None]
    for choice in tagged:
        if written.get(choice.__struct_config__.tag_field) == choice.__struct_config__.tag:
            return choice
    return choices[0]


def _args(hint):
    yield hint
    for arg in typing.get_args(hint):
        yield from _args(arg)


@pytest.mark.parametrize("declared", capacity_json.CAPACITY_ANSWERS, ids=lambda t: t.__name__)
def test_an_answer_less_its_trials_is_its_json_without_them(declared):
    payload = every_field_set(declared)
    written = capacity_json.without_trials(payload)
    assert written == _less_trials(payload.to_json(), declared)
    assert "changesText" not in str(written) and "scenarioText" not in str(written)
    assert list(written) == [key for key in payload.to_json() if key in written]  # to_json's order
