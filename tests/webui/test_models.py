"""webui.models: the constraints the task's idempotency relies on."""

import pytest
from django.db import IntegrityError

from webui.models import (
    Run,
    RunSegment,
    Scenario,
    ScenarioVersion,
    TextPiece,
    forget_unused_pieces,
    new_share_token,
    pieces_of,
)

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


BIG = "".join(f"---\nkind: Node\nmetadata:\n  name: node-{i}\n  labels: {{zone: z{i % 7}}}\n" for i in range(20000))


def test_a_version_reads_back_the_text_it_was_saved_with_from_shared_pieces():
    scenario = Scenario.objects.create(name="s")
    first = ScenarioVersion.saved(scenario, 1, BIG)
    edited = BIG.replace("name: node-12345\n", "name: node-12345-renamed\n")
    second = ScenarioVersion.objects.create(scenario=scenario, number=2, text=edited)
    assert ScenarioVersion.objects.get(pk=first.pk).text == BIG
    assert ScenarioVersion.objects.get(pk=second.pk).text == edited
    assert (first.length, second.length) == (len(BIG), len(edited))
    pieces = first.pieces.count()
    assert pieces > 5 and second.pieces.count() == pieces
    # the edit made one new piece; every other is the first version's, stored once
    assert TextPiece.objects.count() == pieces + 1
    assert sum(len(bytes(p.data)) for p in TextPiece.objects.all()) < len(BIG) / 5


def test_a_part_of_a_versions_text_is_read_from_the_pieces_that_hold_it(django_assert_num_queries):
    scenario = Scenario.objects.create(name="s")
    saved = ScenarioVersion.saved(scenario, 1, BIG)
    middle = len(BIG) // 2
    for start, end in ((0, 10), (middle - 5, middle + 70_000), (len(BIG) - 3, len(BIG) + 5), (len(BIG), len(BIG))):
        version = ScenarioVersion.objects.get(pk=saved.pk)
        with django_assert_num_queries(2 if start < len(BIG) else 1):  # the piece list, then only its pieces
            assert version.text_between(start, end) == BIG[start:end]
        assert "_text" not in version.__dict__  # the whole text was not read
    assert saved.text_between(3, 9) == BIG[3:9]  # a version holding its text slices it


def test_a_saved_version_never_changes_its_text():
    version = ScenarioVersion.saved(Scenario.objects.create(name="s"), 1, "kind: Node\n")
    with pytest.raises(ValueError, match="a version never changes"):
        version.text = "kind: Pod\n"
    assert ScenarioVersion.objects.get(pk=version.pk).text == "kind: Node\n"


def test_a_version_made_without_a_text_holds_the_empty_one():
    version = ScenarioVersion.objects.create(scenario=Scenario.objects.create(name="s"), number=1)
    assert ScenarioVersion.objects.get(pk=version.pk).text == "" and version.length == 0


def test_the_pieces_of_deleted_versions_go_unless_another_version_lists_them():
    kept = ScenarioVersion.saved(Scenario.objects.create(name="kept"), 1, BIG)
    gone = ScenarioVersion.saved(Scenario.objects.create(name="gone"), 1, BIG + "---\nkind: Pod\n")
    held = pieces_of(ScenarioVersion.objects.filter(pk=gone.pk))
    gone.scenario.delete()
    assert forget_unused_pieces(held) == 1  # only the last piece was its own
    assert ScenarioVersion.objects.get(pk=kept.pk).text == BIG
