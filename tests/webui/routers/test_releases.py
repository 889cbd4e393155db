"""/api/releases (webui/routers/releases.py): the releases a run can be replayed as, newest first, with
the feature gates each kube-scheduler reads."""

from django.test import Client

from scheduler_core.release.versions import SUPPORTED_RELEASES


def test_it_lists_the_supported_releases_newest_first_with_their_gates(client: Client, db):
    listed = client.get("/api/releases").json()
    assert (
        [r["name"] for r in listed]
        == [r.name for r in SUPPORTED_RELEASES]
        == ["v1.36", "v1.35", "v1.34", "v1.33", "v1.32"]
    )
    assert [r["name"] for r in listed if r["default"]] == ["v1.35"]
    assert listed[0]["version"] == "v1.36.3"
    gates = {g["name"]: g for g in listed[0]["gates"]}
    assert gates["NodeDeclaredFeatures"] == {
        "name": "NodeDeclaredFeatures",
        "default": True,
        "stage": "Beta",
        "locked": False,
    }
    assert gates["SidecarContainers"]["locked"] is True
    oldest = {g["name"] for g in listed[-1]["gates"]}
    assert "NodeDeclaredFeatures" not in oldest  # a gate v1.32 does not know is not offered there
