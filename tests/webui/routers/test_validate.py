"""/api/validate (webui/routers/validate.py): text checked as the engine loads it, without saving it."""

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.webui import support

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_it_validates_text_without_saving(owner: Client):
    body = owner.post("/api/validate", {"text": support.scenario_text(2, 1)}, content_type=JSON).json()
    no_config = {
        "code": "no-config",
        "message": body["findings"][0]["message"],
        "objects": [],
        "kubectl": None,
        "action": None,
    }
    # The dump says nothing of its release: the default is assumed, and `kubectl version` fetches it.
    assumed = {
        "code": "release-assumed",
        "message": body["findings"][1]["message"],
        "objects": [],
        "kubectl": "kubectl version -o yaml > version.yaml   # add it to the dump",
        "action": None,
    }
    assert body == {
        "valid": True,
        "errors": [],
        "summary": {"nodes": 2, "pods": 1, "pendingPods": 1},
        "notices": [],
        "objects": {"Node": 2, "Pod": 1},
        "findings": [no_config, assumed],
        "fetch": [assumed["kubectl"]],
        "release": body["release"],
        "dumpRelease": body["release"],
    }
    assert (body["release"]["version"], body["release"]["source"]) == ("v1.35.4", "default")
    assert body["release"]["sentence"].startswith("replayed as kube-scheduler v1.35.4: the dump does not say")
    body = owner.post("/api/validate", {"text": "- just a list"}, content_type=JSON).json()
    assert body["valid"] is False and body["errors"] and body["release"] is None


def test_it_checks_the_text_as_the_release_asked_and_says_what_the_dump_says_beside(owner: Client):
    text = support.scenario_text(2, 1) + "---\nserverVersion: {major: '1', minor: '34', gitVersion: v1.34.2}\n"
    body = owner.post("/api/validate", {"text": text, "release": "v1.36"}, content_type=JSON).json()
    assert body["valid"] is True
    assert (body["release"]["version"], body["release"]["source"]) == ("v1.36.3", "asked")
    assert body["release"]["sentence"] == (
        "replayed as kube-scheduler v1.36.3 (asked for; the dump says v1.34.2: the scenario: serverVersion v1.34.2)"
    )
    assert (body["dumpRelease"]["version"], body["dumpRelease"]["source"]) == ("v1.34.9", "server-version")
    gated = owner.post(
        "/api/validate", {"text": text, "featureGates": {"SchedulerAsyncPreemption": False}}, content_type=JSON
    ).json()
    assert gated["release"]["featureGates"] == {"SchedulerAsyncPreemption": False}
    assert gated["release"]["version"] == "v1.34.9"  # the gates apply to the dump's release


def test_a_refused_release_or_gate_is_a_400_naming_it_never_a_500(owner: Client):
    text = support.scenario_text(2, 1)
    for body, field in (
        ({"release": "v1.99"}, "release"),
        ({"featureGates": "A=yes"}, "featureGates"),
        ({"release": "v1.32", "featureGates": "NodeDeclaredFeatures=true"}, "featureGates"),
    ):
        response = owner.post("/api/validate", {"text": text, **body}, content_type=JSON)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "release_invalid" and error["details"]["field"] == field
    unknown = owner.post(
        "/api/validate",
        {"text": text, "release": "v1.32", "featureGates": "NodeDeclaredFeatures=true"},
        content_type=JSON,
    )
    assert unknown.json()["error"]["details"]["release"] == "v1.32"
    assert "unrecognized feature gate: NodeDeclaredFeatures" in unknown.json()["error"]["message"]
    assert owner.post("/api/validate", {"text": text, "featureGates": 7}, content_type=JSON).status_code == 422


def test_validation_says_what_the_scheduler_leaves_out(owner: Client, scenario: dict):
    extra = [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {a: b}\n",
        support.pod_yaml("gated").replace("spec:\n", "spec:\n  schedulingGates: [{name: wait}]\n", 1),
        support.pod_yaml("elsewhere").replace("spec:\n", "spec:\n  schedulerName: my-scheduler\n", 1),
        support.pod_yaml("done", "node-0").replace("spec:\n", "status: {phase: Succeeded}\nspec:\n", 1),
    ]
    text = "---\n".join([support.scenario_text(2, 1), *extra])
    body = owner.post("/api/validate", {"text": text}, content_type=JSON).json()
    assert body["valid"] is True
    by_code = {notice["code"]: notice for notice in body["notices"]}
    assert set(by_code) == {"ignored-kinds", "finished-pods", "other-scheduler", "scheduling-gated"}
    assert (
        "1 ConfigMap" in by_code["ignored-kinds"]["message"] and "1 Deployment" in by_code["ignored-kinds"]["message"]
    )
    assert by_code["scheduling-gated"]["objects"] == ["Pod default/gated"]
    assert by_code["other-scheduler"]["objects"] == ["Pod default/elsewhere"]
    assert by_code["finished-pods"]["objects"] == ["Pod default/done"]
    saved = owner.put(f"/api/scenarios/{scenario['id']}", {"text": text}, content_type=JSON).json()
    assert saved["notices"] == body["notices"]  # the scenario's own answer carries them too


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(max_size=300)
    | st.sampled_from(
        ["---\n---", "kind: List\nitems: 3", "apiVersion: v1\nkind: Pod", "&a [*a]", "- !!python/object:os.system x"]
    )
)
def test_it_never_answers_500_to_arbitrary_text(owner: Client, text: str):
    response = owner.post("/api/validate", {"text": text}, content_type=JSON)
    assert response.status_code == 200
    assert set(response.json()) == {
        "valid",
        "errors",
        "summary",
        "notices",
        "objects",
        "findings",
        "fetch",
        "release",
        "dumpRelease",
    }


def test_it_answers_413_naming_the_limit_for_text_over_it(owner: Client, settings):
    settings.SCHEDLAB_MAX_NODES = 1
    response = owner.post("/api/validate", {"text": support.scenario_text(2, 1)}, content_type=JSON)
    assert response.status_code == 413 and response.json()["error"]["details"]["limit"] == "max_nodes"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    release=st.none() | st.text(max_size=40) | st.sampled_from(["v1.32", "1.36.9", "v2.0", "v1.35-eks", " "]),
    gates=st.none()
    | st.text(max_size=200)
    | st.dictionaries(st.sampled_from(["NodeDeclaredFeatures", "SidecarContainers", "x", ""]), st.booleans()),
)
def test_any_release_or_gates_asked_is_answered_never_with_a_500(owner: Client, release, gates):
    body = {"text": support.scenario_text(2, 1), "release": release, "featureGates": gates}
    response = owner.post("/api/validate", body, content_type=JSON)
    assert response.status_code in (200, 400), response.content
    if response.status_code == 400:
        assert response.json()["error"]["code"] == "release_invalid"
