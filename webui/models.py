from __future__ import annotations

import json
import secrets
import zlib
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class Owned(models.Model):
    """Owned either by a Django user or, for anonymous visitors, by their session key."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE)
    owner_session_key = models.CharField(max_length=64, blank=True, default="", db_index=True)

    class Meta:
        abstract = True


class Scenario(Owned):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    # Demo scenarios (loaded by `load_demos`) have no owner; anyone may read, run and fork them.
    demo_slug = models.SlugField(max_length=100, null=True, blank=True, unique=True)
    text = models.TextField(blank=True, default="")  # the latest version's text, for listing/search
    forked_from = models.ForeignKey("ScenarioVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_demo(self) -> bool:
        return bool(self.demo_slug)


class ScenarioVersion(models.Model):
    """One per save, never changed afterwards: runs and share links point at exactly what was run."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    text = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["scenario", "number"]
        constraints = [models.UniqueConstraint(fields=["scenario", "number"], name="unique_version_number")]

    def __str__(self) -> str:
        return f"{self.scenario.name} v{self.number}"


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED_STATUSES = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class Run(Owned):
    """Owner fields say who started the run (the queued-runs limit counts per starter)."""

    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    cycle = models.PositiveIntegerField(default=0)  # cycles finished so far
    cycles = models.PositiveIntegerField(default=0)  # cycles the run will have (pending pods)
    event_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    claimed_by = models.CharField(max_length=200, blank=True, default="")
    heartbeat = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # The trace summary of a succeeded run, built once from its events (they never change afterwards).
    trace = models.JSONField(null=True, blank=True, editable=False)
    stored_bytes = models.BigIntegerField(default=0)  # compressed event payload bytes stored so far

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.version} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def stored_bytes_per_cycle(self) -> int | None:
        return self.stored_bytes // self.cycle if self.cycle else None


# zlib's default level: a 5000-node cycle (~940 KiB of JSON) becomes ~100 KiB in ~50 ms.
PAYLOAD_COMPRESSION_LEVEL = 6


def compress_payload(payload: Any) -> bytes:
    return zlib.compress(json.dumps(payload, separators=(",", ":")).encode(), PAYLOAD_COMPRESSION_LEVEL)


def decompress_payload(blob: bytes | memoryview) -> Any:
    return json.loads(zlib.decompress(blob))


class RunEvent(models.Model):
    """The run's event log; the source of truth the websocket tails (channel messages may be dropped)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()  # 0-based position in simulate()'s stream
    cycle = models.PositiveIntegerField()
    extension_point = models.CharField(max_length=32)
    plugin = models.CharField(max_length=100, null=True, blank=True)
    pod = models.CharField(max_length=400, blank=True, default="")
    # The payload's compact JSON, zlib-compressed: a 5000-node Filter step is ~10x smaller this way.
    # Read and write it through `payload`; `RunEvent(payload=...)` works too.
    payload_z = models.BinaryField()

    class Meta:
        ordering = ["run", "seq"]
        # A retried task re-inserts the same (run, seq) rows; the constraint makes that a no-op.
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="unique_run_event_seq")]
        indexes = [models.Index(fields=["run", "cycle"], name="run_event_cycle")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.extension_point} {self.plugin or ''}"

    @property
    def payload(self) -> Any:
        if getattr(self, "_payload_blob", None) is not self.payload_z:  # decode once per blob
            self._payload, self._payload_blob = decompress_payload(self.payload_z), self.payload_z
        return self._payload

    @payload.setter
    def payload(self, value: Any) -> None:
        self.payload_z = compress_payload(value)
        self._payload, self._payload_blob = value, self.payload_z


class RunCycle(models.Model):
    """One row per finished cycle, written with its CycleEnd event: the cycle index of a big run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="cycle_rows")
    cycle = models.PositiveIntegerField()
    pod = models.CharField(max_length=400, blank=True, default="")
    node_name = models.CharField(max_length=300, null=True, blank=True)
    first_seq = models.PositiveIntegerField()  # the cycle's CycleStart event
    end_seq = models.PositiveIntegerField()  # one past its CycleEnd event
    failed_scheduling_message = models.TextField(null=True, blank=True)

    class Meta:
        ordering = ["run", "cycle"]
        constraints = [models.UniqueConstraint(fields=["run", "cycle"], name="unique_run_cycle")]

    def __str__(self) -> str:
        return f"{self.run_id} cycle {self.cycle}: {self.pod} -> {self.node_name or '-'}"


def new_share_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits


class ShareLink(models.Model):
    token = models.CharField(max_length=64, unique=True, default=new_share_token)
    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="share_links")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.CASCADE, related_name="share_links")
    step = models.CharField(max_length=200, blank=True, default="")  # UI position, e.g. "cycle=2&point=Filter"
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"share {self.token[:8]}… of {self.version}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
