"""webui/services/releases.py: what a user asks (a release by name, --feature-gates) read as the CLI
reads it, carried by the run to the loader, and the choice the engine makes of it."""

from __future__ import annotations

import pytest

from tests.webui import support
from webui.models import Run, Scenario, ScenarioVersion
from webui.services import engine, releases
from webui.services.errors import ReleaseInvalid

TEXT = support.scenario_text(3, 2)


def test_a_release_and_gates_are_read_as_the_cli_reads_them():
    assert releases.asked() == releases.AS_THE_DUMP_SAYS and not releases.asked().is_asked
    assert releases.asked("1.34.2", "") == releases.Asked("v1.34", None)  # any patch: that release
    wanted = releases.asked("v1.36", "NodeDeclaredFeatures=false, InPlacePodLevelResourcesVerticalScaling=true")
    assert wanted.gates == {"NodeDeclaredFeatures": False, "InPlacePodLevelResourcesVerticalScaling": True}
    assert releases.asked(None, {"NodeDeclaredFeatures": False}).gates == {"NodeDeclaredFeatures": False}
    request = wanted.request
    assert request.release is not None and request.release.version == "v1.36.3"
    assert releases.asked(None, "").request == engine.NO_RELEASE


@pytest.mark.parametrize(
    ("release", "gates", "field", "says"),
    [
        ("v1.20", None, "release", "v1.20 is not a supported release; supported: v1.36, v1.35, v1.34, v1.33, v1.32"),
        ("latest", None, "release", '"latest" is not a Kubernetes release'),
        (None, "NodeDeclaredFeatures", "featureGates", "missing bool value for 'NodeDeclaredFeatures'"),
        (None, "A=maybe", "featureGates", "missing bool value for 'A'"),
        (None, "A=true," * 600, "featureGates", "longer than 4000 characters"),
        (None, {f"G{i}": True for i in range(101)}, "featureGates", "more than 100 gates"),
    ],
    ids=[
        "an unsupported release",
        "not a release",
        "a gate without value",
        "a value not a bool",
        "too long",
        "too many",
    ],
)
def test_what_does_not_read_is_refused_naming_the_field(release, gates, field, says):
    with pytest.raises(ReleaseInvalid) as refused:
        releases.asked(release, gates)
    assert refused.value.status == 400 and refused.value.code == "release_invalid"
    assert refused.value.details["field"] == field and says in refused.value.message


def test_the_choice_weighs_the_dump_again_and_a_refused_gate_names_the_release():
    assert releases.choice(TEXT, releases.AS_THE_DUMP_SAYS)["source"] == "default"
    asked = releases.choice(TEXT, releases.Asked("v1.33", {"SidecarContainers": True}))
    assert (asked["version"], asked["source"], asked["featureGates"]) == (
        "v1.33.13",
        "asked",
        {"SidecarContainers": True},
    )
    with pytest.raises(ReleaseInvalid) as refused:
        releases.choice(TEXT, releases.Asked("v1.34", {"SidecarContainers": False}))
    assert refused.value.details["release"] == "v1.34"
    assert "cannot set feature gate SidecarContainers to false, feature is locked to true" in refused.value.message


def test_a_check_under_a_release_is_of_that_release_and_its_gates_are_refused_first():
    plain = releases.checked(TEXT, releases.AS_THE_DUMP_SAYS)
    assert plain is engine.check(TEXT) and plain.release["release"] == "v1.35"
    asked = releases.checked(TEXT, releases.Asked("v1.32"))
    assert asked.valid and asked.release["sentence"] == "replayed as kube-scheduler v1.32.13 (asked for)"
    with pytest.raises(ReleaseInvalid):
        releases.checked(TEXT, releases.Asked("", {"NoSuchGate": True}))
    broken = releases.checked("- a list", releases.Asked("v1.32"))  # does not load: its own problems, no choice
    assert not broken.valid and broken.release is None


@pytest.mark.django_db
def test_a_run_carries_its_request_to_the_loader():
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=TEXT)
    run = Run.objects.create(version=version, release="v1.33", feature_gates={"SidecarContainers": True})
    assert releases.of_run(run) == releases.Asked("v1.33", {"SidecarContainers": True})
    loaded = engine.load(TEXT, releases.request_of(run))
    assert loaded.release.to_json()["version"] == "v1.33.13"
    plain = Run.objects.create(version=version)
    assert releases.request_of(plain) == engine.NO_RELEASE
