"""webui/schemas/uploads.py: an upload's answer by its camelCase names, its problems as the scenario's."""

from __future__ import annotations

from datetime import UTC, datetime

from webui.schemas.uploads import UploadFileOut, UploadOut, UploadProgressOut
from webui.schemas.validate import ScenarioErrorOut


def test_it_is_written_by_its_camel_case_names():
    out = UploadOut(
        id=1,
        name="big",
        files=[UploadFileOut(name="big.json", size=10)],
        size=10,
        status="failed",
        progress=UploadProgressOut(what="refused", bytes_read=10, objects_read=0),
        error="bundle.zip:pods.yaml does not read",
        errors=[
            ScenarioErrorOut(
                file="bundle.zip:pods.yaml", object="", path="", line=3, message="bad", code="invalid", limit=None
            )
        ],
        details=None,
        scenario=None,
        version=None,
        valid=None,
        summary=None,
        created=datetime(2026, 11, 26, tzinfo=UTC),
        started=None,
        finished=None,
    ).model_dump(by_alias=True)
    assert out["progress"] == {"what": "refused", "bytesRead": 10, "objectsRead": 0}
    assert out["errors"][0]["file"] == "bundle.zip:pods.yaml" and out["errors"][0]["line"] == 3
