"""Erases every node applies to its own index snapshot folder (retrieval/snapshot_marks.py)."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("retrieval", "0003_generation_table_name"),
    ]

    operations = [
        migrations.CreateModel(
            name="SnapshotErase",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("owner_id", models.BigIntegerField()),
                ("gone", models.BooleanField(default=False)),
                ("generations", models.JSONField(default=dict)),
                ("made_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "indexes": [
                    models.Index(fields=["owner_id"], name="snapshot_erase_owner"),
                    models.Index(fields=["made_at"], name="snapshot_erase_made_at"),
                ],
            },
        ),
    ]
