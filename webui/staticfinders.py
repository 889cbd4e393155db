"""Serve the plotly package's plotly.min.js as static 'vendor/plotly.min.js'.

The file is 4 MB and versioned with the plotly wheel, so we point at the installed copy instead of
committing it; collectstatic and whitenoise both go through finders.
"""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

STATIC_PATH = "vendor/plotly.min.js"


def plotly_js_path() -> Path:
    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(plotly_js_path().parent))

    def check(self, **kwargs) -> list:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs):
        if path != STATIC_PATH:
            return [] if find_all else None
        found = str(plotly_js_path())
        return [found] if find_all else found

    def list(self, ignore_patterns):
        # collectstatic copies storage-relative names; prefix them so it lands under vendor/.
        storage = FileSystemStorage(location=str(plotly_js_path().parent))
        storage.prefix = "vendor"
        yield "plotly.min.js", storage
