"""/api/demos (webui/routers/demos.py): the built-in examples, and a copy of one as your own scenario."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_lists_the_demo_scenarios(owner: Client):
    demos = owner.get("/api/demos").json()
    assert [d["slug"] for d in demos] == [
        "seed_pod_affinity",
        "seed_pts_conflict",
        "seed_pts_single_constraint",
        "seed_pts_two_constraints",
        "preemption",
        "changes_scale_drain",
        "rollout_stuck",
        "capacity_web",
        "capacity_pods",
        "dra_pending_gpu",
        "dra_partitioned_gpu",
        "dra_shared_nic",
        "dra_extended_gpu",
        "dra_binding_conditions",
    ]
    assert all(d["name"] and d["description"] for d in demos)


def test_it_creates_an_owned_scenario_from_a_demo(owner: Client):
    response = owner.post("/api/demos/seed_pts_conflict/scenarios")
    assert response.status_code == 201
    body = response.json()
    assert (body["owned"], body["demo"], body["valid"]) == (True, False, True)


def test_it_answers_404_for_an_unknown_demo(owner: Client):
    response = owner.post("/api/demos/nope/scenarios")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no demo named 'nope'"
