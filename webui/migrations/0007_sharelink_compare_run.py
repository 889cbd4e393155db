import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("webui", "0006_run_mode")]

    operations = [
        migrations.AddField(
            model_name="sharelink",
            name="compare_run",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="compare_share_links", to="webui.run"),
        ),
    ]
