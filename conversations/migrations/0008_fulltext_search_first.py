from django.db import migrations

from conversations.corpus import TURN_FTS_CONTEXT

from retrieval.fulltext_schema import search_first_operations


class Migration(migrations.Migration):
    dependencies = [("conversations", "0007_agents")]

    operations = search_first_operations(TURN_FTS_CONTEXT)
