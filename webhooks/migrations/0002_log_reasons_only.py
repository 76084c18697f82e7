"""The delivery log keeps a status and a fixed reason: what older versions kept of the
receivers' answers ("HTTP 400: <their body>") and of the connection errors goes."""

import re

from django.db import migrations

STATUS = re.compile(r"^HTTP (\d{3})")


def _fixed(error: str) -> str:
    found = STATUS.match(error)
    if found:
        return f"HTTP {found.group(1)}"
    if error.startswith("refused"):
        return "refused: the host is not a public address"
    return "the request failed"


def forward(apps, schema_editor) -> None:
    for model, field in (("Attempt", "error"), ("Delivery", "last_error")):
        rows = apps.get_model("webhooks", model).objects.exclude(**{field: ""})
        for pk, error in rows.values_list("pk", field).iterator():
            if _fixed(error) != error:
                rows.filter(pk=pk).update(**{field: _fixed(error)})


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0001_initial")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
