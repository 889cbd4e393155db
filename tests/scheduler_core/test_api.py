"""scheduler_core.api: the published API is what docs/ENGINE_API.md lists, every name importable."""

from __future__ import annotations

import re
from pathlib import Path

import scheduler_core.api as api

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ENGINE_API.md"


def listed_on_the_page() -> set[str]:
    block = re.search(r"```python\nfrom scheduler_core\.api import \((.*?)\n\)\n```", PAGE.read_text(), re.S)
    assert block is not None, "docs/ENGINE_API.md lists the published API in one python block"
    code = "\n".join(line.split("#")[0] for line in block.group(1).splitlines())
    return {name.strip() for name in code.split(",") if name.strip()}


def test_the_page_lists_exactly_the_module_s_names():
    assert listed_on_the_page() == set(api.__all__)


def test_every_published_name_is_defined_once():
    assert len(api.__all__) == len(set(api.__all__))
    assert [name for name in api.__all__ if not hasattr(api, name)] == []
