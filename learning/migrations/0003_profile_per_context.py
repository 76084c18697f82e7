"""A profile per context: the cache is keyed by (owner, context). It is only a cache
(rebuilt from the memories on the next read), so the table is made again."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("learning", "0002_llm_state"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.DeleteModel(name="ProfileCache"),
        migrations.CreateModel(
            name="ProfileCache",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("context", models.CharField(blank=True, default="", max_length=100)),
                ("generation", models.BigIntegerField(default=0)),
                ("bullets", models.JSONField(default=list)),
                ("built_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "memory_profilecache",
                "constraints": [
                    models.UniqueConstraint(fields=("owner", "context"), name="profile_cache_once")
                ],
            },
        ),
    ]
