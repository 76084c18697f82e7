from django.db import migrations

from memory.corpus import KNOWLEDGE_FTS

from retrieval.fulltext_schema import operations


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]
    operations = operations(KNOWLEDGE_FTS)
