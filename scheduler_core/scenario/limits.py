"""Size limits that keep a hostile or mistaken scenario from exhausting memory or time."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

MIB = 1024 * 1024
ENVELOPE_NODES = 5_000  # Kubernetes' scalability envelope (the SIG Scalability thresholds)
ENVELOPE_PODS = 150_000


@dataclass(frozen=True, slots=True)
class Limits:
    # 5,000 nodes and 40,500 pods of a realistic cluster are 275 MB as `kubectl get -A -o json` writes
    # them; a dump at the envelope with managedFields nears 1 GB (the embedded app takes as much).
    max_bytes: int = 1024 * MIB
    # Kubernetes' published envelope, 5,000 nodes and 150,000 pods (ENVELOPE_NODES, ENVELOPE_PODS),
    # is taken by default, as the embedded app takes it: as a stream of one object per document
    # (`kubectl get -o yaml` item by item) with its workloads, claims and services beside the pods.
    max_documents: int = 250_000
    max_nodes: int = 10_000
    max_pods: int = 150_000
    max_pending_pods: int = 20_000
    max_depth: int = 64  # nesting of YAML mappings/sequences
    max_aliases: int = 100  # YAML aliases (*name) in the whole file
    max_alias_expansion: int = 10_000  # YAML nodes reachable through aliases, summed
    # Directories and archives (scenario/sources.py). ``max_bytes`` bounds the YAML/JSON read from
    # them, all files together; these bound the walk itself, members that are not read included.
    max_files: int = 20_000  # entries of a directory tree or an archive
    max_unpacked_bytes: int = 1024 * MIB  # bytes an archive inflates to, skipped members included


def megabytes(size: int) -> str:
    """A size as a person reads it: "19.1 MB", "8 MB" (MB of 1,048,576 bytes, as the limits are
    set); under 0.1 MB in bytes ("9263 bytes"), so a small size never reads "0 MB"."""
    if size < MIB // 10:
        return f"{size} bytes"
    return f"{size / MIB:.1f}".removesuffix(".0") + " MB"


# Every size-limit message ends with the limit's field, e.g. "more than 10000 nodes (Limits.max_nodes)":
# the marker the CLI and the web app replace with what raises it there (a flag, a server setting).
LIMIT_MARKER = re.compile(r"\s*\(Limits\.(\w+)\)$")
_BYTES_SAID = re.compile(r"\b(?:is|hold) ([0-9.]+) (MB|bytes)\b")
_COUNT_SAID = re.compile(r"\b(\d+) [a-z ]+, more than \d+")
BYTE_LIMITS = frozenset({"max_bytes", "max_unpacked_bytes"})


def needed(limit: str, message: str) -> int | None:
    """The least value of ``limit`` that takes what ``message`` says is over it, when the message
    says how much (a size in MB, rounded up to whole MB; a count); None when it does not."""
    if limit in BYTE_LIMITS:
        said = _BYTES_SAID.search(message)
        if said is None:
            return None
        # megabytes() rounds to 0.1 MB: half of that more, then up to the next whole MB, always holds it.
        size = float(said.group(1)) + 0.05 if said.group(2) == "MB" else int(said.group(1)) / MIB
        return max(1, math.ceil(size)) * MIB
    counted = _COUNT_SAID.search(message)
    return int(counted.group(1)) if counted else None


def in_own_words(message: str, raise_with: Callable[[str, int | None], str | None]) -> str:
    """A size-limit message as a person reads it: its "(Limits.<field>)" marker replaced by what
    ``raise_with(field, needed value or None)`` says raises it (a CLI flag, a server setting), or
    dropped when that says nothing; any other message unchanged."""
    match = LIMIT_MARKER.search(message)
    if match is None:
        return message
    said = message[: match.start()]
    how = raise_with(match.group(1), needed(match.group(1), said))
    return f"{said}; {how}" if how else said


def setting_value(limit: str, value: int | None) -> str:
    """What to set a limit to: "18874368 (18 MB)" for bytes, "3340" for a count, "N" when not known."""
    if value is None:
        return "N"
    return f"{value} ({megabytes(value)})" if limit in BYTE_LIMITS else str(value)
