"""webui/services/documents.py: a version's objects listed a page at a time from an index made once
per text, read one at a time, and replaced, deleted or added to — each edit a new version whose
other characters are the base's, the edited document checked on its own (problems named with the
object, field path and line), the whole check left to the background."""

from __future__ import annotations

import pytest

from datetime import timedelta

from django.utils import timezone

from webui.models import ScenarioVersion, TextCheck
from webui.services import documents, engine, scenarios
from webui.services.access import Actor
from webui.services.errors import Conflict, InvalidScenario, NotFound

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")

NODE = "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels: {{zone: z{i}}}\nstatus:\n  capacity: {{cpu: '4', memory: 8Gi, pods: '110'}}\n"
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n"
    "  containers:\n  - name: c\n    image: nginx\n    resources: {{requests: {{cpu: 100m}}}}\n"
)
CHANGES = "apiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- operations:\n  - drain: {node: node-0}\n"
# A comment before the first document, a flow-style object, and a last document without a line end.
TEXT = (
    "# my cluster\n"
    + NODE.format(i=0)
    + "---\n"
    + NODE.format(i=1)
    + "---\n"
    + '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "json-pod", "namespace": "shop"}, '
    '"spec": {"containers": [{"name": "c", "image": "nginx"}]}}\n'
    + "--- # the workload\n"
    + POD.format(name="web-1")
    + "---\n"
    + CHANGES.rstrip("\n")
)


@pytest.fixture
def saved() -> scenarios.Saved:
    return scenarios.create(OWNER, "dump", TEXT)


@pytest.fixture
def checks_started(monkeypatch, django_capture_on_commit_callbacks) -> list[int]:
    """The versions whose whole check was asked of a long-work worker (sent once saved)."""
    started: list[int] = []
    monkeypatch.setattr(documents, "_send_check", started.append)
    return started


def _fresh_index(version: ScenarioVersion) -> documents.Index:
    return documents.Index(version.digest, version.length, tuple(documents._entries(version.text)))


def test_it_lists_every_document_with_its_kind_name_and_first_line(saved):
    entries = documents.index_of(saved.version).entries
    assert [(e.kind, e.namespace, e.name, e.line) for e in entries] == [
        ("Node", "", "node-0", 1),
        ("Node", "", "node-1", 10),
        ("Pod", "shop", "json-pod", 18),
        ("Pod", "shop", "web-1", 20),
        ("Changes", "", "", 31),
    ]
    assert "".join(TEXT[e.start : e.end] for e in entries) == TEXT
    assert TEXT.splitlines()[entries[3].line - 1] == "apiVersion: v1"
    assert documents.index_of(saved.version).counts() == {"Changes": 1, "Node": 2, "Pod": 2}


@pytest.mark.parametrize(
    "body, header",
    [
        # metadata's own keys at its first key's indent; deeper ones (an owner's name) are not its
        (
            "kind: Pod\nmetadata:\n  labels:\n    name: label\n  name: own\n  namespace: ns # c\nspec: {}\n",
            ("Pod", "ns", "own"),
        ),
        ("kind: Pod\nmetadata:\n    ownerReferences:\n    - name: rs\n    name: 'quoted'\n", ("Pod", "", "quoted")),
        ("kind: Node\nmetadata:\n  name:\n  namespaceX: x\n", ("Node", "", "")),  # no value, another key
        ("kind: Pod\nmetadata:\n  name: first\n  name: last\r\n", ("Pod", "", "last")),  # as the last line says
        ("kind: Pod\nmetadata:\n  name:x", ("Pod", "", "x")),  # the text's end
        ("kind: Pod\nmetadata:\nspec: {}\n", ("Pod", "", "")),  # an empty metadata
    ],
)
def test_a_documents_kind_namespace_and_name_are_read_from_metadatas_own_lines(body, header):
    assert documents._header(body) == header


def test_a_page_filters_by_kind_searches_names_and_counts_what_matched(saved):
    pods = documents.page(saved.version, kind="Pod")
    assert pods.matched == [2, 3]
    found = documents.page(saved.version, search="NODE-1")
    assert found.matched == [1]
    assert documents.page(saved.version, search="shop/web").matched == [3]
    second = documents.page(saved.version, offset=2, limit=2)
    assert (second.matched[second.offset : second.offset + second.limit], len(second.matched)) == ([2, 3], 5)
    assert documents.page(saved.version, limit=10_000).limit == documents.PAGE_MAX


def test_a_page_reads_the_index_not_the_text_again(saved, monkeypatch):
    documents.index_of(saved.version)

    def parse_again(*args, **kwargs):
        raise AssertionError("the text was split again")

    monkeypatch.setattr(documents, "_entries", parse_again)
    assert documents.page(ScenarioVersion.objects.get(pk=saved.version.pk), kind="Node").matched == [0, 1]


def test_a_big_versions_index_is_kept_on_disk_for_the_other_processes(saved, settings, monkeypatch):
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    made = documents.index_of(saved.version)
    engine.forget_everything()  # another process: its memo is empty
    monkeypatch.setattr(documents, "_entries", lambda *a, **k: pytest.fail("made again"))
    assert documents.index_of(ScenarioVersion.objects.get(pk=saved.version.pk)) == made


def test_a_big_texts_index_is_made_by_a_child_while_the_text_is_saved(settings, monkeypatch):
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    settings.SCHEDLAB_EDITOR_MAX_BYTES = 100  # edited object by object
    engine.let_reading_fork()
    with engine.kept_meanwhile() as kept:
        assert documents.index_meanwhile(TEXT, kept) and len(kept.children) == 1
        saved = scenarios.create(OWNER, "dump", TEXT)
    fresh = _fresh_index(saved.version)
    engine.forget_everything()  # the web process: read from disk, as the child kept it
    monkeypatch.setattr(documents, "_entries", lambda *a, **k: pytest.fail("made again"))
    assert documents.index_of(saved.version) == fresh


def test_an_index_its_child_did_not_keep_is_made_by_the_process_that_waits(settings, monkeypatch):
    class Failed:
        def answer(self, patience=None):
            return None  # the child failed, or was killed after its patience

    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    settings.SCHEDLAB_EDITOR_MAX_BYTES = 100
    engine.let_reading_fork()
    monkeypatch.setattr(engine.Forked, "start", classmethod(lambda cls, work: Failed()))
    with engine.kept_meanwhile() as kept:
        assert documents.index_meanwhile(TEXT, kept)
        saved = scenarios.create(OWNER, "dump", TEXT)
    engine.forget_everything()  # another process: read from disk, not made
    fresh = _fresh_index(saved.version)
    monkeypatch.setattr(documents, "_entries", lambda *a, **k: pytest.fail("made again"))
    assert documents.index_of(saved.version) == fresh


def test_a_text_edited_whole_has_no_index_made_meanwhile(settings):
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    engine.let_reading_fork()
    with engine.kept_meanwhile() as kept:
        assert not documents.index_meanwhile(TEXT, kept) and not kept.children


def test_one_document_is_read_as_saved_without_the_rest(saved):
    text = documents.document_text(ScenarioVersion.objects.get(pk=saved.version.pk), 3)
    assert text == POD.format(name="web-1")
    with pytest.raises(NotFound, match="no document 5"):
        documents.document_text(saved.version, 5)


def test_a_replaced_object_is_a_new_version_with_every_other_character_kept(
    saved, checks_started, django_capture_on_commit_callbacks
):
    new_pod = POD.format(name="web-1").replace("100m", "250m")
    with django_capture_on_commit_callbacks(execute=True):
        edited = documents.replace_document(saved.scenario, 1, 3, new_pod)
    assert edited.version.number == 2
    assert edited.check is None and checks_started == [edited.version.pk]  # asked of a long-work worker
    assert TextCheck.objects.get(digest=edited.version.digest).result is None
    old, new = saved.version.text, ScenarioVersion.objects.get(pk=edited.version.pk).text
    entry = documents.index_of(saved.version).entries[3]
    assert new == old[: entry.body] + new_pod + old[entry.end :]
    assert documents.index_of(edited.version) == _fresh_index(edited.version)
    assert scenarios.get_version(saved.scenario, 1).text == TEXT  # versions never change


def test_a_last_document_replaced_without_its_line_end_stays_as_typed(saved, checks_started):
    edited = documents.replace_document(saved.scenario, None, 4, CHANGES.replace("node-0", "node-1").rstrip("\n"))
    assert edited.version.text.endswith("drain: {node: node-1}")
    assert documents.index_of(edited.version) == _fresh_index(edited.version)


def test_a_deleted_object_leaves_the_rest_as_it_was(saved, checks_started):
    entry = documents.index_of(saved.version).entries[1]
    edited = documents.delete_document(saved.scenario, 1, 1)
    assert edited.version.text == TEXT[: entry.start] + TEXT[entry.end :]
    assert [e.name for e in documents.index_of(edited.version).entries] == ["node-0", "json-pod", "web-1", ""]
    assert documents.index_of(edited.version) == _fresh_index(edited.version)
    first = documents.delete_document(saved.scenario, 2, 0)
    assert documents.index_of(first.version) == _fresh_index(first.version)


def test_added_documents_come_after_the_last_one(saved, checks_started):
    added = POD.format(name="web-2") + "---\n" + POD.format(name="web-3")
    edited = documents.add_documents(saved.scenario, 1, added)
    assert edited.version.text == TEXT + "\n---\n" + added
    index = documents.index_of(edited.version)
    assert [e.name for e in index.entries[-2:]] == ["web-2", "web-3"]
    assert index == _fresh_index(edited.version)
    again = documents.add_documents(saved.scenario, 2, "---\n" + NODE.format(i=7))
    assert again.version.text == edited.version.text + "---\n" + NODE.format(i=7)
    assert documents.index_of(again.version) == _fresh_index(again.version)


def test_a_bad_object_is_refused_naming_its_object_field_and_line_in_the_whole_text(saved, checks_started):
    bad = POD.format(name="web-1").replace("100m", "lots")
    with pytest.raises(InvalidScenario) as refused:
        documents.replace_document(saved.scenario, 1, 3, bad)
    [problem] = refused.value.details["errors"]
    assert (problem["object"], problem["path"], problem["line"]) == (
        "Pod shop/web-1",
        "spec.containers[0].resources.requests.cpu",
        20 + 9,  # its document's first line, and the tenth of the document
    )
    assert "lots" in problem["message"]
    assert scenarios.latest_version(saved.scenario).number == 1 and checks_started == []


def test_text_that_is_not_yaml_or_not_one_object_is_refused(saved):
    with pytest.raises(InvalidScenario) as not_yaml:
        documents.replace_document(saved.scenario, 1, 0, "kind: Node\nmetadata: {name: a}\nspec: ]\n")
    [problem] = not_yaml.value.details["errors"]
    assert (problem["object"], problem["line"]) == ("document 1", 3)
    assert problem["message"].startswith("this is not YAML")
    with pytest.raises(InvalidScenario, match="1 problem"):
        documents.replace_document(saved.scenario, 1, 0, NODE.format(i=0) + "---\n" + NODE.format(i=9))
    with pytest.raises(InvalidScenario) as a_list:
        documents.add_documents(saved.scenario, 1, "- just\n- a list\n")
    assert a_list.value.details["errors"][0]["path"] == "kind"
    with pytest.raises(InvalidScenario):
        documents.add_documents(saved.scenario, 1, "  \n")
    assert scenarios.latest_version(saved.scenario).number == 1


def test_a_changes_step_naming_an_object_of_the_rest_is_left_to_the_whole_check(saved, checks_started):
    steps = CHANGES.replace("drain: {node: node-0}", "drain: {node: node-1}\n  - scale: {kind: Deployment}")
    with pytest.raises(InvalidScenario) as refused:
        documents.replace_document(saved.scenario, 1, 4, steps)
    # The step's own shape is checked; that node-1 exists is the whole check's to say.
    assert [(p["object"], p["path"], p["line"]) for p in refused.value.details["errors"]] == [
        ("Changes step 1 operation 1", "steps[0].operations[1].scale.name", 36),
        ("Changes step 1 operation 1", "steps[0].operations[1].scale.replicas", 36),
    ]
    edited = documents.replace_document(saved.scenario, 1, 4, CHANGES.replace("node-0", "node-1"))
    assert edited.version.number == 2


def test_an_edit_of_a_version_that_is_not_the_latest_is_a_conflict(saved, checks_started):
    documents.delete_document(saved.scenario, 1, 0)
    with pytest.raises(Conflict, match="version 1 is not the latest"):
        documents.delete_document(saved.scenario, 1, 0)


def test_a_version_over_the_editor_limit_is_edited_object_by_object(saved, settings):
    settings.SCHEDLAB_EDITOR_MAX_BYTES = len(TEXT)
    assert documents.mode_of(saved.version) == "text"
    settings.SCHEDLAB_EDITOR_MAX_BYTES = len(TEXT) - 1
    assert documents.mode_of(saved.version) == "objects"


def test_the_whole_check_is_asked_once_of_a_worker_and_answered_once_it_stored_it(
    saved, checks_started, django_capture_on_commit_callbacks
):
    engine.forget_everything()  # a web process that never checked it
    with django_capture_on_commit_callbacks(execute=True):
        assert documents.check_without_waiting(saved.version) is None
        assert documents.check_without_waiting(saved.version) is None
    assert checks_started == [saved.version.pk]  # asked once
    assert documents.run_check(saved.version.pk) == f"version {saved.version.pk}: checked"  # the worker's work
    engine.forget_everything()
    stored = documents.check_without_waiting(saved.version)
    assert stored is not None and stored.valid and stored.summary.nodes == 2
    assert documents.run_check(10_000) == "version 10000: deleted meanwhile"


def test_a_check_asked_long_ago_and_never_done_is_asked_again(
    saved, checks_started, django_capture_on_commit_callbacks
):
    engine.forget_everything()
    with django_capture_on_commit_callbacks(execute=True):
        documents.check_without_waiting(saved.version)
        TextCheck.objects.update(asked=timezone.now() - documents.CHECK_STALE - timedelta(seconds=1))
        documents.check_without_waiting(saved.version)
    assert checks_started == [saved.version.pk, saved.version.pk]
