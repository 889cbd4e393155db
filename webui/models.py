from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from webui import textstore


class Owned(models.Model):
    """Owned either by a Django user or, for anonymous visitors, by their session key."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE)
    owner_session_key = models.CharField(max_length=64, blank=True, default="", db_index=True)

    class Meta:
        abstract = True


# The anonymous owners the measurement commands (manage.py measure_run, measure_capacity) make their
# scenarios, runs and questions under. No browser's session can have these keys (Django's are 32
# lowercase letters and digits), and single-user mode, where everything with an owner is listed,
# leaves them out (services/access.py): a measurement is not the person's work.
MEASURE_RUN_OWNER = "measure_run"
MEASURE_CAPACITY_OWNER = "measure_capacity"
MEASUREMENT_OWNERS = (MEASURE_RUN_OWNER, MEASURE_CAPACITY_OWNER)


class Scenario(Owned):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    # Demo scenarios (loaded by `load_demos`) have no owner; anyone may read, run and fork them.
    demo_slug = models.SlugField(max_length=100, null=True, blank=True, unique=True)
    forked_from = models.ForeignKey(
        "ScenarioVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_demo(self) -> bool:
        return bool(self.demo_slug)


class TextPiece(models.Model):
    """A piece of one or more versions' texts (webui.textstore cuts them), stored once, compressed."""

    digest = models.CharField(max_length=64, primary_key=True)  # sha256 of the piece's UTF-8 bytes
    size = models.PositiveIntegerField()  # characters
    data = models.BinaryField()  # zlib

    def __str__(self) -> str:
        return f"{self.digest[:12]} ({self.size} characters)"


class ScenarioVersion(models.Model):
    """One per save, never changed afterwards: runs and share links point at exactly what was run.

    Its text is kept as pieces shared with every version that has the same ones (VersionPiece): a
    version that changes a few objects of a big dump adds a piece or two, not a copy of the dump.
    ``text`` reads it (once per object) and is set before the first save, as a field would be."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    length = models.PositiveBigIntegerField(default=0)  # the text's characters
    digest = models.CharField(max_length=64, blank=True, default="")  # sha256 of the whole text
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["scenario", "number"]
        constraints = [models.UniqueConstraint(fields=["scenario", "number"], name="unique_version_number")]

    def __str__(self) -> str:
        return f"{self.scenario.name} v{self.number}"

    @classmethod
    def saved(cls, scenario: Scenario, number: int, text: str) -> ScenarioVersion:
        """A new version of ``scenario`` holding ``text``, saved."""
        version = cls(scenario=scenario, number=number)
        version.text = text
        version.save(force_insert=True)
        return version

    @property
    def text(self) -> str:
        held: str | None = self.__dict__.get("_text")
        if held is None:
            held = "".join(self.text_pieces())
            self.__dict__["_text"] = held
        return held

    @text.setter
    def text(self, value: str) -> None:
        if not self._state.adding:
            raise ValueError(f"version {self.number} of scenario {self.scenario_id} is saved: a version never changes")
        self.__dict__["_text"] = value

    def piece_digests(self) -> list[tuple[str, int]]:
        """Each of the text's pieces, in order: its digest and its size (characters)."""
        rows = VersionPiece.objects.filter(version=self).order_by("index").values_list("piece_id", "piece__size")
        return list(rows)

    def text_pieces(self, first: int = 0, end: int | None = None) -> Iterator[str]:
        """The text's pieces ``first`` to ``end`` (default: all), read one at a time: an export or a diff
        of a 1 GB dump holds one piece, not the text."""
        if self._state.adding:  # not saved yet: the text is all there is
            yield self.__dict__.get("_text", "")
            return
        for data in self._piece_data(first, end):
            yield textstore.decompress(data)

    def text_between(self, start: int, end: int) -> str:
        """``text[start:end]``, reading only the pieces that hold it (one object of a 1 GB dump
        without the rest: webui/services/documents.py)."""
        held: str | None = self.__dict__.get("_text")
        if held is not None:
            return held[start:end]
        wanted, at = [], 0
        for digest, size in self.piece_digests():
            if at < end and at + size > start:
                wanted.append((at, digest))
            at += size
            if at >= end:
                break
        if not wanted:
            return ""
        data = dict(TextPiece.objects.filter(digest__in=[d for _, d in wanted]).values_list("digest", "data"))
        joined = "".join(textstore.decompress(bytes(data[digest])) for _, digest in wanted)
        first = wanted[0][0]
        return joined[start - first : end - first]

    def _piece_data(self, first: int = 0, end: int | None = None) -> Iterator[bytes]:
        listed = VersionPiece.objects.filter(version=self, index__gte=first)
        if end is not None:
            listed = listed.filter(index__lt=end)
        rows = listed.order_by("index").values_list("piece__data", flat=True)
        for data in rows.iterator(chunk_size=16):
            yield bytes(data)

    def save(self, *args: Any, **kwargs: Any) -> None:
        text: str | None = self.__dict__.get("_text", "") if self._state.adding else None
        if text is not None:
            self.length, self.digest = len(text), textstore.digest_of(text)
        with transaction.atomic():
            super().save(*args, **kwargs)
            if text is not None:
                _store_pieces(self, text)


class VersionPiece(models.Model):
    """The ``index``-th piece of a version's text."""

    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="pieces")
    index = models.PositiveIntegerField()
    piece = models.ForeignKey(TextPiece, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "index"], name="unique_version_piece")]


STORE_BATCH = 200  # pieces looked up or written per query (~200 KB each at most 4 MB)


def _store_pieces(version: ScenarioVersion, text: str) -> None:
    """The text's pieces stored (those no version has yet, compressed) and listed for the version."""
    batch: list[textstore.Piece] = []
    index = 0
    for piece in textstore.pieces(text):
        batch.append(piece)
        if len(batch) == STORE_BATCH:
            index = _store_batch(version, batch, index)
            batch = []
    _store_batch(version, batch, index)


def _store_batch(version: ScenarioVersion, batch: list[textstore.Piece], index: int) -> int:
    if not batch:
        return index
    digests = {piece.digest for piece in batch}
    have = set(TextPiece.objects.filter(digest__in=digests).values_list("digest", flat=True))
    new = {piece.digest: piece for piece in batch if piece.digest not in have}
    TextPiece.objects.bulk_create(
        [TextPiece(digest=d, size=len(p.text), data=textstore.compress(p)) for d, p in new.items()],
        ignore_conflicts=True,  # the same piece saved by another version at the same time
    )
    VersionPiece.objects.bulk_create(
        [VersionPiece(version=version, index=index + i, piece_id=piece.digest) for i, piece in enumerate(batch)]
    )
    return index + len(batch)


def pieces_of(versions: models.QuerySet[ScenarioVersion]) -> set[str]:
    """The digests of the pieces these versions list: what to look at once they are deleted."""
    return set(VersionPiece.objects.filter(version__in=versions).values_list("piece_id", flat=True))


def forget_unused_pieces(digests: set[str]) -> int:
    """Those of these pieces that no version lists any more (their scenarios deleted), removed; how many.
    Only the deleted versions' pieces are looked at: no scan of every piece a deletion."""
    count = 0
    listed = list(digests)
    for start in range(0, len(listed), STORE_BATCH):
        batch = listed[start : start + STORE_BATCH]
        used = VersionPiece.objects.filter(piece_id__in=batch).values("piece_id")
        removed, _ = TextPiece.objects.filter(digest__in=batch).exclude(digest__in=used).delete()
        count += removed
    return count


class TextCheck(models.Model):
    """The engine's whole check of a text (by its digest) made by a long-work worker, for a version
    edited object by object (services/documents.py): the web process never runs it. ``engine`` names
    the limits and the engine's code it was made with; ``result`` null: asked, not done yet."""

    digest = models.CharField(max_length=64)
    engine = models.CharField(max_length=64)
    result = models.JSONField(null=True, blank=True)
    asked = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["digest", "engine"], name="unique_text_check")]

    def __str__(self) -> str:
        return f"check of {self.digest[:12]}"


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED_STATUSES = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)


class RunMode(models.TextChoices):
    TIMELINE = "timeline"  # the scheduler run to the end: queue, retries, preemption carried out
    SINGLE = "single"  # one cycle per pending pod in queue order (the trace's single pass)


class Run(Owned):
    """Owner fields and client_address say who started the run (the queued-runs limits count them)."""

    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    mode = models.CharField(max_length=16, choices=RunMode.choices, default=RunMode.TIMELINE)
    cycle = models.PositiveIntegerField(default=0)  # cycles (attempts) finished so far
    # Cycles the run will have: the pending pods (a timeline may retry them, so at least that many).
    cycles = models.PositiveIntegerField(default=0)
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
    stored_bytes = models.BigIntegerField(default=0)  # bytes of the event segments stored so far
    # The starter's address as the per-address limit counts it (IPv4, or an IPv6 /64); "" if unknown.
    client_address = models.CharField(max_length=64, blank=True, default="", db_index=True)
    # When its task message was last sent, and how many were sent: recovery re-sends a lost one and
    # fails the run once SCHEDLAB_MAX_RUN_ATTEMPTS messages were sent beyond its claims.
    queued_at = models.DateTimeField(default=timezone.now, db_index=True)
    enqueues = models.PositiveIntegerField(default=0)
    # The names the segments refer to by index, written when the run starts: gzip of the JSON
    # {"nodes": [{"name", "labels"}], "pods": [pending pod, ...]} (served as is to the browser).
    names_gz = models.BinaryField(null=True, blank=True, editable=False)
    # The release asked for (issue 48): its name ("v1.36"; "" = as the dump says) and kube-scheduler's
    # --feature-gates ({gate: bool}; null = the release's defaults, or the dump's scheduler's). The
    # scenario text is never rewritten: the run carries the choice to the loader (services/engine.py).
    release = models.CharField(max_length=16, blank=True, default="")
    feature_gates = models.JSONField(null=True, blank=True)
    # The release it is replayed as and why, as chosen when it started (ReleaseChoice.to_json()):
    # null for runs started before releases were chosen.
    release_choice = models.JSONField(null=True, blank=True, editable=False)

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


class RunSegment(models.Model):
    """The run's event log, one compressed columnar blob per cycle (scheduler_core.encoding.columnar).

    A segment holds consecutive events (seq ``first_seq`` to ``end_seq - 1``) of one cycle; it is
    written whole, once its CycleEnd (or the run's end) is reached. The names its columns refer to
    are stored once per run (``Run.names_gz``). This log is the source of truth the websocket tails.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="segments")
    cycle = models.PositiveIntegerField()
    first_seq = models.PositiveIntegerField()
    end_seq = models.PositiveIntegerField()  # one past its last event
    blob = models.BinaryField()  # a NumPy .npz archive: the format of scheduler_core.encoding.columnar

    class Meta:
        ordering = ["run", "first_seq"]
        # A retried task re-inserts the same segments; the constraint makes that a no-op.
        constraints = [models.UniqueConstraint(fields=["run", "first_seq"], name="unique_run_segment")]
        indexes = [
            models.Index(fields=["run", "cycle"], name="run_segment_cycle"),
            models.Index(fields=["run", "end_seq"], name="run_segment_end"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id} cycle {self.cycle}: events {self.first_seq}..{self.end_seq - 1}"


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
    # A comparison's link: `run` (A) side by side with this run (B) of the same scenario; both readable.
    compare_run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.CASCADE, related_name="compare_share_links"
    )
    step = models.CharField(max_length=200, blank=True, default="")  # UI position, e.g. "cycle=2&point=Filter"
    # An upgrade comparison's link (issue 48): its result page, read-only; `version` is the upgrade's.
    upgrade = models.ForeignKey("Upgrade", null=True, blank=True, on_delete=models.CASCADE, related_name="share_links")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"share {self.token[:8]}… of {self.version}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class CapacityKind(models.TextChoices):
    FIT = "fit"  # how many more copies of a workload (or pod) fit
    NODES = "nodes"  # how many nodes like a given one the pending pods need
    REMOVABLE = "removable"  # which nodes can be drained and go (or: can this one go?)
    FRAGMENTATION = "fragmentation"  # free capacity against the largest request that fits


class CapacityMethod(models.TextChoices):
    """What answered a pod-copies question (issue 42): scheduler_core.answers.capacity_pass's one pass —
    the copies counted or placed one by one — or, when the pass could differ, the trial rounds."""

    UNKNOWN = "", "not known yet"
    COUNTED = "counted"
    PLACED = "placed"
    TRIALS = "trials"


class CapacityQuestion(Owned):
    """A capacity question (issue 26) and its answer, found by trial runs fanned out to the workers
    in rounds (scheduler_core.answers.capacity_rounds); services/capacity.py drives it."""

    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="capacity_questions")
    kind = models.CharField(max_length=16, choices=CapacityKind.choices)
    parameters = models.JSONField(default=dict)  # workload, pod, likes, nodes, max (the engine's Question)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    width = models.PositiveIntegerField(default=1)  # trials a narrowing round may hold (the workers' slots)
    rounds = models.PositiveIntegerField(default=0)  # rounds dispatched so far
    trials_done = models.PositiveIntegerField(default=0)
    trials_estimate = models.PositiveIntegerField(default=0)  # the search's current guess of its total
    answer = models.JSONField(null=True, blank=True)  # {"fit"|"nodes"|"removable"|"fragmentation": the answer}
    error = models.TextField(blank=True, default="")
    # The deciding trial, saved as a scenario of the asker's and run like any run (share links work).
    deciding_run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    deciding_label = models.CharField(max_length=500, blank=True, default="")
    deciding_cycle = models.IntegerField(null=True, blank=True)  # the cycle that shows the answer, when one does
    deciding_step = models.IntegerField(null=True, blank=True)  # the run's step (of the trial's Changes) to open
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)
    # When a trial last stored its outcome or a round was last sent, and how many times recovery sent
    # a question's missing tasks again: a question with no progress for SCHEDLAB_CAPACITY_STALE_SECONDS
    # lost a task message (services/capacity.py, recovery).
    progressed = models.DateTimeField(default=timezone.now, db_index=True)
    redispatches = models.PositiveIntegerField(default=0)
    # A pod-copies question (kind fit, a pod named) is answered by the one pass first (issue 42):
    # how (``method``, blank until known) and why; the pass's progress; and the answer's parts the
    # API lists — each node's copies, the copy that did not fit and its FailedScheduling message, or
    # that it stopped at ``max``. The trial rounds fill the same fields when they answer instead.
    method = models.CharField(max_length=16, choices=CapacityMethod.choices, blank=True, default="")
    why = models.TextField(blank=True, default="")
    copies_done = models.PositiveBigIntegerField(default=0)  # copies placed (or counted) so far
    copies_per_second = models.FloatField(null=True, blank=True)  # per CPU second of the worker's pass
    per_node = models.JSONField(null=True, blank=True)  # node -> copies
    stopped_by = models.CharField(max_length=400, blank=True, default="")  # the copy that did not fit
    stop_message = models.TextField(blank=True, default="")  # its FailedScheduling message
    stopped_at_max = models.BooleanField(default=False)  # every copy up to max fitted: the next was not tried
    # Which delivery of advance_capacity holds the pass: it may run while pass_claim <= redispatches
    # (none holds it since the last re-send); the holder writes progress and the answer only while
    # it still holds it (a worker that died mid-pass is superseded once recovery sends it again).
    pass_claim = models.PositiveIntegerField(default=0)
    # The release its engine calls replay (ReleaseChoice.to_json(): the dump's), said beside the answer.
    release_choice = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"capacity {self.kind} {self.pk} of {self.version} ({self.status})"

    @property
    def asks_copies(self) -> bool:
        """How many more copies of a pod fit: the one pass answers it first."""
        return (
            self.kind == CapacityKind.FIT and bool(self.parameters.get("pod")) and not self.parameters.get("workload")
        )

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES


class CapacityTrial(models.Model):
    """One trial of a question's round: its changes, and its outcome once a worker ran it. Both are
    signed pickles (services/capacity.py) read back only by the workers that drive the search."""

    question = models.ForeignKey(CapacityQuestion, on_delete=models.CASCADE, related_name="trials")
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField()  # its place in the round (outcomes are fed back in this order)
    label = models.CharField(max_length=500)
    changes = models.BinaryField()
    outcome = models.BinaryField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["question", "round", "index"]
        constraints = [models.UniqueConstraint(fields=["question", "round", "index"], name="unique_capacity_trial")]

    def __str__(self) -> str:
        return f"trial {self.round}.{self.index} of question {self.question_id}: {self.label}"


class UpgradeStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    SKIPPED = "skipped"  # a fleet check's scenario already replayed as the target release (or newer)


UPGRADE_FINISHED = (UpgradeStatus.SUCCEEDED, UpgradeStatus.FAILED, UpgradeStatus.CANCELLED, UpgradeStatus.SKIPPED)


class FleetCheck(Owned):
    """Several scenarios checked for one upgrade at once (issue 48): one Upgrade per scenario, each
    from that scenario's own release to ``target``, run on the workers as one Celery group."""

    target = models.CharField(max_length=16)  # "v1.36"
    feature_gates = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"fleet check {self.pk} to {self.target}"


class Upgrade(Owned):
    """What changes if we upgrade (issue 48): a version run to the end under two releases, each
    difference traced to the release change behind it (scheduler_core.answers.upgrade), on a worker
    of the long-work queue (services/upgrades.py)."""

    version = models.ForeignKey(ScenarioVersion, on_delete=models.CASCADE, related_name="upgrades")
    fleet = models.ForeignKey(FleetCheck, null=True, blank=True, on_delete=models.CASCADE, related_name="upgrades")
    old_release = models.CharField(max_length=16)  # "v1.35"
    new_release = models.CharField(max_length=16)
    feature_gates = models.JSONField(null=True, blank=True)  # --feature-gates for both sides (null: defaults)
    # The from side: the release the scenario is replayed as and why (the dump's, or the run's it was asked from).
    release_choice = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=UpgradeStatus.choices, default=UpgradeStatus.QUEUED, db_index=True)
    # compare_releases' progress: runs to the end done of the total, and the last one's name.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    what = models.CharField(max_length=300, blank=True, default="")
    error = models.TextField(blank=True, default="")
    answer = models.JSONField(null=True, blank=True)  # UpgradeComparison.to_json(), as the engine wrote it
    counts = models.JSONField(null=True, blank=True)  # UpgradeCounts.to_json()
    # Either side opened as a normal run ("Open v1.36 as a run"): made once, then reused.
    old_run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    new_run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The worker's claim and heartbeat (as a run's: services/upgrades.py recovers what a dead worker left).
    claimed_by = models.CharField(max_length=200, blank=True, default="")
    heartbeat = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    enqueues = models.PositiveIntegerField(default=0)
    queued_at = models.DateTimeField(default=timezone.now, db_index=True)
    task_id = models.CharField(max_length=64, blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"upgrade {self.pk} of {self.version} {self.old_release} -> {self.new_release} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in UPGRADE_FINISHED


class UploadStatus(models.TextChoices):
    QUEUED = "queued"  # received and stored, waiting for a long-work worker
    READING = "reading"  # a worker reads, tidies and checks it
    SUCCEEDED = "succeeded"  # saved as a scenario's version
    FAILED = "failed"  # nothing saved: ``error`` and ``errors`` say why


UPLOAD_FINISHED = (UploadStatus.SUCCEEDED, UploadStatus.FAILED)


class Upload(Owned):
    """A big upload (issue 50): the files exactly as received, streamed to SCHEDLAB_UPLOAD_DIR by the
    request (webui/upload_handler.py) and kept there as uploaded, then read, checked and saved as a
    scenario's version by a worker of the long-work queue (services/uploads.py)."""

    name = models.CharField(max_length=200)  # the scenario's name
    files = models.JSONField(default=list)  # [{"name": as uploaded, "path": under the upload dir, "size": bytes}]
    size = models.BigIntegerField(default=0)  # the files' bytes together
    status = models.CharField(max_length=16, choices=UploadStatus.choices, default=UploadStatus.QUEUED)
    what = models.CharField(max_length=200, blank=True, default="")  # the step under way, as a person reads it
    bytes_read = models.BigIntegerField(default=0)
    objects_read = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    errors = models.JSONField(default=list)  # every problem: {file, object, path, line, message, code, limit}
    details = models.JSONField(null=True, blank=True)  # a refusal's details ({limit, max}), as the API answers them
    summary = models.JSONField(null=True, blank=True)  # {nodes, pods, pendingPods} of the version it became
    valid = models.BooleanField(null=True, blank=True)  # whether that version checks valid (null: not yet)
    scenario = models.ForeignKey(Scenario, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    version = models.ForeignKey(ScenarioVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The worker's claim and heartbeat (as a run's: services/uploads.py recovers what a dead worker or a
    # lost message left behind).
    claimed_by = models.CharField(max_length=200, blank=True, default="")
    heartbeat = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    enqueues = models.PositiveIntegerField(default=1)  # its task's messages sent (the first with the upload)
    queued_at = models.DateTimeField(default=timezone.now, db_index=True)
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"upload {self.pk} {self.name} ({self.status})"
