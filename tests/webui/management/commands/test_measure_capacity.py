"""`manage.py measure_capacity FILE --pod NS/NAME`: a pod-copies question through the service and the
task in this process, timed (the 5000-node figure is in docs/CAPACITY.md)."""

import json

import pytest
from django.core.management import call_command
from django.test import Client

from scheduler_core.answers.capacity import TrialBase
from scheduler_core.answers.capacity_pass import how_many_copies
from tests.webui.capacity_support import CAPACITY_PODS, REPO
from webui.models import Scenario

pytestmark = pytest.mark.django_db(transaction=True)  # the ask and the rounds send on commit
PODS = REPO / "examples" / "capacity_pods.yaml"


@pytest.mark.parametrize(("pod", "method"), [("default/cache-0", "placed"), ("default/urgent-0", "trials")])
def test_it_answers_through_the_app_and_times_the_ask_and_the_task(capsys, pod: str, method: str):
    call_command("measure_capacity", str(PODS), "--pod", pod)
    result = json.loads(capsys.readouterr().out.strip())
    cli = how_many_copies(TrialBase.from_text(CAPACITY_PODS), pod)
    assert (result["status"], result["method"], result["fits"]) == ("succeeded", method, cli.fits)
    assert result["message"] == cli.message and result["taskCpuSeconds"] > 0 and result["askCpuSeconds"] > 0
    assert (result["trials"] > 0) == (method == "trials")


def test_what_it_made_is_left_out_of_the_single_user_list(capsys, settings):
    """The question, its scenario and the deciding trial's scenario and run are the command's, not
    the person's: `make run`'s single-user list does not show them."""
    settings.SCHEDLAB_SINGLE_USER = True
    call_command("measure_capacity", str(PODS), "--pod", "default/cache-0")
    assert json.loads(capsys.readouterr().out.strip())["status"] == "succeeded"
    assert Scenario.objects.filter(owner_session_key="measure_capacity").count() == 2  # the file's, the deciding one
    client = Client()
    assert [s for s in client.get("/api/scenarios").json() if not s["demo"]] == []
    assert client.get("/api/runs").json() == []
