"""scheduler_core.answers.capacity_json: each capacity answer's wire form, declared once — written as
msgspec reads the declaration, and what `capacity --json` prints for every kind of question fits the
served schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import msgspec
import pytest

from scheduler_core.answers import capacity_json
from scheduler_core.cli import main
from scheduler_core.encoding.wire import Wire
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
    assert payload.to_json() == msgspec.to_builtins(payload)
    assert declared.from_json(msgspec.to_builtins(payload)) == payload


def test_every_answer_is_in_the_served_schema():
    assert {t.__name__ for t in capacity_json.CAPACITY_ANSWERS} <= set(SERVED["$defs"])


@pytest.mark.parametrize("arguments, declared", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_what_capacity_json_prints_fits_the_served_schema(capsys, arguments, declared):
    assert main(["capacity", *arguments, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator({**SERVED, "$ref": f"#/$defs/{declared}"})
    assert [error.message for error in validator.iter_errors(printed)] == []
