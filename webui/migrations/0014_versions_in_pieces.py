"""Versions' texts kept as shared, compressed pieces (webui.textstore; issue 50, item 2), the texts
already saved moved into them; ``Scenario.text`` (a copy of the latest version's) dropped. Backwards,
each version's text is put together again from its pieces."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models

from webui import textstore

BATCH = 200


def _store(apps: Any, version: Any, text: str) -> None:
    TextPiece = apps.get_model("webui", "TextPiece")
    VersionPiece = apps.get_model("webui", "VersionPiece")
    listed = list(textstore.pieces(text))
    for start in range(0, len(listed), BATCH):
        batch = listed[start : start + BATCH]
        have = set(TextPiece.objects.filter(digest__in=[p.digest for p in batch]).values_list("digest", flat=True))
        new = {p.digest: p for p in batch if p.digest not in have}
        TextPiece.objects.bulk_create(
            [TextPiece(digest=d, size=len(p.text), data=textstore.compress(p)) for d, p in new.items()]
        )
        VersionPiece.objects.bulk_create(
            [VersionPiece(version=version, index=start + i, piece_id=p.digest) for i, p in enumerate(batch)]
        )


def into_pieces(apps: Any, schema_editor: Any) -> None:
    ScenarioVersion = apps.get_model("webui", "ScenarioVersion")
    for version in ScenarioVersion.objects.all().iterator(chunk_size=50):
        text = version.text
        version.length, version.digest = len(text), textstore.digest_of(text)
        version.save(update_fields=["length", "digest"])
        _store(apps, version, text)


def out_of_pieces(apps: Any, schema_editor: Any) -> None:
    ScenarioVersion = apps.get_model("webui", "ScenarioVersion")
    VersionPiece = apps.get_model("webui", "VersionPiece")
    Scenario = apps.get_model("webui", "Scenario")
    for version in ScenarioVersion.objects.all().iterator(chunk_size=50):
        rows = VersionPiece.objects.filter(version=version).order_by("index").values_list("piece__data", flat=True)
        version.text = "".join(textstore.decompress(bytes(data)) for data in rows)
        version.save(update_fields=["text"])
    for scenario in Scenario.objects.all().iterator(chunk_size=50):
        latest = ScenarioVersion.objects.filter(scenario=scenario).order_by("-number").first()
        if latest is not None:
            scenario.text = latest.text
            scenario.save(update_fields=["text"])


class Migration(migrations.Migration):
    dependencies = [("webui", "0013_uploads")]

    operations = [
        migrations.CreateModel(
            name="TextPiece",
            fields=[
                ("digest", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("size", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
            ],
        ),
        migrations.AddField(
            model_name="scenarioversion", name="digest", field=models.CharField(blank=True, default="", max_length=64)
        ),
        migrations.AddField(model_name="scenarioversion", name="length", field=models.PositiveBigIntegerField(default=0)),
        migrations.CreateModel(
            name="VersionPiece",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("index", models.PositiveIntegerField()),
                (
                    "piece",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="webui.textpiece"
                    ),
                ),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="pieces", to="webui.scenarioversion"
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("version", "index"), name="unique_version_piece")]
            },
        ),
        migrations.RunPython(into_pieces, out_of_pieces),
        migrations.RemoveField(model_name="scenario", name="text"),
        migrations.RemoveField(model_name="scenarioversion", name="text"),
    ]
