"""webui/schemas/shares.py: a share link's input is bounded and read by its JSON names; its answer
writes them back."""

import pytest
from pydantic import ValidationError

from webui.schemas.shares import ShareIn, ShareOut


def test_a_share_link_s_step_is_at_most_200_characters_and_its_compared_run_is_read_as_compare_run():
    with pytest.raises(ValidationError):
        ShareIn.model_validate({"step": "x" * 201})
    assert ShareIn.model_validate({"run": 1, "compareRun": 2}).compare_run == 2


def test_a_share_link_writes_its_compared_run_in_camel_case():
    out = ShareOut(
        token="t",
        url="/share/t",
        scenario=1,
        version=1,
        run=3,
        compare_run=4,
        step="",
        created="2026-01-01T00:00:00Z",
        revoked=False,
    )
    assert out.model_dump()["compareRun"] == 4 and "compare_run" not in out.model_dump()
