"""webui.models: the constraints the task's idempotency relies on."""

import pytest
from django.db import IntegrityError

from webui.models import Run, RunSegment, Scenario, ScenarioVersion, new_share_token

pytestmark = pytest.mark.django_db


def test_it_makes_share_tokens_with_at_least_128_random_bits():
    tokens = {new_share_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t) >= 43 for t in tokens)  # 32 bytes, urlsafe base64


def test_it_refuses_a_second_segment_starting_at_the_same_seq():
    scenario = Scenario.objects.create(name="s")
    run = Run.objects.create(version=ScenarioVersion.objects.create(scenario=scenario, number=1))
    RunSegment.objects.create(run=run, cycle=0, first_seq=0, end_seq=3, blob=b"first")
    RunSegment.objects.bulk_create(
        [RunSegment(run=run, cycle=0, first_seq=0, end_seq=3, blob=b"again")], ignore_conflicts=True
    )
    assert bytes(RunSegment.objects.get(run=run).blob) == b"first"
    with pytest.raises(IntegrityError):
        RunSegment.objects.create(run=run, cycle=0, first_seq=0, end_seq=3, blob=b"dup")


def test_it_says_the_stored_bytes_per_finished_cycle():
    assert Run(stored_bytes=900, cycle=3).stored_bytes_per_cycle == 300
    assert Run(stored_bytes=0, cycle=0).stored_bytes_per_cycle is None
