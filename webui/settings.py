"""SchedLab settings: one file, everything that differs between deployments comes from the environment.

Two modes share this file and every code path:
- embedded (no SECRET_KEY in the environment): single user on localhost, SQLite in WAL mode,
  a filesystem broker (webui/brokerfs.py), in-memory channel layer, secret key kept in var/secret_key;
- production (SECRET_KEY set): DATABASE_URL, REDIS_URL, ALLOWED_HOSTS, HTTPS-only cookies and HSTS.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from webui.env import (
    PoolBudget,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_str,
    parse_database_url,
    sqlite_config,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# Embedded mode's files (SQLite, broker queue, secret key); production needs none of them.
VAR_DIR = Path(env_str("SCHEDLAB_VAR_DIR") or BASE_DIR / "var")

EMBEDDED = not os.environ.get("SECRET_KEY")
DEBUG = env_bool("DEBUG", False)
# Single-user mode (the embedded default): everyone who reaches the server is the one person on this
# machine, who sees and changes everything made on it without signing in (webui/services/access.py).
# Production keeps each person's scenarios theirs: there it is refused, it would show them to anyone.
SCHEDLAB_SINGLE_USER = env_bool("SCHEDLAB_SINGLE_USER", EMBEDDED)
if SCHEDLAB_SINGLE_USER and not EMBEDDED:
    raise ImproperlyConfigured(
        "SCHEDLAB_SINGLE_USER shows everyone's scenarios to anyone: only without SECRET_KEY (the embedded mode)"
    )


def _embedded_secret_key() -> str:
    """Generated once per checkout so sessions survive restarts of the embedded server."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY") or _embedded_secret_key()
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("SECRET_KEY must be at least 50 characters")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if EMBEDDED else [])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set (comma-separated) when SECRET_KEY is set")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",  # first, so `runserver` is the ASGI one
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "ninja",
    "webui",
]

MIDDLEWARE = [
    "webui.upload_handler.UploadStreamingMiddleware",  # before anything reads a POST /api/uploads body
    "django.middleware.security.SecurityMiddleware",
    "webui.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "webui.urls"
ASGI_APPLICATION = "webui.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webui.accounts.context",  # who is here, for the header and the ownership notices
            ],
        },
    },
]

# PostgreSQL connections per process (see docs/OPERATIONS.md, "Connection budget"): daphne holds at most
# MAX_SIZE; a Celery worker process uses one per pool process plus one for its recovery sweep.
# 0: a fresh pool opens nothing ahead of its first request (a worker pool process gets a new pool
# per task, and an eager connection plus the one its first query asks for would be two).
SCHEDLAB_DB_POOL_MIN_SIZE = env_int("SCHEDLAB_DB_POOL_MIN_SIZE", 0, minimum=0)
SCHEDLAB_DB_POOL_MAX_SIZE = env_int("SCHEDLAB_DB_POOL_MAX_SIZE", 10, minimum=1)
SCHEDLAB_DB_POOL_TIMEOUT = env_float("SCHEDLAB_DB_POOL_TIMEOUT", 10.0, minimum=0.1)
if SCHEDLAB_DB_POOL_MIN_SIZE > SCHEDLAB_DB_POOL_MAX_SIZE:
    raise ImproperlyConfigured(
        f"SCHEDLAB_DB_POOL_MIN_SIZE={SCHEDLAB_DB_POOL_MIN_SIZE} is above SCHEDLAB_DB_POOL_MAX_SIZE={SCHEDLAB_DB_POOL_MAX_SIZE}"
    )
_pool = PoolBudget(SCHEDLAB_DB_POOL_MIN_SIZE, SCHEDLAB_DB_POOL_MAX_SIZE, SCHEDLAB_DB_POOL_TIMEOUT)
_database_url = env_str("DATABASE_URL")
if not _database_url:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {
    "default": parse_database_url(_database_url, _pool) if _database_url else sqlite_config(VAR_DIR / "db.sqlite3")
}
# An overloaded or unreachable database answers 503 with this Retry-After (seconds), never a 500.
SCHEDLAB_RETRY_AFTER_SECONDS = env_int("SCHEDLAB_RETRY_AFTER_SECONDS", 5, minimum=1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT") or VAR_DIR / "static")
if EMBEDDED:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # Serves the plotly package's own plotly.min.js as vendor/plotly.min.js (4 MB we do not commit).
    "webui.staticfinders.PlotlyFinder",
]
# Serve straight from the finders: `make run` on a fresh machine needs no collectstatic step.
WHITENOISE_USE_FINDERS = True

# --- Redis / channel layer / Celery -------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, str | bool | int | float]  # set by the branch that picks the broker
CELERY_BROKER_URL: str | None  # None in embedded mode: the transport is named instead
if REDIS_URL:
    # redis-py 8 reads with a 5 s socket timeout by default, exactly channels_redis's 5 s BZPOPMIN
    # wait: a quiet channel then raises TimeoutError and kills the websocket. Read longer than that.
    _redis_host = {"address": REDIS_URL, "socket_timeout": env_float("REDIS_SOCKET_TIMEOUT", 30.0, minimum=6.0)}
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [_redis_host]}}
    }
    CELERY_BROKER_URL = REDIS_URL
    # Shared by every process: the sign-in limit counts an address's tries across all of them.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    # acks_late: a task killed mid-run is redelivered after this many seconds (the heartbeat sweep
    # usually re-queues it sooner).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1)}
else:
    # Embedded: no servers. Events still reach browsers across processes because the consumer
    # tails the database; the in-memory layer only carries messages within one process.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    _broker_dir = VAR_DIR / "broker"
    (_broker_dir / "queue").mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport, with messages written whole before a worker can take them
    # (webui/brokerfs.py: kombu's own lost about one message in a thousand). No URL: a URL's scheme
    # would name kombu's transport over this one.
    CELERY_BROKER_URL = None
    CELERY_BROKER_TRANSPORT = "webui.brokerfs:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "store_processed": False,
        # How often an idle worker looks for a message: kombu's 1 s put up to a second before every
        # run's start (issue 50: the first cycle within 5 s of the start); a directory listing is cheap.
        "polling_interval": 0.1,
    }

CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One run at a time per worker process: runs are long and CPU-bound.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# Long work goes to a queue of its own, so that it never holds the workers short runs wait for: an
# upgrade comparison runs a scenario to the end two times and more (issue 48), a capacity question
# on 5,000 nodes thousands of trials (an abandoned one held both workers and a 4-node run failed
# unclaimed: issue 51). Runs and everything else stay on Celery's default queue ("celery"). Start
# at least one worker with `-Q long` (`make run` starts one: manage.py runembedded).
SCHEDLAB_LONG_QUEUE = env_str("SCHEDLAB_LONG_QUEUE") or "long"
CELERY_TASK_ROUTES = {
    f"webui.tasks.{task}": {"queue": SCHEDLAB_LONG_QUEUE}
    for task in ("compare_upgrade", "advance_capacity", "run_capacity_trial", "read_upload", "check_version")
}

# --- SchedLab limits (every one can be raised or lowered per deployment) ------------------------
# Two sets of defaults. The embedded mode (`make run`: one person, their own machine) takes a
# cluster at Kubernetes' envelope of 5,000 nodes (docs/OPERATIONS.md, "Big clusters"): 5,000 nodes and
# 40,500 pods of a realistic cluster are 121 MB as YAML and 275 MB as `kubectl get -o json`; a 1 GB
# JSON List is read by the long-work worker at ~3 GB (README, "How fast": tools/app_bench.py).
# Production serves many people on shared workers: its defaults stay small, each a setting to raise.
MIB = 1024 * 1024
SCHEDLAB_MAX_BYTES = env_int("SCHEDLAB_MAX_BYTES", (1024 if EMBEDDED else 8) * MIB, minimum=1)
SCHEDLAB_MAX_NODES = env_int("SCHEDLAB_MAX_NODES", 10_000, minimum=1)
# Text two versions' diff compares (the pieces they share at either end are skipped: one object changed
# in a big dump compares a few hundred KB); difflib on more would hold a request for minutes.
SCHEDLAB_MAX_DIFF_BYTES = env_int("SCHEDLAB_MAX_DIFF_BYTES", 16 * MIB, minimum=1)
SCHEDLAB_MAX_PODS = env_int("SCHEDLAB_MAX_PODS", 150_000 if EMBEDDED else 50_000, minimum=1)
SCHEDLAB_MAX_PENDING_PODS = env_int("SCHEDLAB_MAX_PENDING_PODS", 20_000 if EMBEDDED else 2_000, minimum=1)
# An uploaded archive (support bundle, must-gather...) is untrusted: what it may inflate to, skipped
# members (logs) included, and how many entries it may hold; the YAML/JSON read from it is bounded
# by SCHEDLAB_MAX_BYTES like any scenario text.
SCHEDLAB_MAX_UNPACKED_BYTES = env_int("SCHEDLAB_MAX_UNPACKED_BYTES", (1024 if EMBEDDED else 256) * MIB, minimum=1)
SCHEDLAB_MAX_ARCHIVE_FILES = env_int("SCHEDLAB_MAX_ARCHIVE_FILES", 20_000, minimum=1)
# The editor's raw text is for what a person types (the changes, the configuration, a small
# cluster): a version over this size is edited object by object (GET /api/scenarios/{id} says
# `mode: "objects"` and sends no text; webui/services/documents.py), each edit a new version.
SCHEDLAB_EDITOR_MAX_BYTES = env_int("SCHEDLAB_EDITOR_MAX_BYTES", 4 * MIB, minimum=1)
# About 45 events per cycle with the default profile: the pending pods allowed stay well inside this.
SCHEDLAB_MAX_EVENTS_PER_RUN = env_int("SCHEDLAB_MAX_EVENTS_PER_RUN", 2_000_000 if EMBEDDED else 250_000, minimum=1)
# Compressed payload bytes one run may store (a 5000-node cycle is ~100 KiB: ~5000 such cycles).
SCHEDLAB_MAX_STORED_BYTES_PER_RUN = env_int(
    "SCHEDLAB_MAX_STORED_BYTES_PER_RUN", (4096 if EMBEDDED else 512) * MIB, minimum=1
)
# Loaded scenarios kept on disk for the app's other processes (webui/services/loaded_cache.py): the
# worker that runs a big dump reads what the web process read to check it (0.6 s instead of 3.5 s
# at 5,000 nodes), so its first cycle comes sooner. Embedded only by default: production's workers
# may be on other machines (set a directory all of them share, or leave it empty: off).
SCHEDLAB_LOADED_CACHE_DIR = env_str("SCHEDLAB_LOADED_CACHE_DIR") or (str(VAR_DIR / "loaded") if EMBEDDED else "")
SCHEDLAB_LOADED_CACHE_MIN_BYTES = env_int("SCHEDLAB_LOADED_CACHE_MIN_BYTES", MIB, minimum=0)  # smaller: read at once
SCHEDLAB_LOADED_CACHE_FILES = env_int("SCHEDLAB_LOADED_CACHE_FILES", 8, minimum=1)  # ~8 MB each at 5,000 nodes
# Where a run's engine runs: "auto" (its own forked process for a run of 100,000 nodes × pending
# pods or more, so scheduling and storing use two cores), "child" (always) or "inline" (never).
SCHEDLAB_ENGINE_PROCESS = env_choice("SCHEDLAB_ENGINE_PROCESS", "auto", ("auto", "child", "inline"))
# Benchmarks only: stop a run (as succeeded) after its first N cycles; 0 runs every cycle.
SCHEDLAB_RUN_FIRST_CYCLES = env_int("SCHEDLAB_RUN_FIRST_CYCLES", 0, minimum=0)
# Runs queued or running at once: per owner (user or anonymous session), per client address (an
# IPv6 client counts by its /64), and on the whole server. Over one: 429 naming the limit.
SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER = env_int("SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER", 5, minimum=1)
SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS = env_int("SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS", 10, minimum=1)
SCHEDLAB_MAX_QUEUED_RUNS = env_int("SCHEDLAB_MAX_QUEUED_RUNS", 100, minimum=1)
# Addresses (or CIDR networks) of reverse proxies whose X-Forwarded-For is believed; empty: none is.
SCHEDLAB_TRUSTED_PROXIES = env_networks("SCHEDLAB_TRUSTED_PROXIES")
SCHEDLAB_MAX_RUN_ATTEMPTS = env_int("SCHEDLAB_MAX_RUN_ATTEMPTS", 3, minimum=1)
# A running run whose heartbeat is older than this is considered abandoned by a dead worker.
SCHEDLAB_HEARTBEAT_STALE_SECONDS = env_float("SCHEDLAB_HEARTBEAT_STALE_SECONDS", 60.0, minimum=1.0)
# A queued run still unclaimed this long after it was put on the task queue, while the workers have
# gone past it (claimed a run queued after it, or sit idle), lost its task message: it is queued again.
SCHEDLAB_QUEUED_STALE_SECONDS = env_float("SCHEDLAB_QUEUED_STALE_SECONDS", 60.0, minimum=1.0)
# How often each worker looks for abandoned running runs and lost queued ones.
SCHEDLAB_RECOVERY_SWEEP_SECONDS = env_float("SCHEDLAB_RECOVERY_SWEEP_SECONDS", 15.0, minimum=0.1)
SCHEDLAB_EVENT_BATCH_SIZE = env_int("SCHEDLAB_EVENT_BATCH_SIZE", 500, minimum=1)
SCHEDLAB_EVENT_FLUSH_SECONDS = env_float("SCHEDLAB_EVENT_FLUSH_SECONDS", 0.25, minimum=0.0)
# Trials a round of a capacity question may hold: the Celery worker slots that run them at once.
# 0: ask the workers (their pools' sizes added up), or 2 (the embedded worker) when they cannot be asked.
SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = env_int("SCHEDLAB_CAPACITY_TRIALS_PER_ROUND", 0, minimum=0)
# A queued or running capacity question with no progress (no trial stored, no round sent) for this
# long lost a task message: the recovery sweep sends its missing trials (or its advance) again. Longer
# than the slowest trial (a 5000-node trial takes seconds; a queue of other work can add minutes).
SCHEDLAB_CAPACITY_STALE_SECONDS = env_float("SCHEDLAB_CAPACITY_STALE_SECONDS", 300.0, minimum=1.0)
# After recovery sent a question's tasks again this many times it is failed with the reason.
SCHEDLAB_CAPACITY_MAX_REDISPATCHES = env_int("SCHEDLAB_CAPACITY_MAX_REDISPATCHES", 3, minimum=0)
# Upgrade comparisons (issue 48) queued or running at once per owner, a fleet check's counted in (429
# over it), and the scenarios one fleet check may hold (400 over it).
SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER = env_int("SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER", 50, minimum=1)
SCHEDLAB_MAX_FLEET_SCENARIOS = env_int("SCHEDLAB_MAX_FLEET_SCENARIOS", 50, minimum=1)
# A request body Django holds in memory (a scenario's text in JSON, escaping can double it): a big
# scenario comes as a file instead (POST /api/uploads/file streams it to disk; the importer sends any
# file of SCHEDLAB_BIG_UPLOAD_BYTES or more so), so a body stays far below a 1 GiB scenario.
SCHEDLAB_MAX_BODY_BYTES = env_int("SCHEDLAB_MAX_BODY_BYTES", min(SCHEDLAB_MAX_BYTES, 128 * MIB) * 2 + 65536, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = SCHEDLAB_MAX_BODY_BYTES
# A request body (ASGI: Django spools it before the view) and an uploaded file are kept in memory up
# to this size, on disk beyond it: a 100 MB upload is never held whole in the web process (issue 50).
FILE_UPLOAD_MAX_MEMORY_SIZE = env_int("SCHEDLAB_UPLOAD_MEMORY_BYTES", 2 * MIB + MIB // 2, minimum=0)
# Big uploads (POST /api/uploads) are streamed into this directory and kept there as uploaded
# (webui/upload_handler.py, services/uploads.py); in production, a directory the web processes and
# the long-work workers share.
SCHEDLAB_UPLOAD_DIR = env_str("SCHEDLAB_UPLOAD_DIR") or str(VAR_DIR / "uploads")
# The importer sends one file of this size or more as a big upload (read by a long-work worker, its
# progress shown); a smaller one, or several files, as an import (saved at once, checked by the web
# process: a second or two under this size). Production's SCHEDLAB_MAX_BYTES is this size.
SCHEDLAB_BIG_UPLOAD_BYTES = env_int("SCHEDLAB_BIG_UPLOAD_BYTES", 8 * MIB, minimum=0)
# Sign-in tries (failed sign-ins and every sign-up) one client address may make per window; over it:
# 429 naming the limit (webui/services/accounts.py). Counted in Django's cache (Redis in production).
SCHEDLAB_MAX_SIGN_IN_TRIES = env_int("SCHEDLAB_MAX_SIGN_IN_TRIES", 10, minimum=1)
SCHEDLAB_SIGN_IN_WINDOW_SECONDS = env_int("SCHEDLAB_SIGN_IN_WINDOW_SECONDS", 900, minimum=1)
LOGIN_URL = "sign-in"
LOGIN_REDIRECT_URL = "home"

# --- E-mail: the password-reset links (webui/password_reset.py) -----------------------------------
# Written to the server's log (Django's console backend) unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = env_str("EMAIL_HOST") or ""
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # TLS from the first byte (port 465)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)  # STARTTLS (port 587)
if EMAIL_USE_SSL and EMAIL_USE_TLS:
    raise ImproperlyConfigured("EMAIL_USE_SSL and EMAIL_USE_TLS exclude each other: set one")
# A slow mail server must not hold a web request for long: the reset page then says the link was sent
# and the failure is logged (Django's PasswordResetForm).
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL") or "SchedLab <noreply@localhost>"

# --- Security headers ---------------------------------------------------------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# The browser code reads the csrftoken cookie to send X-CSRFToken.
CSRF_COOKIE_HTTPONLY = False
HTTPS = env_bool("HTTPS", not EMBEDDED)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
