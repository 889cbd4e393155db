"""webui/brokerfs.py: the embedded broker never hands a worker a message before it is whole, and a
message is taken by one worker only. kombu's own filesystem transport lost about one message in a
thousand on a 2-core machine: a worker read the file between its creation and its write."""

import os
import subprocess
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from kombu import Connection

from tests.webui import support
from webui import brokerfs


def channel(folder: Path) -> Any:
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder), "store_processed": False}
    return Connection(transport="webui.brokerfs:Transport", transport_options=options).default_channel


def test_messages_come_back_whole_in_the_order_they_were_put(tmp_path):
    writer, reader = channel(tmp_path), channel(tmp_path)
    for number in range(5):
        writer._put("runs", {"number": number, "text": "é" * 3})
    assert [reader._get("runs")["number"] for _ in range(5)] == [0, 1, 2, 3, 4]
    with pytest.raises(Empty):
        reader._get("runs")
    assert os.listdir(tmp_path) == []


def test_a_worker_polling_while_a_message_is_written_sees_no_message(tmp_path, monkeypatch):
    """Made to happen every time: another worker polls at the moment the file is written but not
    yet in place (kombu's own transport hands it an empty file there, and the message is lost)."""
    writer, reader = channel(tmp_path), channel(tmp_path)
    seen_while_writing: list[object] = []
    put_in_place = os.replace

    def poll_then_put_in_place(partial: str, final: str) -> None:
        assert Path(partial).read_bytes(), "the message is written before it is put in place"
        try:
            seen_while_writing.append(reader._get("runs"))
        except Empty:
            seen_while_writing.append(Empty)
        put_in_place(partial, final)

    monkeypatch.setattr(brokerfs.os, "replace", poll_then_put_in_place)
    writer._put("runs", {"run": 7})
    assert seen_while_writing == [Empty]
    assert reader._get("runs") == {"run": 7}


def test_a_message_another_worker_claimed_first_is_left_to_it(tmp_path, monkeypatch):
    writer, reader = channel(tmp_path), channel(tmp_path)
    writer._put("runs", {"run": 1})
    writer._put("runs", {"run": 2})
    first = sorted(os.listdir(tmp_path))[0]
    claim = os.rename

    def another_worker_was_quicker(source: str, target: str) -> None:
        if os.path.basename(source) == first:
            claim(source, source + ".by-another")  # gone from the queue before this worker's rename
        claim(source, target)

    monkeypatch.setattr(brokerfs.os, "rename", another_worker_was_quicker)
    assert reader._get("runs") == {"run": 2}
    assert sorted(os.listdir(tmp_path)) == [first + ".by-another"]


def test_other_queues_and_files_in_the_folder_are_not_taken(tmp_path):
    writer, reader = channel(tmp_path), channel(tmp_path)
    writer._put("long", {"upload": 3})
    (tmp_path / f"{brokerfs.message_name('runs')}{brokerfs.WRITING}").write_bytes(b"")
    (tmp_path / f"{brokerfs.message_name('runs')}{brokerfs.CLAIMED}").write_bytes(b"{}")
    with pytest.raises(Empty):
        reader._get("runs")
    assert reader._get("long") == {"upload": 3}


def test_the_embedded_app_sends_its_tasks_through_it():
    """In a process of its own: the test run's settings may name Redis, `make run`'s never do."""
    script = (
        "import django; django.setup()\n"
        "from webui.celery import app\n"
        "connection = app.connection_for_write()\n"
        "connection.as_uri()\n"
        "print(type(connection.transport).__module__)\n"
    )
    env = support.clean_env(DJANGO_SETTINGS_MODULE="webui.settings")
    result = subprocess.run(
        [support.PYTHON, "-c", script], cwd=support.REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "webui.brokerfs"
    assert "No hostname was supplied" not in result.stderr
