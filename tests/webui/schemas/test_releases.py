"""webui/schemas/releases.py: the engine's ReleaseChoice JSON fits ReleaseOut with nothing dropped."""

from __future__ import annotations

import json

from tests.webui import support
from tests.webui.upgrade_support import said_to_run
from webui.schemas.releases import ReleaseOut, SupportedReleaseOut
from webui.services import engine


def test_every_key_of_the_engine_s_choice_is_kept_in_camel_case():
    for text in (support.scenario_text(2, 1), said_to_run(support.scenario_text(2, 1), "v1.33.5-eks-113cf36")):
        choice = engine.check(text).release
        assert json.loads(ReleaseOut.model_validate(choice).model_dump_json()) == choice
    said = engine.check(said_to_run(support.scenario_text(2, 1), "v1.33.5-eks-113cf36")).release
    assert (said["source"], said["reported"], said["version"]) == ("server-version", "v1.33.5", "v1.33.13")


def test_the_supported_releases_fit_their_schema():
    for release in engine.supported_releases():
        assert SupportedReleaseOut.model_validate(release).model_dump() == release
