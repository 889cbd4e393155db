"""webui.models: the constraints the task's idempotency relies on."""

import json

import pytest
from django.db import IntegrityError

from webui.models import Run, RunEvent, Scenario, ScenarioVersion, new_share_token

pytestmark = pytest.mark.django_db


def test_it_makes_share_tokens_with_at_least_128_random_bits():
    tokens = {new_share_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t) >= 43 for t in tokens)  # 32 bytes, urlsafe base64


def test_it_refuses_a_second_event_with_the_same_seq():
    scenario = Scenario.objects.create(name="s")
    run = Run.objects.create(version=ScenarioVersion.objects.create(scenario=scenario, number=1))
    RunEvent.objects.create(run=run, seq=0, cycle=0, extension_point="CycleStart", payload={})
    RunEvent.objects.bulk_create([RunEvent(run=run, seq=0, cycle=0, extension_point="X", payload={})], ignore_conflicts=True)
    assert RunEvent.objects.get(run=run).extension_point == "CycleStart"
    with pytest.raises(IntegrityError):
        RunEvent.objects.create(run=run, seq=0, cycle=0, extension_point="Dup", payload={})


def test_it_stores_payloads_compressed_and_reads_them_back_unchanged():
    scenario = Scenario.objects.create(name="s")
    run = Run.objects.create(version=ScenarioVersion.objects.create(scenario=scenario, number=1))
    payload = {"statuses": {f"node-{i}": {"code": "Unschedulable", "reasons": ["node(s) didn't match"]} for i in range(500)}}
    RunEvent.objects.create(run=run, seq=0, cycle=0, extension_point="Filter", plugin="NodeAffinity", payload=payload)
    stored = RunEvent.objects.get(run=run)
    assert stored.payload == payload
    assert len(bytes(stored.payload_z)) * 10 < len(json.dumps(payload))
