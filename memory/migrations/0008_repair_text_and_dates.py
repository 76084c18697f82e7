"""Repair what the doors now refuse, in rows stored before they did.

Lone surrogates: Django writes JSON ASCII-escaped, so SQLite took `"\\ud800"` in an item's
metadata, and from then on every list, page and export that held the row failed (text
columns never held one: the database drivers refuse to encode it). Each becomes U+FFFD.
Due and reminder times outside the accepted range (core.validation.WHEN_MIN/WHEN_MAX)
move to its nearest end, so every time zone can show them.
"""

from django.db import migrations

from core.text import repair_json_column
from core.validation import WHEN_MAX, WHEN_MIN


def repair(apps, schema_editor) -> None:
    item = apps.get_model("memory", "KnowledgeItem")
    repair_json_column(item, "metadata")
    for name in ("due_at", "reminded_at"):
        item.objects.filter(**{f"{name}__lt": WHEN_MIN}).update(**{name: WHEN_MIN})
        item.objects.filter(**{f"{name}__gt": WHEN_MAX}).update(**{name: WHEN_MAX})


class Migration(migrations.Migration):
    dependencies = [("memory", "0007_import_jobs")]

    operations = [migrations.RunPython(repair, migrations.RunPython.noop)]
