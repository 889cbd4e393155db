"""webui.env: settings helpers fail loudly on bad values."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from webui import env


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "postgres://postgres@127.0.0.1:5432/test",
            ("django.db.backends.postgresql", "test", "postgres", "", "127.0.0.1", "5432"),
        ),
        (
            "postgresql://u:p%40ss@db.example.com/app?sslmode=require",
            ("django.db.backends.postgresql", "app", "u", "p@ss", "db.example.com", ""),
        ),
    ],
    ids=["it parses a local url", "it decodes passwords and keeps options"],
)
def test_it_parses_postgres_urls(url, expected):
    config = env.parse_database_url(url)
    assert (
        config["ENGINE"],
        config["NAME"],
        config["USER"],
        config["PASSWORD"],
        config["HOST"],
        config["PORT"],
    ) == expected


def test_it_keeps_query_options():
    assert env.parse_database_url("postgres://h/db?sslmode=require")["OPTIONS"] == {"sslmode": "require"}


def test_it_parses_a_sqlite_url():
    assert env.parse_database_url("sqlite:////tmp/x.sqlite3")["NAME"] == "/tmp/x.sqlite3"


@pytest.mark.parametrize(
    "url",
    ["mysql://h/db", "postgres://h", "postgres://h:notaport/db", "nonsense"],
    ids=[
        "it rejects an unknown scheme",
        "it rejects a missing database",
        "it rejects a bad port",
        "it rejects a non-url",
    ],
)
def test_it_rejects_bad_database_urls(url):
    with pytest.raises(ImproperlyConfigured):
        env.parse_database_url(url)


def test_it_reads_booleans_and_rejects_others(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env.env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG='maybe' is not a boolean"):
        env.env_bool("FLAG", False)


def test_it_reads_one_of_its_choices_and_rejects_others(monkeypatch):
    monkeypatch.delenv("WHERE", raising=False)
    assert env.env_choice("WHERE", "auto", ("auto", "child")) == "auto"
    monkeypatch.setenv("WHERE", " Child ")
    assert env.env_choice("WHERE", "auto", ("auto", "child")) == "child"
    monkeypatch.setenv("WHERE", "elsewhere")
    with pytest.raises(ImproperlyConfigured, match="WHERE='elsewhere' is not one of auto, child"):
        env.env_choice("WHERE", "auto", ("auto", "child"))


def test_it_reads_integers_with_a_minimum(monkeypatch):
    monkeypatch.setenv("N", "12")
    assert env.env_int("N", 1) == 12
    monkeypatch.setenv("N", "12x")
    with pytest.raises(ImproperlyConfigured, match="not an integer"):
        env.env_int("N", 1)
    monkeypatch.setenv("N", "0")
    with pytest.raises(ImproperlyConfigured, match="below the minimum"):
        env.env_int("N", 1, minimum=1)


def test_it_splits_lists(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example.com, b.example.com ,")
    assert env.env_list("HOSTS", []) == ["a.example.com", "b.example.com"]


def test_it_gives_postgres_a_bounded_pool_without_persistent_connections():
    config = env.parse_database_url(
        "postgres://h/db?sslmode=require", env.PoolBudget(min_size=1, max_size=8, timeout=5.0)
    )
    assert config["OPTIONS"] == {"sslmode": "require", "pool": {"min_size": 1, "max_size": 8, "timeout": 5.0}}
    assert config["CONN_MAX_AGE"] == 0  # Django refuses a pool with persistent connections


def test_it_gives_sqlite_no_pool():
    assert "pool" not in env.parse_database_url("sqlite:////tmp/x.sqlite3", env.PoolBudget(1, 8, 5.0))["OPTIONS"]


def test_it_reads_trusted_proxy_networks_and_rejects_garbage(monkeypatch):
    monkeypatch.setenv("PROXIES", "10.0.0.1, 192.168.0.0/16,::1")
    assert [str(n) for n in env.env_networks("PROXIES")] == ["10.0.0.1/32", "192.168.0.0/16", "::1/128"]
    monkeypatch.setenv("PROXIES", "10.0.0.1,proxy.example.com")
    with pytest.raises(ImproperlyConfigured, match="PROXIES: 'proxy.example.com' is not an IP address or network"):
        env.env_networks("PROXIES")
