from django.db import migrations, models

from memory.corpus import KNOWLEDGE_FTS

from retrieval.fulltext_schema import vocab_operations


class Migration(migrations.Migration):
    dependencies = [("memory", "0003_bg_background")]

    operations = [
        migrations.AddField(
            model_name="indexgeneration",
            name="turn_value",
            field=models.BigIntegerField(default=0),
        ),
        *vocab_operations(KNOWLEDGE_FTS),
    ]
