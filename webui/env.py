"""Settings read from the environment through small helpers that fail loudly on bad values.

A typo in production configuration must stop the process at start-up, not surface later as a
confusing default.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below the minimum {minimum}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={raw!r} is not one of {', '.join(choices)}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below the minimum {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


@dataclass(frozen=True)
class PoolBudget:
    """One process's PostgreSQL connections (psycopg_pool, through Django's OPTIONS["pool"])."""

    min_size: int  # kept open while idle
    max_size: int  # never more, whatever the number of threads asking
    timeout: float  # seconds a request waits for a free connection before it fails (503)

    def options(self) -> dict[str, float]:
        return {"min_size": self.min_size, "max_size": self.max_size, "timeout": self.timeout}


def env_networks(name: str) -> tuple[IPv4Network | IPv6Network, ...]:
    """Comma-separated addresses or CIDR networks ("10.0.0.1, 192.168.0.0/16, ::1")."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {item!r} is not an IP address or network") from None
    return tuple(networks)


def parse_database_url(url: str, pool: PoolBudget | None = None) -> dict[str, Any]:
    """postgres://user:pass@host:port/name?sslmode=require or sqlite:////abs/path -> DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme in ("postgres", "postgresql", "pgsql"):
        return _postgres_config(parts, pool)
    if parts.scheme == "sqlite":
        # sqlite:///relative/path or sqlite:////absolute/path, as dj-database-url spells them
        return sqlite_config(Path(unquote(parts.path[1:])))
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parts.scheme!r} is not supported (postgres:// or sqlite:///)")


def _postgres_config(parts: SplitResult, pool: PoolBudget | None) -> dict[str, Any]:
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database (postgres://user@host:5432/NAME)")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured("DATABASE_URL has an invalid port") from None
    options: dict[str, Any] = dict(parse_qsl(parts.query))
    if pool is not None:
        # A bounded pool per process: daphne runs every request in a thread of its own, so a
        # persistent connection per thread (CONN_MAX_AGE) grows with the load until PostgreSQL
        # refuses clients. Pooled connections go back at the end of each request (Django requires
        # CONN_MAX_AGE 0 with a pool) and health-checked ones come out.
        options["pool"] = pool.options()
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(port or ""),
        "OPTIONS": options,
        "CONN_MAX_AGE": 0 if pool is not None else 60,
        "CONN_HEALTH_CHECKS": True,
    }


def sqlite_config(path: Path) -> dict[str, Any]:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            # WAL lets the ASGI server read while a Celery worker writes events; IMMEDIATE
            # transactions take the write lock up front so concurrent writers wait instead of failing.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        },
    }
