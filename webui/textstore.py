"""A version's text kept once, compressed, in pieces shared by every version that has them (issue 50,
item 2: "a version that changes a few objects or adds steps does not copy the dump; the dump is kept
compressed").

A text is cut into pieces where its own content says (content-defined chunking, as backup tools
such as restic and borg cut files): a piece ends at the start of a YAML document ("---" at the start
of a line) whose surroundings hash to a chosen value, once the piece holds at least ``PIECE_MIN``
characters. Where the cuts fall depends on the text around each cut, not on its position, so an
edit to one object of a 1 GB dump changes the one or two pieces around it, and every other piece —
and every piece of a fork, a rename or a text saved twice — is the same piece, stored once under
its digest. A text with no document start for ``PIECE_MAX`` characters (one huge JSON document) is
cut at the next line end past that, so no piece grows without bound.

This module is pure (no Django): webui.models stores the pieces it makes, and the migration that
moved the texts here uses it too.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from isal import isal_zlib

PIECE_MIN = 64 * 1024  # characters: small texts (what people type) are one piece
PIECE_MAX = 4 * 1024 * 1024
# A document start past PIECE_MIN ends the piece when the hash of the text around it has these bits
# clear: one document in 64, ~160 KB more for a dump's ~2.5 KB objects.
CUT_MASK = 63
WINDOW = 256  # characters hashed on each side of a document start
DOCUMENT_START = "\n---"
# ISA-L's deflate (python-isal, as the run segments use): its level 3 makes a dump's YAML ~1/8 at
# ~230 MB/s a core on a busy machine, where zlib's default level takes it to ~1/10 at ~40 MB/s.
COMPRESSION_LEVEL = 3


@dataclass(frozen=True)
class Piece:
    digest: str  # sha256 of the piece's UTF-8 bytes: its name in the store
    text: str


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _cut_here(text: str, at: int) -> bool:
    window = text[max(0, at - WINDOW) : at + WINDOW].encode()
    return zlib.crc32(window) & CUT_MASK == 0


def _line_end_past(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end + 1


def _next_cut(text: str, start: int) -> int:
    """The end of the piece that begins at ``start``: the first document start at least PIECE_MIN
    in whose surroundings hash to a cut, else the first line end past PIECE_MAX (or the text's end)."""
    limit = start + PIECE_MAX
    found = text.find(DOCUMENT_START, start + PIECE_MIN - 1)
    while 0 <= found < limit:
        if _cut_here(text, found + 1):
            return found + 1  # the document's "---" begins the next piece
        found = text.find(DOCUMENT_START, found + 1)
    return _line_end_past(text, limit)


def cuts(text: str) -> list[int]:
    """Where the pieces end, in order; the last is ``len(text)``."""
    ends: list[int] = []
    start = 0
    while len(text) - start > PIECE_MIN and (end := _next_cut(text, start)) < len(text):
        ends.append(end)
        start = end
    ends.append(len(text))
    return ends


def pieces(text: str) -> Iterator[Piece]:
    """The text's pieces in order, each with its digest; "" is one empty piece."""
    start = 0
    for end in cuts(text):
        part = text[start:end]
        yield Piece(digest_of(part), part)
        start = end


def compress(piece: Piece) -> bytes:
    """The piece's UTF-8 bytes in zlib's format (any zlib reads it)."""
    return isal_zlib.compress(piece.text.encode(), COMPRESSION_LEVEL)


def decompress(data: bytes) -> str:
    return isal_zlib.decompress(data).decode()
