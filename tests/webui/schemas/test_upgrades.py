"""webui/schemas/upgrades.py: the engine's payloads are served as written and declared once (their
OpenAPI schema is the served payloads.json's); the inputs are bounded as declared."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webui.schemas.upgrades import FleetIn, UpgradeIn, UpgradeOut, UpgradeRunIn
from webui.services import engine


def test_the_answer_s_schema_is_the_engine_s_declaration_inlined():
    schema = UpgradeOut.model_json_schema()
    answer = next(b for b in schema["properties"]["answer"]["anyOf"] if b.get("type") == "object")
    assert answer == engine.payload_json_schema("UpgradeComparison")
    assert answer["additionalProperties"] is False and "$ref" not in str(answer)
    counts = next(b for b in schema["properties"]["counts"]["anyOf"] if b.get("type") == "object")
    assert counts == engine.payload_json_schema("UpgradeCounts")


@pytest.mark.parametrize(
    ("schema", "body"),
    [
        (UpgradeIn, {"fromRelease": "v" * 41}),
        (UpgradeIn, {"featureGates": 3}),
        (UpgradeRunIn, {"side": "left"}),
        (FleetIn, {"scenarios": [], "toRelease": "v1.36"}),
        (FleetIn, {"scenarios": list(range(1001)), "toRelease": "v1.36"}),
        (FleetIn, {"scenarios": [1]}),
    ],
    ids=["a long release", "gates neither text nor mapping", "an unknown side", "no scenario", "1001", "no target"],
)
def test_it_refuses_input_out_of_bounds(schema, body):
    with pytest.raises(ValidationError):
        schema.model_validate(body)


def test_inputs_are_read_by_their_camel_case_names():
    asked = UpgradeIn.model_validate({"fromRelease": "v1.34", "toRelease": "v1.35", "featureGates": {"A": True}})
    assert (asked.from_release, asked.to_release, asked.feature_gates) == ("v1.34", "v1.35", {"A": True})
    assert UpgradeIn.model_validate({"from_release": "v1.34"}).from_release is None
