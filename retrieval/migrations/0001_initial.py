import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


# These models moved here from the memory app. Their tables keep their names and their
# data: this migration only tells Django's state where the models now live.


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("memory", "0005_recall_source_turn"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IndexGeneration",
                    fields=[
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="+",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        ("value", models.BigIntegerField(default=0)),
                        ("turn_value", models.BigIntegerField(default=0)),
                    ],
                    options={
                        "db_table": "memory_indexgeneration",
                    },
                ),
            ],
        ),
    ]
