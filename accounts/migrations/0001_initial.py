import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


# These models moved here from the memory app. Their tables keep their names and their
# data: this migration only tells Django's state where the models now live.


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("memory", "0005_recall_source_turn"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ApiToken",
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
                        ("name", models.CharField(max_length=100)),
                        ("prefix", models.CharField(db_index=True, max_length=16)),
                        ("key_hash", models.CharField(max_length=64, unique=True)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("expires_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
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
                        "db_table": "memory_apitoken",
                    },
                ),
                migrations.CreateModel(
                    name="UserSettings",
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
                        ("timezone", models.CharField(default="UTC", max_length=64)),
                        ("memory_enabled", models.BooleanField(default=True)),
                        ("auto_extract", models.BooleanField(default=True)),
                        ("extraction_steering", models.TextField(blank=True, default="")),
                        ("discovery_consent", models.BooleanField(default=False)),
                        ("contexts", models.JSONField(blank=True, default=list)),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="gaia_settings",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_usersettings",
                    },
                ),
            ],
        ),
    ]
