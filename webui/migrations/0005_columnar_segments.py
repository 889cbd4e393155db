"""Issue 11: a run's events stored as one columnar segment per cycle (scheduler_core.encoding.columnar),
with the names the segments refer to kept once per run.

Existing runs are converted: each cycle's stored events become one segment holding their payloads as
JSON (the format's fallback for any payload, so no names are needed to read them); the API answers
stay the same. Their names (for the run view's binary loading) are built from the version on first
use. Backwards, the segments are decoded into per-event rows again.
"""

import gzip
import io
import json
import zipfile
import zlib

import django.db.models.deletion
import numpy as np
from django.db import migrations, models

CHUNK = 2000


# --- a frozen, JSON-only writer of format version 1 (migrations must not follow later code) ------


def _escaped(value):
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _escaped(item) for key, item in value.items()}
    return {"$lit": out} if any(isinstance(key, str) and key.startswith("$") for key in value) else out


def _segment(first_seq, rows) -> bytes:
    events = [[row.cycle, row.pod, row.extension_point, row.plugin, _escaped(json.loads(zlib.decompress(row.payload_z)))] for row in rows]
    meta = {"format": "schedlab.events", "version": 1, "firstSeq": first_seq, "arrays": [], "events": events}
    array = np.frombuffer(json.dumps(meta, separators=(",", ":")).encode(), dtype=np.uint8)
    npy = io.BytesIO()
    np.lib.format.write_array(npy, array, allow_pickle=False)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr("meta.npy", npy.getvalue())
    return out.getvalue()


def to_segments(apps, schema_editor):
    RunEvent = apps.get_model("webui", "RunEvent")
    RunSegment = apps.get_model("webui", "RunSegment")
    Run = apps.get_model("webui", "Run")
    for run_id in Run.objects.values_list("pk", flat=True).iterator():
        stored, pending, group = 0, [], []

        def close():
            nonlocal stored, group
            if group:
                blob = _segment(group[0].seq, group)
                stored += len(blob)
                pending.append(RunSegment(run_id=run_id, cycle=group[0].cycle, first_seq=group[0].seq, end_seq=group[-1].seq + 1, blob=blob))
                group = []

        for row in RunEvent.objects.filter(run_id=run_id).order_by("seq").iterator(chunk_size=CHUNK):
            if group and row.cycle != group[-1].cycle:
                close()
            group.append(row)
            if row.extension_point == "CycleEnd":
                close()
            if len(pending) >= 100:
                RunSegment.objects.bulk_create(pending)
                pending = []
        close()
        RunSegment.objects.bulk_create(pending)
        Run.objects.filter(pk=run_id).update(stored_bytes=stored)


def to_events(apps, schema_editor):
    # The format's own decoder, through the web app's one door to the engine: it reads version 1 for
    # good (docs/WEB_API.md, "Event segments").
    from webui.services.engine import RunNames, decode_segment

    RunEvent = apps.get_model("webui", "RunEvent")
    RunSegment = apps.get_model("webui", "RunSegment")
    Run = apps.get_model("webui", "Run")
    for run in Run.objects.all().iterator():
        names = RunNames([], [])
        if run.names_gz is not None:
            document = json.loads(gzip.decompress(bytes(run.names_gz)))
            names = RunNames([node["name"] for node in document["nodes"]], document["pods"])
        rows, stored = [], 0
        for segment in RunSegment.objects.filter(run_id=run.pk).order_by("first_seq").iterator(chunk_size=16):
            decoded = decode_segment(bytes(segment.blob), names)
            for offset, event in enumerate(decoded.events):
                payload_z = zlib.compress(json.dumps(event["payload"], separators=(",", ":")).encode(), 6)
                stored += len(payload_z)
                rows.append(RunEvent(run_id=run.pk, seq=decoded.first_seq + offset, cycle=event["cycle"], pod=event["pod"] or "",
                                     extension_point=event["extensionPoint"], plugin=event["plugin"], payload_z=payload_z))
            if len(rows) >= CHUNK:
                RunEvent.objects.bulk_create(rows)
                rows = []
        RunEvent.objects.bulk_create(rows)
        Run.objects.filter(pk=run.pk).update(stored_bytes=stored)


class Migration(migrations.Migration):

    dependencies = [
        ("webui", "0004_run_queue_recovery"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="names_gz",
            field=models.BinaryField(blank=True, editable=False, null=True),
        ),
        migrations.CreateModel(
            name="RunSegment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("cycle", models.PositiveIntegerField()),
                ("first_seq", models.PositiveIntegerField()),
                ("end_seq", models.PositiveIntegerField()),
                ("blob", models.BinaryField()),
                ("run", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="segments", to="webui.run")),
            ],
            options={
                "ordering": ["run", "first_seq"],
                "constraints": [models.UniqueConstraint(fields=("run", "first_seq"), name="unique_run_segment")],
                "indexes": [
                    models.Index(fields=["run", "cycle"], name="run_segment_cycle"),
                    models.Index(fields=["run", "end_seq"], name="run_segment_end"),
                ],
            },
        ),
        migrations.RunPython(to_segments, to_events, elidable=False),
        migrations.DeleteModel(
            name="RunEvent",
        ),
    ]
