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


def test_enums_and_quantities_report_on_their_field():
    root, errors = _field("policy: Sometimes\ncpu: 2x\nmemory: 1Gi\n")
    assert not check_str_enum(root.get("policy"), "Sometimes", ("Honor", "Ignore"))
    assert read_quantity(root.get("memory")) == Fraction(1 << 30)
    assert read_quantity(root.get("cpu")) is None
    assert errors[0].message == 'unsupported value "Sometimes": supported values: "Honor", "Ignore"'
    assert errors[1].message.startswith('invalid value "2x": ')
