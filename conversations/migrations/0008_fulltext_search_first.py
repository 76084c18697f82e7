from django.db import migrations

from retrieval.fulltext_schema import TURN_FTS_CONTEXT, search_first_operations


class Migration(migrations.Migration):
    dependencies = [("conversations", "0007_agents")]

    operations = search_first_operations(TURN_FTS_CONTEXT)
