"""The generation table takes retrieval's own name (it kept memory's when it moved here)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0002_index_changes")]

    operations = [migrations.AlterModelTable(name="indexgeneration", table=None)]
