"""The values both YAML composers build: mappings and sequences with their lines, keys as JSON text."""

from __future__ import annotations

import pytest

from scheduler_core.scenario import yamltree
from scheduler_core.scenario.yamlvalues import YList, YMap, key_text


def test_a_mapping_and_a_sequence_carry_their_lines_beside_their_items():
    mapping, sequence = YMap(3), YList(5)
    mapping["a"], mapping.lines["a"] = 1, 4
    sequence.append("x")
    sequence.lines.append(6)
    assert (mapping, mapping.line, mapping.lines) == ({"a": 1}, 3, {"a": 4})
    assert (sequence, sequence.line, sequence.lines) == (["x"], 5, [6])


@pytest.mark.parametrize(
    "key, text",
    [(True, "true"), (False, "false"), (None, "null"), (80, "80"), (1.5, "1.5"), ("name", "name")],
    ids=["true", "false", "null", "an integer", "a float", "a string"],
)
def test_a_key_reads_as_the_json_text_sigs_k8s_io_yaml_gives_it(key, text):
    assert key_text(key) == text


def test_the_event_composer_re_exports_the_values_for_the_modules_that_import_them_from_it():
    assert (yamltree.YMap, yamltree.YList) == (YMap, YList)
