"""scenario/validation.py: the syntax checks reported on a field, enums, label maps, quantities."""

from __future__ import annotations

from fractions import Fraction

from scheduler_core.scenario.errors import ScenarioError
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.limits import Limits
from scheduler_core.scenario.validation import check_str_enum, label_map, read_quantity
from scheduler_core.scenario.yamltree import compose


def _field(text: str) -> tuple[Field, list[ScenarioError]]:
    [document], _ = compose(text, Limits())
    errors: list[ScenarioError] = []
    return Field(document.value, "", 1, Context("Pod default/p", errors)), errors


def test_label_map_keeps_valid_pairs_and_reports_the_rest():
    root, errors = _field("labels:\n  app: web\n  tier: 3\n  Bad Key: x\n")
    assert label_map(root.get("labels")) == {"app": "web"}
    assert [(e.path, e.line) for e in errors] == [("labels.tier", 3), ("labels.Bad Key", 4)]
    assert errors[0].message == 'expected a string label value, got an integer (3) (quote it: "3")'


def test_valid_label_keys_and_values_are_checked_once_and_invalid_ones_reported_each_time(monkeypatch):
    from scheduler_core.scenario import validation

    asked: list[str] = []
    real_key, real_value = validation.is_qualified_name, validation.is_label_value
    monkeypatch.setattr(validation, "is_qualified_name", lambda key: asked.append(key) or real_key(key))
    monkeypatch.setattr(validation, "is_label_value", lambda value: asked.append(value) or real_value(value))
    monkeypatch.setattr(validation, "_VALID_KEYS", set())
    monkeypatch.setattr(validation, "_VALID_VALUES", set())
    text = "labels:\n  once-key: once-value\n  Bad Key: -bad-\n"
    for _ in range(2):
        root, errors = _field(text)
        assert label_map(root.get("labels")) == {"once-key": "once-value"}
        assert [e.path for e in errors] == ["labels.Bad Key", "labels.Bad Key"]  # its key and its value
    assert asked == ["once-key", "once-value", "Bad Key", "-bad-", "Bad Key", "-bad-"]
    monkeypatch.setattr(validation, "VALID_REMEMBERED", 1)
    root, _ = _field("labels:\n  a: b\n  c: d\n")
    assert label_map(root.get("labels")) == {"a": "b", "c": "d"} and len(validation._VALID_KEYS) == 1


def test_enums_and_quantities_report_on_their_field():
    root, errors = _field("policy: Sometimes\ncpu: 2x\nmemory: 1Gi\n")
    assert not check_str_enum(root.get("policy"), "Sometimes", ("Honor", "Ignore"))
    assert read_quantity(root.get("memory")) == Fraction(1 << 30)
    assert read_quantity(root.get("cpu")) is None
    assert errors[0].message == 'unsupported value "Sometimes": supported values: "Honor", "Ignore"'
    assert errors[1].message.startswith('invalid value "2x": ')
