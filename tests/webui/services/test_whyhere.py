"""webui.services.whyhere: "Why here?" for a running pod, the engine's answer once per version and pod."""

import pytest

from tests.webui import support
from webui.services import engine, scenarios, whyhere
from webui.services.access import Actor
from webui.services.errors import DomainError, NotFound

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")


@pytest.fixture
def version():
    return scenarios.create(OWNER, "dump", support.dump_as_stream()).version


def test_it_answers_once_per_version_and_pod(version, monkeypatch):
    calls = []
    real = engine.explain_pod
    monkeypatch.setattr(engine, "explain_pod", lambda scenario, pod: calls.append(pod) or real(scenario, pod))
    first = whyhere.explain(version, "kube-system/coredns-6d4b-x7k2p")
    assert whyhere.explain(version, "kube-system/coredns-6d4b-x7k2p") == first and calls == [
        "kube-system/coredns-6d4b-x7k2p"
    ]
    assert (first["node"], first["outcome"]) == ("worker-1", "moves")


def test_a_pending_pod_is_refused_with_the_engines_reason(version):
    with pytest.raises(DomainError, match="is pending"):
        whyhere.explain(version, "default/web-7f9c-a")


def test_an_unknown_pod_is_not_found(version):
    with pytest.raises(NotFound, match="no pod default/ghost"):
        whyhere.explain(version, "default/ghost")


def test_the_answer_names_the_release_the_cycle_was_re_run_as(version):
    answer = whyhere.explain(version, "kube-system/coredns-6d4b-x7k2p")
    assert answer["release"] == engine.check(version.text).release and answer["release"]["release"]
