from django.db import migrations

from conversations.corpus import TURN_FTS

from retrieval.fulltext_schema import operations


class Migration(migrations.Migration):
    dependencies = [("conversations", "0001_initial")]
    operations = operations(TURN_FTS)
