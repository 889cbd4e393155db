"""model/volumes.py: the claim a pod's volume uses."""

from __future__ import annotations

import pytest

from scheduler_core.model.volumes import Volume


@pytest.mark.parametrize(
    ("volume", "claim"),
    [
        pytest.param(
            Volume("data", "persistentVolumeClaim", claim_name="db-data"),
            "db-data",
            id="a claim volume names its claim",
        ),
        pytest.param(
            Volume("scratch", "ephemeral"), "web-scratch", id="a generic ephemeral volume's claim is <pod>-<volume>"
        ),
        pytest.param(Volume("tmp", "emptyDir"), None, id="any other source has no claim"),
    ],
)
def test_a_volume_names_the_claim_it_uses(volume, claim):
    assert volume.claim_for("web") == claim
