"""Fixtures for scenario tests: the shared conformance corpus and bench files."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[4] / "shared"


@pytest.fixture(scope="session")
def corpus_files() -> list[Path]:
    files = sorted((SHARED / "conformance" / "public").glob("*.yaml")) + sorted((SHARED / "bench").glob("*.yaml"))
    if not files:
        pytest.skip(f"no corpus under {SHARED}")
    return files
