"""Repair what the doors now refuse, in rows stored before they did.

Lone surrogates in a tool call's `args` (stored ASCII-escaped by SQLite; they made the
tool-call list, the admin page and the export fail) become U+FFFD. Turn and tool-call
times outside the accepted range (core.validation.WHEN_MIN/WHEN_MAX) move to its nearest
end, and each session's last turn time follows, so every time zone can show them.
"""

from django.db import migrations
from django.db.models import Max

from core.text import repair_json_column
from core.validation import WHEN_MAX, WHEN_MIN


def repair(apps, schema_editor) -> None:
    repair_json_column(apps.get_model("conversations", "ToolCall"), "args")
    turn = apps.get_model("conversations", "Turn")
    session = apps.get_model("conversations", "Session")
    for model in (turn, apps.get_model("conversations", "ToolCall")):
        model.objects.filter(timestamp__lt=WHEN_MIN).update(timestamp=WHEN_MIN)
        model.objects.filter(timestamp__gt=WHEN_MAX).update(timestamp=WHEN_MAX)
    stale = session.objects.filter(last_turn_at__lt=WHEN_MIN) | session.objects.filter(
        last_turn_at__gt=WHEN_MAX
    )
    for row in list(stale):
        last = turn.objects.filter(session=row).aggregate(last=Max("timestamp"))["last"]
        session.objects.filter(pk=row.pk).update(last_turn_at=last or row.created_at)


class Migration(migrations.Migration):
    dependencies = [("conversations", "0004_recall_turn_context")]

    operations = [migrations.RunPython(repair, migrations.RunPython.noop)]
