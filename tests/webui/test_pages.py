"""webui.pages: the page shells and the data they hand their ES modules."""

import html
import re

import pytest
from django.test import Client

from scheduler_core import load_scenario
from webui.services import scenarios

pytestmark = pytest.mark.django_db


def test_the_scenario_list_hands_create_blank_a_small_valid_template(client: Client):
    page = client.get("/").content.decode()
    attribute = re.search(r'data-blank-template="([^"]*)"', page)
    assert attribute, "the list page carries the template for Create blank"
    text = html.unescape(attribute.group(1))
    assert text == scenarios.blank_template()
    loaded = load_scenario(text)
    assert (len(loaded.nodes), len(loaded.pods), len(loaded.pending_pods)) == (2, 1, 1)
    assert text.startswith("# "), "the template explains itself in comments"


@pytest.mark.parametrize("path", ["/", "/scenarios/1/", "/scenarios/1/cluster/", "/runs/1/", "/share/abc"])
def test_every_page_shell_renders(client: Client, path: str):
    assert client.get(path).status_code == 200
