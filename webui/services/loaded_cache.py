"""Loaded scenarios kept on disk between the app's processes (issue 50: a run's first cycle soon).

A 5,000-node dump takes the engine ~3.5 s of CPU to read; the web process reads it to check it, and
then the worker that runs it read it again before its first cycle. Kept here as a pickle (8 MB for
that dump), the worker has it in ~0.6 s. Only the app's own processes write this directory, each
file is written whole or not at all (a rename), and a file that does not read is ignored and read
again from the text: the cache can always be deleted. A file is named for everything the loaded
scenario depends on: the text's digest, the limits, the release asked, and the engine's code (the
size and time of each of its source files), so a changed engine never reads an older one's objects.

Off (``settings.SCHEDLAB_LOADED_CACHE_DIR`` empty) in production, whose workers may run on other
machines: there each process keeps its own in memory (engine._LOADED).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import pickle
import tempfile
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import IO, Any

from django.conf import settings

log = logging.getLogger(__name__)
SUFFIX = ".pickle"
# What is kept beside a loaded scenario (a run's names): counted apart, so a scenario's few kilobytes
# of names never push another loaded scenario out of SCHEDLAB_LOADED_CACHE_FILES.
SIDECAR_SUFFIX = ".sidecar"


@functools.cache
def code_fingerprint(package: Path) -> str:
    """The engine's code as of this process: each source file's path, size and modification time."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _directory() -> Path | None:
    configured = settings.SCHEDLAB_LOADED_CACHE_DIR
    return Path(configured) if configured else None


def _path(directory: Path, key: Hashable, package: Path, suffix: str) -> Path:
    name = hashlib.sha256(f"{code_fingerprint(package)}|{key!r}".encode()).hexdigest()
    return directory / f"{name}{suffix}"


def wanted(text_bytes: int) -> bool:
    """Worth keeping on disk: the cache is on and the text big enough to take a while to read."""
    return _directory() is not None and text_bytes >= settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES


def get(key: Hashable, package: Path, suffix: str = SUFFIX) -> Any | None:
    """The object kept under ``key`` (None when there is none, or it does not read); ``suffix``:
    SIDECAR_SUFFIX for what put kept as a sidecar."""
    directory = _directory()
    if directory is None:
        return None
    path = _path(directory, key, package, suffix)
    try:
        with path.open("rb") as file:
            value = pickle.load(file)
        os.utime(path)  # the most recently used are the ones kept
        return value
    except FileNotFoundError:
        return None
    except Exception:  # a torn or foreign file: read from the text instead, and forget it
        log.warning("ignoring the unreadable loaded scenario %s", path, exc_info=True)
        path.unlink(missing_ok=True)
        return None


def put(
    key: Hashable,
    package: Path,
    value: Any,
    dump: Callable[[Any, IO[bytes]], None] | None = None,
    suffix: str = SUFFIX,
) -> None:
    """Keep ``value`` under ``key`` (written whole, then renamed); the oldest files beyond
    SCHEDLAB_LOADED_CACHE_FILES go, loaded scenarios and sidecars (``suffix`` SIDECAR_SUFFIX) each
    counted apart. A failure to write is logged, never raised: it is only a cache.
    ``dump``: writes the pickle (the engine's own is faster for its records); ``pickle.load`` reads it."""
    directory = _directory()
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".part")
        try:
            with os.fdopen(handle, "wb") as file:
                if dump is None:
                    pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
                else:
                    dump(value, file)
            os.replace(temporary, _path(directory, key, package, suffix))
        finally:
            Path(temporary).unlink(missing_ok=True)
        _trim(directory, suffix)
    except Exception:
        log.warning("could not keep a loaded scenario in %s", directory, exc_info=True)


def _trim(directory: Path, suffix: str) -> None:
    kept = sorted(directory.glob(f"*{suffix}"), key=_mtime, reverse=True)
    for old in kept[settings.SCHEDLAB_LOADED_CACHE_FILES :]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:  # another process trimmed it meanwhile
        return 0.0
