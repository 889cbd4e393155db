"""Size limits that keep a hostile or mistaken scenario from exhausting memory or time."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = 32 * MIB  # the CLI reads local files; the web app configures its own, smaller limit
    max_documents: int = 100_000
    max_nodes: int = 10_000
    max_pods: int = 60_000
    max_pending_pods: int = 5_000
    max_depth: int = 64  # nesting of YAML mappings/sequences
    max_aliases: int = 100  # YAML aliases (*name) in the whole file
    max_alias_expansion: int = 10_000  # YAML nodes reachable through aliases, summed
    # Directories and archives (scenario/sources.py). ``max_bytes`` bounds the YAML/JSON read from
    # them, all files together; these bound the walk itself, members that are not read included.
    max_files: int = 20_000  # entries of a directory tree or an archive
    max_unpacked_bytes: int = 1024 * MIB  # bytes an archive inflates to, skipped members included


def megabytes(size: int) -> str:
    """A size as a person reads it: "19.1 MB", "8 MB" (MB of 1,048,576 bytes, as the limits are set)."""
    return f"{size / MIB:.1f}".removesuffix(".0") + " MB"
