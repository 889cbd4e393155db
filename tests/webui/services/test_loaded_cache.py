"""webui.services.loaded_cache: objects kept on disk under a key and the engine's code, written whole,
the newest few kept, anything unreadable ignored; off without a directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webui.services import loaded_cache


@pytest.fixture
def package(tmp_path: Path) -> Path:
    code = tmp_path / "engine"
    code.mkdir()
    (code / "a.py").write_text("x = 1\n")
    loaded_cache.code_fingerprint.cache_clear()
    return code


def test_what_is_kept_under_a_key_is_read_back_under_that_key_only(settings, package):
    loaded_cache.put(("digest", 1), package, {"nodes": ["n1"]})
    assert loaded_cache.get(("digest", 1), package) == {"nodes": ["n1"]}
    assert loaded_cache.get(("digest", 2), package) is None
    assert not list(Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*.part"))  # written whole, then renamed


def test_a_changed_engine_never_reads_an_older_ones_objects(package):
    loaded_cache.put("key", package, "old")
    (package / "a.py").write_text("x = 22\n")
    loaded_cache.code_fingerprint.cache_clear()  # a new process
    assert loaded_cache.get("key", package) is None


def test_an_unreadable_file_is_ignored_and_removed(settings, package):
    loaded_cache.put("key", package, "value")
    [kept] = Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*.pickle")
    kept.write_bytes(b"not a pickle")
    assert loaded_cache.get("key", package) is None and not kept.exists()


def test_the_most_recently_used_files_are_kept(settings, package):
    settings.SCHEDLAB_LOADED_CACHE_FILES = 2
    for number in range(3):
        loaded_cache.put(number, package, number)
        for path in Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*.pickle"):
            stat = path.stat()
            os.utime(path, (stat.st_atime - 10, stat.st_mtime - 10))  # each earlier one older
    assert [loaded_cache.get(number, package) for number in range(3)] == [None, 1, 2]


def test_sidecars_are_counted_apart_from_the_loaded_scenarios_they_sit_beside(settings, package):
    settings.SCHEDLAB_LOADED_CACHE_FILES = 2
    loaded_cache.put("a", package, "scenario a")
    loaded_cache.put("b", package, "scenario b")
    for name in ("a", "b", "c"):
        loaded_cache.put(("names", name), package, f"names {name}", suffix=loaded_cache.SIDECAR_SUFFIX)
        for path in Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*" + loaded_cache.SIDECAR_SUFFIX):
            stat = path.stat()
            os.utime(path, (stat.st_atime - 10, stat.st_mtime - 10))  # each earlier one older
    assert [loaded_cache.get(name, package) for name in ("a", "b")] == ["scenario a", "scenario b"]
    assert loaded_cache.get(("names", "c"), package, loaded_cache.SIDECAR_SUFFIX) == "names c"
    assert loaded_cache.get(("names", "c"), package) is None  # a sidecar is not a loaded scenario
    assert len(list(Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*" + loaded_cache.SIDECAR_SUFFIX))) == 2


def test_off_without_a_directory_and_only_for_big_texts(settings, package):
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 1000
    assert loaded_cache.wanted(1000) and not loaded_cache.wanted(999)
    settings.SCHEDLAB_LOADED_CACHE_DIR = ""
    assert not loaded_cache.wanted(10**9)
    loaded_cache.put("key", package, "value")
    assert loaded_cache.get("key", package) is None
