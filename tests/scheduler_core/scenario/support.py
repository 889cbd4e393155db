"""Helpers for scenario tests: tiny YAML builders, error extraction, composed trees as comparable values."""

from __future__ import annotations

import io
import tarfile
import textwrap
import zipfile
from pathlib import Path
import math
from typing import Any, Optional

import pytest

from scheduler_core.scenario import Limits, ScenarioError, ScenarioInvalid, load_scenario
from scheduler_core.scenario.yamlvalues import YList, YMap

CONTAINER = """\
containers:
- name: c
  image: nginx
"""

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  capacity:
    cpu: '4'
    memory: 8Gi
    pods: '110'
"""


def pod(spec: str, name: str = "web-1", extra_meta: str = "") -> str:
    """A Pod document whose spec body is ``spec`` (indented for you)."""
    if spec.startswith(CONTAINER):  # CONTAINER + an indented triple-quoted block
        spec = CONTAINER + textwrap.dedent(spec[len(CONTAINER) :])
    body = textwrap.indent(textwrap.dedent(spec).strip("\n"), "  ")
    meta = textwrap.indent(textwrap.dedent(extra_meta).strip("\n"), "  ") + "\n" if extra_meta else ""
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{meta}spec:\n{body}\n"


def stream(*documents: str) -> str:
    return "---\n".join(documents)


def errors_of(text: str | bytes, limits: Optional[Limits] = None) -> list[ScenarioError]:
    with pytest.raises(ScenarioInvalid) as raised:
        load_scenario(text, limits=limits)
    assert raised.value.errors, "ScenarioInvalid must carry at least one error"
    return raised.value.errors


def line_of(text: str, fragment: str) -> int:
    """1-based line of the first line containing ``fragment``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if fragment in line:
            return number
    raise AssertionError(f"{fragment!r} not in text")


# ---------------------------------------------------------------------------- dumps and archives

FORMS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps" / "forms"


def tar_of(directory: Path, target: Path, mode: str = "w:gz") -> Path:
    """``directory`` packed as a tar (``mode`` "w", "w:gz") at ``target``, under its own name."""
    with tarfile.open(target, mode) as archive:
        archive.add(directory, arcname=directory.name)
    return target


def zip_of(directory: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                archive.write(path, f"{directory.name}/{path.relative_to(directory).as_posix()}")
    return target


def tar_bytes(members: dict[str, bytes], links: Optional[dict[str, str]] = None, mode: str = "w:gz") -> bytes:
    """A tar built in memory: regular members (name -> data) and symbolic links (name -> target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tree_shape(value: Any) -> Any:
    """Everything the loader can see of a composed value: types (True is no 1), order, ``line`` and
    ``lines`` (the line composers' tests compare theirs with the event composer's)."""
    if isinstance(value, YMap):
        return ("map", value.line, list(value.lines.items()), [(k, tree_shape(v)) for k, v in value.items()])
    if isinstance(value, YList):
        return ("list", value.line, list(value.lines), [tree_shape(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def documents_shape(documents: Any) -> list[Any]:
    return [(d.index, d.line, tree_shape(d.value)) for d in documents]
