from django.db import migrations

from retrieval.fulltext_schema import KNOWLEDGE_FTS, operations


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]
    operations = operations(KNOWLEDGE_FTS)
