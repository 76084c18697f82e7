"""Per-user settings, one row per user, created on first use."""

import zoneinfo
from typing import Any

from django.core.exceptions import ValidationError

from memory.models import UserSettings

EDITABLE = (
    "timezone",
    "memory_enabled",
    "auto_extract",
    "extraction_steering",
    "discovery_consent",
    "contexts",
)


def user_settings_get(user: Any) -> UserSettings:
    settings, _ = UserSettings.objects.get_or_create(user_id=user.pk)
    return settings


def user_settings_update(*, user: Any, **fields: Any) -> UserSettings:
    """Change only the given settings; unknown names and bad values are refused."""
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise ValidationError({name: "Unknown setting." for name in sorted(unknown)})
    if "timezone" in fields:
        try:
            zoneinfo.ZoneInfo(str(fields["timezone"]))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValidationError({"timezone": "Unknown time zone."}, code="invalid") from None
    if "extraction_steering" in fields and len(fields["extraction_steering"] or "") > 4000:
        raise ValidationError({"extraction_steering": "At most 4000 characters."})
    if "contexts" in fields:
        contexts = fields["contexts"]
        if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
            raise ValidationError({"contexts": "Must be a list of names."})
        fields["contexts"] = sorted({c.strip()[:100] for c in contexts if c.strip()})
    settings = user_settings_get(user)
    for name, value in fields.items():
        setattr(settings, name, value)
    settings.save()
    return settings
