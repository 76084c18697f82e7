from django.db import migrations

from retrieval.fulltext_schema import KNOWLEDGE_FTS, search_first_operations


class Migration(migrations.Migration):
    dependencies = [("memory", "0011_agents")]

    operations = search_first_operations(KNOWLEDGE_FTS)
