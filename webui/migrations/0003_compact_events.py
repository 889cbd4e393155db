"""Issue 6: event payloads stored zlib-compressed, per-run stored bytes, and a per-cycle index.

Existing rows are converted in place (the API's JSON shape does not change), and the cycle index of
runs stored before this migration is rebuilt from their CycleStart/CycleEnd events.
"""

import json
import zlib

from django.db import migrations, models
import django.db.models.deletion

CHUNK = 2000


def _compress(payload) -> bytes:
    # Frozen copy of webui.models.compress_payload (migrations must not import the live code).
    return zlib.compress(json.dumps(payload, separators=(",", ":")).encode(), 6)


def compress_payloads(apps, schema_editor):
    RunEvent = apps.get_model("webui", "RunEvent")
    Run = apps.get_model("webui", "Run")
    RunCycle = apps.get_model("webui", "RunCycle")
    for run_id in Run.objects.values_list("pk", flat=True).iterator():
        stored, cycles, start = 0, [], {}
        rows = RunEvent.objects.filter(run_id=run_id).order_by("seq").iterator(chunk_size=CHUNK)
        batch = []
        for row in rows:
            row.payload_z = _compress(row.payload)
            stored += len(row.payload_z)
            batch.append(row)
            if row.extension_point == "CycleStart":
                start[row.cycle] = row.seq
            elif row.extension_point == "CycleEnd" and row.cycle in start:
                payload = row.payload or {}
                cycles.append(RunCycle(
                    run_id=run_id, cycle=row.cycle, pod=row.pod, node_name=payload.get("nodeName"),
                    first_seq=start[row.cycle], end_seq=row.seq + 1,
                    failed_scheduling_message=payload.get("failedSchedulingMessage"),
                ))
            if len(batch) >= CHUNK:
                RunEvent.objects.bulk_update(batch, ["payload_z"])
                batch = []
        RunEvent.objects.bulk_update(batch, ["payload_z"])
        RunCycle.objects.bulk_create(cycles, ignore_conflicts=True)
        Run.objects.filter(pk=run_id).update(stored_bytes=stored)


def decompress_payloads(apps, schema_editor):
    RunEvent = apps.get_model("webui", "RunEvent")
    batch = []
    for row in RunEvent.objects.order_by("pk").iterator(chunk_size=CHUNK):
        row.payload = json.loads(zlib.decompress(row.payload_z))
        batch.append(row)
        if len(batch) >= CHUNK:
            RunEvent.objects.bulk_update(batch, ["payload"])
            batch = []
    RunEvent.objects.bulk_update(batch, ["payload"])


class Migration(migrations.Migration):

    dependencies = [
        ("webui", "0002_run_trace"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="stored_bytes",
            field=models.BigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="RunCycle",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("cycle", models.PositiveIntegerField()),
                ("pod", models.CharField(blank=True, default="", max_length=400)),
                ("node_name", models.CharField(blank=True, max_length=300, null=True)),
                ("first_seq", models.PositiveIntegerField()),
                ("end_seq", models.PositiveIntegerField()),
                ("failed_scheduling_message", models.TextField(blank=True, null=True)),
                ("run", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="cycle_rows", to="webui.run")),
            ],
            options={
                "ordering": ["run", "cycle"],
                "constraints": [models.UniqueConstraint(fields=("run", "cycle"), name="unique_run_cycle")],
            },
        ),
        migrations.AddField(
            model_name="runevent",
            name="payload_z",
            field=models.BinaryField(null=True),
        ),
        migrations.AlterField(  # nullable while both columns exist, so either direction can fill one
            model_name="runevent",
            name="payload",
            field=models.JSONField(null=True),
        ),
        migrations.RunPython(compress_payloads, decompress_payloads, elidable=False),
        migrations.RemoveField(
            model_name="runevent",
            name="payload",
        ),
        migrations.AlterField(
            model_name="runevent",
            name="payload_z",
            field=models.BinaryField(),
        ),
        migrations.AddIndex(
            model_name="runevent",
            index=models.Index(fields=["run", "cycle"], name="run_event_cycle"),
        ),
    ]
