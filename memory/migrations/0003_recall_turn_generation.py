from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0002_fulltext")]

    operations = [
        migrations.AddField(
            model_name="indexgeneration",
            name="turn_value",
            field=models.BigIntegerField(default=0),
        ),
    ]
