from django.db import migrations, models

from conversations.corpus import TURN_FTS, TURN_FTS_CONTEXT

from retrieval.fulltext_schema import replace_operations, vocab_operations

# Existing turns get the (last 300 characters of the) turn before them in their session.
FILL_CONTEXT = """
UPDATE conversations_turn SET context_text = COALESCE((
    SELECT CASE WHEN LENGTH(p.content) > 300
                THEN SUBSTR(p.content, LENGTH(p.content) - 299) ELSE p.content END
    FROM conversations_turn p
    WHERE p.session_id = conversations_turn.session_id
      AND (p.timestamp < conversations_turn.timestamp
           OR (p.timestamp = conversations_turn.timestamp AND p.id < conversations_turn.id))
    ORDER BY p.timestamp DESC, p.id DESC LIMIT 1), '')
"""


class Migration(migrations.Migration):
    dependencies = [("conversations", "0003_bg_attempts")]

    operations = [
        migrations.AddField(
            model_name="turn",
            name="context_text",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunSQL(FILL_CONTEXT, migrations.RunSQL.noop),
        *replace_operations(TURN_FTS, TURN_FTS_CONTEXT),
        *vocab_operations(TURN_FTS_CONTEXT),
    ]
