"""Serve the plotly package's plotly.min.js as static 'vendor/plotly.min.js'.

The file is 4 MB and versioned with the plotly wheel, so we point at the installed copy instead of
committing it; collectstatic and whitenoise both go through finders.
"""

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, overload

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import CheckMessage
from django.core.files.storage import FileSystemStorage

STATIC_PATH = "vendor/plotly.min.js"


def plotly_js_path() -> Path:
    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


class VendorStorage(FileSystemStorage):
    """collectstatic copies a storage's files under its ``prefix`` (an attribute it looks for, as on
    the storages Django's own FileSystemFinder makes): plotly's bundle lands under vendor/."""

    prefix = "vendor"


class PlotlyFinder(BaseFinder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(plotly_js_path().parent))

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return []

    @overload
    def find(self, path: str, find_all: Literal[False] = False) -> str | None: ...
    @overload
    def find(self, path: str, find_all: Literal[True]) -> list[str]: ...

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str] | None:
        if path != STATIC_PATH:
            return [] if find_all else None
        found = str(plotly_js_path())
        return [found] if find_all else found

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterator[tuple[str, FileSystemStorage]]:
        yield "plotly.min.js", VendorStorage(location=str(plotly_js_path().parent))
