"""webui.services.fixes: the node taints the node lifecycle controller would add, saved as a new version."""

import pytest
import yaml

from tests.webui import support
from webui.services import fixes, scenarios
from webui.services.access import Actor
from webui.services.errors import Conflict

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")


def test_it_saves_the_next_version_with_only_the_node_documents_changed():
    saved = scenarios.create(OWNER, "dump", support.dump_as_stream())
    fixed = fixes.add_node_taints(OWNER, saved.scenario)
    assert (fixed.scenario.pk, fixed.version.number) == (saved.scenario.pk, 2)
    before, after = (list(yaml.safe_load_all(text)) for text in (saved.version.text, fixed.version.text))
    changed = [b["metadata"]["name"] for b, a in zip(before, after) if b != a]
    assert changed == ["worker-2"] and len(before) == len(after)
    assert fixed.check.valid and "node-taints-missing" not in [f["code"] for f in fixed.check.findings]


def test_a_version_whose_nodes_need_nothing_is_refused_unchanged(small_text: str):
    saved = scenarios.create(OWNER, "small", small_text)
    with pytest.raises(Conflict, match="already has the taints"):
        fixes.add_node_taints(OWNER, saved.scenario)
    assert saved.scenario.versions.count() == 1


def test_someone_elses_scenario_is_fixed_in_their_own_copy():
    saved = scenarios.create(OWNER, "dump", support.dump_as_stream())
    visitor = Actor(session_key="visitor-session")
    fixed = fixes.add_node_taints(visitor, saved.scenario)
    assert fixed.scenario.pk != saved.scenario.pk and visitor.owns(fixed.scenario)
    assert fixed.scenario.name == "dump (node taints added)" and saved.scenario.versions.count() == 1
