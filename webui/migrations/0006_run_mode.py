from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("webui", "0005_columnar_segments")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="mode",
            # Runs stored before the timeline existed were single passes; new ones default to the timeline.
            field=models.CharField(choices=[("timeline", "Timeline"), ("single", "Single")], default="single", max_length=16),
        ),
        migrations.AlterField(
            model_name="run",
            name="mode",
            field=models.CharField(choices=[("timeline", "Timeline"), ("single", "Single")], default="timeline", max_length=16),
        ),
        migrations.AlterField(
            model_name="run",
            name="cycles",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="run",
            name="cycle",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
