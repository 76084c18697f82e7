"""ApiToken and UserSettings moved to accounts, IndexGeneration to retrieval, and
ProfileCache, ReconciledPair and LLMCounter to learning.

State only: the tables stay as they are (the models name them with db_table), so an
existing install upgrades with `migrate` and no row moves. The content types are
renamed so permissions and admin log entries follow their models.
"""

from django.db import migrations

MOVED = {
    "apitoken": "accounts",
    "usersettings": "accounts",
    "indexgeneration": "retrieval",
    "profilecache": "learning",
    "reconciledpair": "learning",
    "llmcounter": "learning",
}


def rename_content_types(apps, schema_editor) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    for model, app_label in MOVED.items():
        if not content_type.objects.filter(app_label=app_label, model=model).exists():
            content_type.objects.filter(app_label="memory", model=model).update(app_label=app_label)


def restore_content_types(apps, schema_editor) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    for model, app_label in MOVED.items():
        content_type.objects.filter(app_label=app_label, model=model).update(app_label="memory")


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0005_recall_source_turn"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("accounts", "0001_initial"),
        ("learning", "0001_initial"),
        ("retrieval", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name=name)
                for name in (
                    "ApiToken",
                    "UserSettings",
                    "IndexGeneration",
                    "ProfileCache",
                    "ReconciledPair",
                    "LLMCounter",
                )
            ],
        ),
        migrations.RunPython(rename_content_types, restore_content_types),
    ]
