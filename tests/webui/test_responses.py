"""webui.responses: prebuilt JSON sent as it is, gzipped only when large and the client accepts it;
JSON stored gzipped sent gzipped or decompressed."""

import gzip
import json

import pytest
from django.test import RequestFactory

from webui import responses

BODY = json.dumps({"nodes": [{"name": f"node-{i}", "labels": {"zone": "a"}} for i in range(50)]}).encode()


def request(accepts_gzip: bool):
    headers = {"Accept-Encoding": "gzip, deflate"} if accepts_gzip else {}
    return RequestFactory().get("/api/anything", headers=headers)


@pytest.mark.parametrize(
    ("limit", "accepts", "gzipped", "varies"),
    [
        (len(BODY) + 1, True, False, False),
        (len(BODY), True, True, True),
        (len(BODY), False, False, True),
    ],
    ids=[
        "a small answer is sent as it is",
        "a large answer is gzipped for a client that accepts it",
        "a large answer is plain for a client that does not, and says it varies",
    ],
)
def test_prebuilt_json_is_gzipped_only_when_large_and_accepted(monkeypatch, limit, accepts, gzipped, varies):
    monkeypatch.setattr(responses, "GZIP_MIN_BYTES", limit)
    response = responses.json_bytes(request(accepts), BODY)
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert (response.get("Content-Encoding") == "gzip") is gzipped
    assert (gzip.decompress(response.content) if gzipped else response.content) == BODY
    assert ("Accept-Encoding" in response.get("Vary", "")) is varies


@pytest.mark.parametrize("accepts", [True, False], ids=["sent as stored", "decompressed for a client without gzip"])
def test_stored_gzipped_json_is_sent_as_the_client_can_read_it(accepts):
    stored = gzip.compress(BODY)
    response = responses.gzipped_json(request(accepts), stored)
    assert response.content == (stored if accepts else BODY)
    assert (response.get("Content-Encoding") == "gzip") is accepts
    assert "Accept-Encoding" in response["Vary"]


def test_a_streamed_answer_is_pulled_chunk_by_chunk_under_asgi_and_iterated_under_wsgi():
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from django.core.handlers.asgi import ASGIRequest

    pulled = []

    def chunks():
        for part in (b'{"a":', b"1}"):
            pulled.append(part)
            yield part

    wsgi = responses.streamed_json(request(False), chunks())
    assert not wsgi.is_async and pulled == [] and b"".join(wsgi.streaming_content) == b'{"a":1}'
    pulled.clear()
    scope = {"type": "http", "method": "GET", "path": "/api/runs/1/trace", "query_string": b"", "headers": []}
    asgi = responses.streamed_json(ASGIRequest(scope, __import__("io").BytesIO()), chunks())
    assert asgi.is_async and asgi["Cache-Control"] == "no-store" and pulled == []

    async def read() -> list[bytes]:
        return [part async for part in asgi.streaming_content]

    # Read as daphne reads it, on a loop of its own thread: in the whole suite the browser tests'
    # Playwright leaves an event loop running in this one (asyncio.run and async_to_sync refuse then).
    with ThreadPoolExecutor(1) as reader:
        assert reader.submit(asyncio.run, read()).result() == [b'{"a":', b"1}"] and pulled == [b'{"a":', b"1}"]


@pytest.mark.parametrize("accepts", [True, False], ids=["gzipped as it goes", "as it is for a client without gzip"])
def test_a_streamed_answer_asked_compressed_is_gzipped_for_clients_that_accept_it(accepts):
    parts = [b'{"a":[', b"1," * 5000, b"2]}"]
    response = responses.streamed_json(request(accepts), iter(parts), compress=True)
    body = b"".join(response.streaming_content)
    assert (gzip.decompress(body) if accepts else body) == b"".join(parts)
    assert (response.get("Content-Encoding") == "gzip") is accepts
    assert "Accept-Encoding" in response["Vary"]
    assert len(body) < len(b"".join(parts)) or not accepts


def test_a_streamed_answer_is_not_compressed_unless_asked():
    response = responses.streamed_json(request(True), iter([b"{}"]))
    assert b"".join(response.streaming_content) == b"{}" and not response.has_header("Content-Encoding")
