"""webui.services.access.client_address: what the per-address queue limit counts by."""

from ipaddress import ip_network

import pytest
from django.test import RequestFactory

from webui.services import access

PROXY = "10.0.0.5"


@pytest.mark.parametrize("remote, forwarded, trusted, expected", [
    pytest.param("203.0.113.7", "", [], "203.0.113.7", id="the peer address without a proxy"),
    pytest.param("203.0.113.7", "198.51.100.1", [], "203.0.113.7",
                 id="X-Forwarded-For is ignored when no proxy is trusted"),
    pytest.param(PROXY, "198.51.100.1", [PROXY], "198.51.100.1", id="a trusted proxy's forwarded client is believed"),
    pytest.param(PROXY, "1.2.3.4, 198.51.100.1", [PROXY], "198.51.100.1",
                 id="only the entry the trusted proxy appended counts, not what the client wrote before it"),
    pytest.param(PROXY, "198.51.100.1, 10.0.0.9", ["10.0.0.0/24"], "198.51.100.1",
                 id="a chain of trusted proxies is walked from the right"),
    pytest.param(PROXY, "10.0.0.8, 10.0.0.9", ["10.0.0.0/24"], "10.0.0.8", id="all trusted: the leftmost entry"),
    pytest.param(PROXY, "198.51.100.1, garbage", [PROXY], PROXY, id="a malformed entry ends the walk at the proxy"),
    pytest.param("203.0.113.7", "198.51.100.1", [PROXY], "203.0.113.7", id="an untrusted peer's header is ignored"),
    pytest.param("2001:db8:1:2:3:4:5:6", "", [], "2001:db8:1:2::/64", id="an IPv6 client counts by its /64"),
    pytest.param("::ffff:192.0.2.1", "", [], "192.0.2.1", id="an IPv4-mapped IPv6 peer counts as its IPv4 address"),
    pytest.param("not-an-address", "", [], "", id="an unknown peer is no address"),
])
def test_it_finds_the_client_address(settings, remote, forwarded, trusted, expected):
    settings.SCHEDLAB_TRUSTED_PROXIES = tuple(ip_network(t) for t in trusted)
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR=remote, **headers)
    assert access.client_address(request) == expected
