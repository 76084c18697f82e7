from django.db import migrations

from retrieval.fulltext_schema import TURN_FTS, operations


class Migration(migrations.Migration):
    dependencies = [("conversations", "0001_initial")]
    operations = operations(TURN_FTS)
