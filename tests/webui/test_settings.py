"""webui.settings: production configuration passes `check --deploy`; bad configuration stops start-up."""

import secrets
import subprocess

from tests.webui import support


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = support.clean_env(**env)
    return subprocess.run(
        [support.PYTHON, "manage.py", *args],
        cwd=support.REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def production(**extra: str) -> dict[str, str]:
    return {"SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "schedlab.example.com", **extra}


def test_it_passes_the_deployment_checklist_in_production():
    result = manage("check", "--deploy", "--fail-level", "DEBUG", **production())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


def test_it_refuses_production_without_allowed_hosts():
    result = manage("check", SECRET_KEY=secrets.token_urlsafe(50))
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr


def test_it_refuses_a_bad_database_url():
    result = manage("check", **production(DATABASE_URL="mysql://x/y"))
    assert result.returncode != 0
    assert "DATABASE_URL scheme 'mysql' is not supported" in result.stderr


def test_it_refuses_a_short_secret_key():
    result = manage("check", SECRET_KEY="short", ALLOWED_HOSTS="x.example.com")
    assert "SECRET_KEY must be at least 50 characters" in result.stderr


def test_it_sizes_the_postgres_pool_from_the_environment():
    code = "from django.conf import settings; d = settings.DATABASES['default']; print(d['OPTIONS']['pool'], d['CONN_MAX_AGE'])"
    env = production(
        DATABASE_URL="postgres://u@db.example.com/app", SCHEDLAB_DB_POOL_MAX_SIZE="7", SCHEDLAB_DB_POOL_TIMEOUT="2.5"
    )
    result = manage("shell", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "{'min_size': 0, 'max_size': 7, 'timeout': 2.5} 0"


def test_it_refuses_a_pool_whose_minimum_is_above_its_maximum():
    result = manage("check", **production(SCHEDLAB_DB_POOL_MIN_SIZE="5", SCHEDLAB_DB_POOL_MAX_SIZE="2"))
    assert result.returncode != 0
    assert "SCHEDLAB_DB_POOL_MIN_SIZE=5 is above SCHEDLAB_DB_POOL_MAX_SIZE=2" in result.stderr


def test_it_refuses_a_trusted_proxy_that_is_not_an_address():
    result = manage("check", **production(SCHEDLAB_TRUSTED_PROXIES="proxy.example.com"))
    assert result.returncode != 0
    assert "SCHEDLAB_TRUSTED_PROXIES: 'proxy.example.com' is not an IP address or network" in result.stderr


def test_it_refuses_single_user_mode_in_production():
    result = manage("check", **production(SCHEDLAB_SINGLE_USER="1"))
    assert result.returncode != 0
    assert "SCHEDLAB_SINGLE_USER shows everyone's scenarios to anyone" in result.stderr


EMAIL_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.EMAIL_TIMEOUT, s.DEFAULT_FROM_EMAIL)"
)


def test_reset_e_mail_goes_to_the_log_unless_an_smtp_server_is_named():
    console = manage("shell", "-c", EMAIL_SETTINGS, **production())
    assert console.returncode == 0, console.stderr
    assert console.stdout.strip().splitlines()[-1] == (
        "django.core.mail.backends.console.EmailBackend  587 True False 10 SchedLab <noreply@localhost>"
    )
    smtp = manage(
        "shell",
        "-c",
        EMAIL_SETTINGS,
        **production(
            EMAIL_HOST="smtp.example.com", EMAIL_PORT="465", EMAIL_USE_SSL="1", DEFAULT_FROM_EMAIL="x@example.com"
        ),
    )
    assert smtp.returncode == 0, smtp.stderr
    assert smtp.stdout.strip().splitlines()[-1] == (
        "django.core.mail.backends.smtp.EmailBackend smtp.example.com 465 False True 10 x@example.com"
    )


def test_it_refuses_both_smtp_tls_modes_at_once():
    result = manage("check", **production(EMAIL_HOST="smtp.example.com", EMAIL_USE_SSL="1", EMAIL_USE_TLS="1"))
    assert result.returncode != 0
    assert "EMAIL_USE_SSL and EMAIL_USE_TLS exclude each other" in result.stderr


def test_the_embedded_mode_takes_a_cluster_at_kubernetes_envelope_and_production_keeps_small_limits():
    """`make run` (one person, their machine) reads a 5,000-node dump as kubectl writes it, up to 1 GiB
    (docs/OPERATIONS.md, "Big clusters"); production's shared workers keep their small defaults, each a
    setting; a request body held in memory has room for a scenario of the limit escaped in JSON, up to
    128 MiB of it (a bigger scenario comes as a file, streamed to disk)."""
    names = (
        "SCHEDLAB_MAX_BYTES",
        "SCHEDLAB_MAX_NODES",
        "SCHEDLAB_MAX_PODS",
        "SCHEDLAB_MAX_PENDING_PODS",
        "SCHEDLAB_MAX_EVENTS_PER_RUN",
        "SCHEDLAB_MAX_STORED_BYTES_PER_RUN",
        "SCHEDLAB_MAX_UNPACKED_BYTES",
        "DATA_UPLOAD_MAX_MEMORY_SIZE",
    )
    code = f"from django.conf import settings; print([getattr(settings, n) for n in {names!r}])"
    mib = 1024 * 1024
    embedded = manage("shell", "-c", code)
    assert embedded.returncode == 0, embedded.stderr
    assert embedded.stdout.strip().splitlines()[-1] == str(
        [1024 * mib, 10_000, 150_000, 20_000, 2_000_000, 4096 * mib, 1024 * mib, 256 * mib + 65536]
    )
    served = manage("shell", "-c", code, **production())
    assert served.returncode == 0, served.stderr
    assert served.stdout.strip().splitlines()[-1] == str(
        [8 * mib, 10_000, 50_000, 2_000, 250_000, 512 * mib, 256 * mib, 16 * mib + 65536]
    )
    raised = manage("shell", "-c", code, **production(SCHEDLAB_MAX_BYTES=str(64 * mib)))
    assert raised.stdout.strip().splitlines()[-1].startswith(f"[{64 * mib}, ")
    assert raised.stdout.strip().splitlines()[-1].endswith(f", {128 * mib + 65536}]")
    body = manage("shell", "-c", code, **production(SCHEDLAB_MAX_BODY_BYTES=str(mib)))
    assert body.stdout.strip().splitlines()[-1].endswith(f", {mib}]")
