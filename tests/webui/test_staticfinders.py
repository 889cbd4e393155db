"""plotly.min.js is served from the installed plotly package as static vendor/plotly.min.js."""

import pytest
from django.contrib.staticfiles import finders

from webui.staticfinders import STATIC_PATH


def test_it_finds_plotly_under_vendor():
    found = finders.find(STATIC_PATH)
    assert found and found.endswith("plotly.min.js")


def test_it_lists_plotly_for_collectstatic():
    finder = finders.get_finder("webui.staticfinders.PlotlyFinder")
    [(path, storage)] = list(finder.list(None))
    assert (storage.prefix, path) == ("vendor", "plotly.min.js")


@pytest.mark.django_db
def test_it_serves_plotly_over_http(live_server):
    import urllib.request

    with urllib.request.urlopen(f"{live_server.url}/static/{STATIC_PATH}") as response:
        assert response.status == 200
        assert response.read(64).lstrip().startswith((b"/**", b"!function", b"/*"))
