import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('webui', '0008_capacity_questions'),
    ]

    operations = [
        migrations.AddField(
            model_name='capacityquestion',
            name='progressed',
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='capacityquestion',
            name='redispatches',
            field=models.PositiveIntegerField(default=0),
        ),
    ]
