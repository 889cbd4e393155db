"""webui/schemas/capacity.py: a question's input is bounded as declared; its progress is written in
camelCase."""

import pytest
from pydantic import ValidationError

from webui.schemas.capacity import CapacityIn, CapacityProgressOut


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "how many"},
        {"kind": "fit", "max": 0},
        {"kind": "fit", "max": 100_001},
        {"kind": "nodes", "likes": ["n"] * 11},
        {"kind": "fit", "workload": "x" * 401},
    ],
    ids=[
        "an unknown kind",
        "a max below one",
        "a max over 100000",
        "more than ten template nodes",
        "a name over 400 characters",
    ],
)
def test_it_refuses_a_question_out_of_bounds(body: dict):
    with pytest.raises(ValidationError):
        CapacityIn.model_validate(body)


def test_the_one_pass_s_rate_is_written_as_copies_per_second():
    out = CapacityProgressOut(done=1, estimate=2, copies=30, copies_per_second=812.5)
    assert out.model_dump() == {"done": 1, "estimate": 2, "copies": 30, "copiesPerSecond": 812.5}
