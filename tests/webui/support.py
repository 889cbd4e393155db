"""Helpers for tests that talk to real processes: an HTTP client with session + CSRF, a minimal
websocket client, scenario builders, and process management."""

from __future__ import annotations

import base64
import http.cookiejar
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# --- scenarios ----------------------------------------------------------------------------------


def node_yaml(name: str, zone: str) -> str:
    return f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, zone: {zone}}}
status:
  capacity: {{cpu: "8", memory: 16Gi, pods: "110"}}
"""


def pod_yaml(name: str, node: str | None = None) -> str:
    node_line = f"  nodeName: {node}\n" if node else ""
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels: {{app: web}}
spec:
{node_line}  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: {{matchLabels: {{app: web}}}}
  containers:
  - name: c
    image: nginx
    resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}
"""


def scenario_text(nodes: int, pending: int, running: int = 0) -> str:
    docs = [node_yaml(f"node-{i}", f"zone-{i % 3}") for i in range(nodes)]
    docs += [pod_yaml(f"running-{i}", f"node-{i % nodes}") for i in range(running)]
    docs += [pod_yaml(f"pending-{i}") for i in range(pending)]
    return "---\n".join(docs)


def deployment_text(nodes: int, replicas: int) -> str:
    """``nodes`` nodes and a Deployment of ``replicas`` 100m pods its controllers create: a "which
    nodes can go?" question on it drains each node in a trial of its own (long work)."""
    documents = [node_yaml(f"node-{i}", f"zone-{i % 3}") for i in range(nodes)]
    documents.append(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n"
        f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec:\n"
        "      containers:\n      - {name: web, image: nginx, resources: {requests: {cpu: 100m}}}\n"
    )
    return "---\n".join(documents)


# --- dumps as uploaded: archives built from a fixture directory -----------------------------------

CLUSTER_INFO_DUMP = REPO / "tests" / "fixtures" / "webui_import" / "cluster-info"


def dump_files(root: Path = CLUSTER_INFO_DUMP) -> list[tuple[str, bytes]]:
    """Every file under root (README.md excepted) as (path relative to root's parent, bytes), sorted."""
    return [
        (str(path.relative_to(root.parent)), path.read_bytes())
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != "README.md"
    ]


def dump_as_stream(root: Path = CLUSTER_INFO_DUMP) -> str:
    """The dump's nodes and pods as one YAML stream, written by hand from its raw lists (each item
    given the list's apiVersion and kind): the scenario its import should amount to."""
    import yaml

    documents = []
    for name in ("nodes.json", "kube-system/pods.json", "default/pods.json"):
        listed = json.loads((root / name).read_text())
        kind = listed["kind"].removesuffix("List")
        documents += [{"apiVersion": listed["apiVersion"], "kind": kind, **item} for item in listed["items"]]
    return yaml.safe_dump_all(documents, sort_keys=False)


def dump_archive(kind: str = "tar.gz", root: Path = CLUSTER_INFO_DUMP, extra: list[tuple[str, bytes]] = ()) -> bytes:
    """The dump directory as an archive (kind: tar, tar.gz or zip), as a user would upload it."""
    import io
    import tarfile
    import zipfile

    buffer = io.BytesIO()
    members = [*dump_files(root), *extra]
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(name, data)
        return buffer.getvalue()
    with tarfile.open(fileobj=buffer, mode="w:gz" if kind == "tar.gz" else "w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


# --- HTTP ---------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    body: object


class HttpClient:
    """A browser-like client: keeps cookies, sends X-CSRFToken on writes."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = ""

    def start_session(self) -> None:
        self.csrf = self.request("GET", "/api/session").body["csrfToken"]

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def request(self, method: str, path: str, body: object | None = None, timeout: float = 30) -> Response:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.csrf:
            req.add_header("X-CSRFToken", self.csrf)
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                return Response(resp.status, _decode(resp.read()))
        except urllib.error.HTTPError as err:
            return Response(err.code, _decode(err.read()))

    def post_bytes(self, path: str, data: bytes, content_type: str = "application/octet-stream") -> Response:
        """A raw body, as the importer sends a big file (POST /api/uploads/file)."""
        req = urllib.request.Request(self.base + path, data=data, method="POST")
        req.add_header("Content-Type", content_type)
        req.add_header("X-CSRFToken", self.csrf)
        try:
            with self.opener.open(req, timeout=60) as resp:
                return Response(resp.status, _decode(resp.read()))
        except urllib.error.HTTPError as err:
            return Response(err.code, _decode(err.read()))


def _decode(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")


# --- websocket ------------------------------------------------------------------------------------


class WebSocket:
    """Just enough RFC 6455 for tests: handshake, unmasked text frames from the server, close."""

    def __init__(self, host: str, port: int, path: str, cookie: str = "", timeout: float = 30) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        headers = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            f"Origin: http://{host}:{port}",
        ]
        if cookie:
            headers.append(f"Cookie: {cookie}")
        self.sock.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
        self.buffer = b""
        status = self._read_until(b"\r\n\r\n").split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise ConnectionError(f"websocket handshake refused: {status!r}")

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed")
        self.buffer += chunk

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def receive(self) -> dict | None:
        """The next JSON message, or None when the server closed the socket."""
        text = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode == 8:
                return None
            if opcode in (1, 0):
                text += payload
                if first & 0x80:
                    return json.loads(text)

    def close(self) -> None:
        self.sock.close()


def receive_all(ws: WebSocket) -> tuple[list[dict], dict | None]:
    """Everything until the server closes; end is None when it closed without an "end" message."""
    events, end = [], None
    try:
        while (message := ws.receive()) is not None:
            if message["type"] == "events":
                events.extend(message["events"])
            elif message["type"] == "end":
                end = message
    except ConnectionError:
        pass
    finally:
        ws.close()
    return events, end


# --- processes ------------------------------------------------------------------------------------


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    handle = open(log, "ab")  # noqa: SIM115 - the child writes to it for its whole life
    # Own process group: a Celery worker forks pool children, and SIGKILL must reach all of them.
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, sig)
        process.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=5)


def clean_env(**overrides: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    env.update(overrides)
    return env


# --- a production-like stack: PostgreSQL + Redis + daphne + Celery workers ------------------------

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"
REDIS_TEST_URL = "redis://127.0.0.1:6379/9"


def reset_postgres(dbname: str = "test") -> None:
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone():
            conn.execute(f'CREATE DATABASE "{dbname}"')
    with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={dbname}", autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def postgres_rows(sql: str, *params) -> list[tuple]:
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test") as conn:
        return conn.execute(sql, params).fetchall()


def postgres_execute(sql: str, *params) -> None:
    """One statement as the superuser, committed at once (DDL, triggers, role changes)."""
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        conn.execute(sql, params)


def flush_redis() -> None:
    import redis

    redis.Redis.from_url(REDIS_TEST_URL).flushdb()


class Stack:
    """daphne + N Celery workers against PostgreSQL and Redis, each its own process group."""

    def __init__(self, tmp: Path, **env: str) -> None:
        self.tmp = tmp
        self.port = free_port()
        defaults = {"DATABASE_URL": POSTGRES_URL, "REDIS_URL": REDIS_TEST_URL, "SCHEDLAB_VAR_DIR": str(tmp / "var")}
        self.env = clean_env(**{**defaults, **env})
        self.workers: list[subprocess.Popen] = []
        self.server: subprocess.Popen | None = None

    def start(self, before_migrate=None) -> "Stack":
        reset_postgres()
        if before_migrate is not None:
            before_migrate()
        flush_redis()
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=self.env, check=True, timeout=180
        )
        args = [PYTHON, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "webui.asgi:application"]
        self.server = spawn(args, self.env, self.tmp / "daphne.log")
        wait_until(lambda: reachable("127.0.0.1", self.port), 60, what="daphne to listen")
        return self

    def start_worker(self, name: str, concurrency: int = 1, queues: str = "celery,long") -> subprocess.Popen:
        """A worker of the stack; by default one that consumes both queues (runs, and the long work:
        capacity questions and upgrade comparisons), as the tests' one worker stands in for both."""
        args = [
            PYTHON,
            "-m",
            "celery",
            "-A",
            "webui",
            "worker",
            "-n",
            f"{name}@%h",
            f"--concurrency={concurrency}",
            "-Q",
            queues,
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
        ]
        worker = spawn(args, self.env, self.tmp / f"{name}.log")
        self.workers.append(worker)
        return worker

    def wait_for_worker(self, name: str, worker: subprocess.Popen, timeout: float = 180) -> None:
        """Until the worker says it consumes its queue ("celery@… ready."): a test that counts what
        the worker does must not start the count while the worker is still importing."""
        log = self.tmp / f"{name}.log"

        def ready() -> bool:
            if worker.poll() is not None:
                raise AssertionError(f"worker {name} exited early:\n{log.read_text(errors='replace')[-3000:]}")
            return (
                log.exists()
                and re.search(rf"{re.escape(name)}@\S+ ready\.", log.read_text(errors="replace")) is not None
            )

        wait_until(ready, timeout, 0.2, f"worker {name} to be ready")

    def client(self) -> HttpClient:
        client = HttpClient(f"http://127.0.0.1:{self.port}")
        client.start_session()
        return client

    def websocket(self, client: HttpClient, path: str) -> WebSocket:
        return WebSocket("127.0.0.1", self.port, path, cookie=client.cookie_header())

    def stop(self) -> None:
        for process in [*self.workers, self.server]:
            if process is not None:
                stop(process)

    def logs(self) -> str:
        return "\n".join(
            f"== {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.tmp.glob("*.log"))
        )


def wait_for_run(client: HttpClient, run_id: int, timeout: float) -> dict:
    finished = ("succeeded", "failed", "cancelled")
    return wait_until(
        lambda: (r := client.request("GET", f"/api/runs/{run_id}").body)["status"] in finished and r,
        timeout,
        0.3,
        f"run {run_id}",
    )


STORED_SEQS = """
SELECT coalesce(sum(end_seq - first_seq), 0),
       coalesce(sum(CASE WHEN first_seq = coalesce(previous_end, 0) THEN end_seq - first_seq ELSE 0 END), 0),
       coalesce(max(end_seq), 0)
FROM (SELECT first_seq, end_seq, lag(end_seq) OVER (ORDER BY first_seq) AS previous_end
      FROM webui_runsegment WHERE run_id = %s) AS segments
"""


def stored_seqs_ok(run_id: int) -> tuple[int, int, int, int]:
    """(events stored, of them in segments that go on exactly where the previous one ended — so no
    seq is stored twice or skipped —, max seq + 1, Run.event_count) from the database itself."""
    [(count, distinct, top)] = postgres_rows(STORED_SEQS, run_id)
    [(event_count,)] = postgres_rows("SELECT event_count FROM webui_run WHERE id = %s", run_id)
    return count, distinct, top, event_count
