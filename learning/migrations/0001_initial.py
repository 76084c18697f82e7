import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


# These models moved here from the memory app. Their tables keep their names and their
# data: this migration only tells Django's state where the models now live.


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("memory", "0005_recall_source_turn"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ProfileCache",
                    fields=[
                        (
                            "owner",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="+",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        ("generation", models.BigIntegerField(default=0)),
                        ("bullets", models.JSONField(default=list)),
                        ("built_at", models.DateTimeField(default=django.utils.timezone.now)),
                    ],
                    options={
                        "db_table": "memory_profilecache",
                    },
                ),
                migrations.CreateModel(
                    name="LLMCounter",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("kind", models.CharField(max_length=40)),
                        ("count", models.PositiveIntegerField(default=0)),
                        ("first_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("last_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("last_message", models.CharField(blank=True, default="", max_length=500)),
                        (
                            "owner",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_llmcounter",
                        "indexes": [
                            models.Index(fields=["owner", "kind"], name="llm_counter_kind")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="ReconciledPair",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("low", models.BigIntegerField()),
                        ("high", models.BigIntegerField()),
                        ("outcome", models.CharField(max_length=12)),
                        ("similarity", models.FloatField(default=0.0)),
                        ("judged_at", models.DateTimeField(default=django.utils.timezone.now)),
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
                        "db_table": "memory_reconciledpair",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("owner", "low", "high"), name="reconciled_pair_once"
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
