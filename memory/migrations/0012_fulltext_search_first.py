from django.db import migrations

from memory.corpus import KNOWLEDGE_FTS

from retrieval.fulltext_schema import search_first_operations


class Migration(migrations.Migration):
    dependencies = [("memory", "0011_agents")]

    operations = search_first_operations(KNOWLEDGE_FTS)
