"""HTTP answers the routers build themselves, for bodies that are already bytes: prebuilt JSON
(gzipped when large), JSON stored gzipped, and JSON written out as it is made (streamed). Both skip ninja's serialization on purpose: the
bytes were validated by their schema when they were made (or stored), and a big run's answer is
megabytes that need not be parsed again."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.cache import patch_vary_headers

GZIP_LEVEL = 1  # fast: a 2 MB cycle compresses ~10x at level 1 in a few ms
GZIP_MIN_BYTES = 32 * 1024  # the large read-only answers (a cycle's events, a version's nodes)
JSON_CONTENT_TYPE = "application/json; charset=utf-8"


def _accepts_gzip(request: HttpRequest) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "")


def gzipped_json(request: HttpRequest, gzipped: bytes) -> HttpResponse:
    """JSON stored gzipped: sent as it is to clients that accept gzip, else decompressed."""
    accepts = _accepts_gzip(request)
    response = HttpResponse(gzipped if accepts else gzip.decompress(gzipped), content_type=JSON_CONTENT_TYPE)
    if accepts:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


def json_bytes(request: HttpRequest, body: bytes) -> HttpResponse:
    """Prebuilt JSON, gzipped when large and the client accepts it (these answers carry no secret
    and echo no request input, so compressing them leaks nothing; headers are untouched)."""
    large = len(body) >= GZIP_MIN_BYTES
    gzipped = large and _accepts_gzip(request)
    response = HttpResponse(
        gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0) if gzipped else body, content_type=JSON_CONTENT_TYPE
    )
    if gzipped:
        response["Content-Encoding"] = "gzip"
    if large:
        patch_vary_headers(response, ("Accept-Encoding",))
    return response


def streamed_json(request: HttpRequest, chunks: Iterator[bytes], compress: bool = False) -> StreamingHttpResponse:
    """JSON sent as its chunks are made (``streamed``)."""
    return streamed(request, chunks, JSON_CONTENT_TYPE, compress)


def streamed(
    request: HttpRequest, chunks: Iterator[bytes], content_type: str, compress: bool = False
) -> StreamingHttpResponse:
    """A body sent as its chunks are made, so the process holds one chunk however long the answer; with
    `compress`, gzipped as it goes to clients that accept it (the same rule as json_bytes: no secret in it).
    Under ASGI (daphne) the chunks are pulled one at a time on the thread the sync views share (they
    read the database): given a plain iterator, Django's ASGI handler would read it whole first."""
    gzipped = compress and _accepts_gzip(request)
    if gzipped:
        chunks = _gzipped(chunks)
    body = _pulled(chunks) if isinstance(request, ASGIRequest) else chunks
    response = StreamingHttpResponse(body, content_type=content_type)
    response["Cache-Control"] = "no-store"
    if gzipped:
        response["Content-Encoding"] = "gzip"
    if compress:
        patch_vary_headers(response, ("Accept-Encoding",))
    return response


def _gzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    for chunk in chunks:
        packed = packer.compress(chunk)
        if packed:
            yield packed
    yield packer.flush()


def _next_chunk(chunks: Iterator[bytes]) -> bytes | None:
    return next(chunks, None)


async def _pulled(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    step = sync_to_async(_next_chunk, thread_sensitive=True)
    while (chunk := await step(chunks)) is not None:
        yield chunk
