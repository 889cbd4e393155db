"""webui.services.demos (the command is in tests/webui/management/commands/test_load_demos.py)."""

import pytest

from webui.models import Scenario
from webui.services import demos

pytestmark = pytest.mark.django_db


def test_it_offers_the_four_seed_examples_and_the_repository_s_examples():
    """Only the seeds and the capacity demo were offered: none of examples/' preemption, steps,
    rollout, capacity or DRA files (issue 51 item 10)."""
    assert [d.slug for d in demos.all_demos()] == [
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
    for slug in demos.EXAMPLE_DEMOS:  # the CLI's examples and the app's demos are the same files
        assert demos.get(slug).text == (demos.examples_dir() / f"{slug}.yaml").read_text()


def test_it_adds_a_version_when_a_demo_changed():
    demos.load_all()
    scenario = Scenario.objects.get(demo_slug="seed_pts_conflict")
    scenario.versions.update(digest="old")  # as shipped before the file changed
    demos.load_all()
    assert scenario.versions.count() == 2
    demos.load_all()
    assert scenario.versions.count() == 2  # the same text again: no version


def test_each_demo_says_what_it_teaches_in_plain_words():
    for demo in demos.all_demos():
        assert demo.name != demo.slug and len(demo.description) > 80
        # No scheduler jargon and no notes about where the file came from.
        for jargon in ("maxSkew", "Hand-written", "seed document", "->", "topologyKey"):
            assert jargon not in demo.description, (demo.slug, jargon)


def test_it_rewords_a_demos_description_without_a_new_version():
    demos.load_all()
    scenario = Scenario.objects.get(demo_slug="seed_pts_conflict")
    Scenario.objects.filter(pk=scenario.pk).update(description="old words")
    demos.load_all()
    scenario.refresh_from_db()
    assert scenario.description == demos.get("seed_pts_conflict").description
    assert scenario.versions.count() == 1
