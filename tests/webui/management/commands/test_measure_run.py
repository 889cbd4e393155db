"""`manage.py measure_run FILE`: prints the measurement as one JSON line (the figures on the bench
files are in tests/webui/test_service_measure_run.py)."""

import json

import pytest
from django.core.management import CommandError, call_command

from tests.webui import support

pytestmark = pytest.mark.django_db


def test_it_prints_the_measurement_of_the_first_cycles(tmp_path, capsys):
    path = tmp_path / "small.yaml"
    path.write_text(support.scenario_text(nodes=2, pending=2))
    call_command("measure_run", str(path), "--cycles=1", "--mode=single")
    result = json.loads(capsys.readouterr().out.strip())
    assert (result["file"], result["status"], result["cycles"], result["pending_pods"]) == (
        str(path),
        "succeeded",
        1,
        2,
    )
    assert len(result["app_to_engine_each"]) == 1


def test_it_refuses_a_repeat_below_one(tmp_path):
    with pytest.raises(CommandError, match="--repeat must be at least 1"):
        call_command("measure_run", str(tmp_path / "any.yaml"), "--repeat=0")
