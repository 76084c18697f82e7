"""Input rules shared by every write path: clear ValidationErrors, never a 500."""

import re
import zoneinfo
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from core.secrets import refuse_secrets

# A time zone, or a function that returns one (so a user's zone is read only when used).
TimeZone = tzinfo | Callable[[], tzinfo] | None

_DURATION = re.compile(r"^\s*(\d{1,5})\s*([hdwmy])\s*$", re.I)
_DURATION_UNITS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}


def refuse_credentials(text: str, field: str = "content") -> None:
    """Refuse credential-shaped text: memory must never become a secret store.

    The detector is `core.secrets`; this name stays for the write paths that call it.
    """
    refuse_secrets(text, field)


def clean_text(value: Any, *, field: str, limit: int, required: bool = True) -> str:
    """Strip, require non-empty when asked, truncate to `limit` characters."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError({field: "Must be a string."}, code="invalid")
    value = value.replace("\x00", "").strip()
    if required and not value:
        raise ValidationError({field: "May not be empty."}, code="required")
    return value[:limit].rstrip()


def clean_short(value: Any, *, field: str, limit: int, default: str = "") -> str:
    value = clean_text(value, field=field, limit=10_000, required=False) or default
    if len(value) > limit:
        raise ValidationError({field: f"At most {limit} characters."}, code="max_length")
    return value


def clean_confidence(value: Any, *, default: float) -> float:
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValidationError({"confidence": "Must be a number."}, code="invalid") from None
    if not 0.0 <= number <= 1.0:
        raise ValidationError({"confidence": "Must be between 0 and 1."}, code="invalid")
    return number


def parse_when(value: Any, *, field: str, tz: TimeZone = None) -> datetime | None:
    """An aware datetime from a datetime, an ISO 8601 string or a date.

    Naive values are read in `tz` (a zone, or a function returning one, called only
    when needed; UTC when None).
    """
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = parse_datetime(value.strip())
            if parsed is None:
                day = parse_date(value.strip())
                parsed = datetime(day.year, day.month, day.day) if day else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise ValidationError(
                {field: "Not an ISO 8601 date or time (e.g. 2026-03-27T09:00:00+01:00)."},
                code="invalid",
            )
    else:
        raise ValidationError({field: "Must be an ISO 8601 string."}, code="invalid")
    if timezone.is_naive(parsed):
        zone = tz() if callable(tz) else tz
        parsed = parsed.replace(tzinfo=zone or zoneinfo.ZoneInfo("UTC"))
    return parsed


def parse_duration(value: str, *, field: str = "older_than") -> timedelta:
    """'12h', '30d', '2w', '6m' (30-day months) or '1y' as a timedelta."""
    match = _DURATION.match(value or "")
    if not match:
        raise ValidationError(
            {field: "Use a number and a unit: h, d, w, m or y (e.g. 12h, 30d, 6m)."},
            code="invalid",
        )
    return timedelta(days=int(match.group(1)) * _DURATION_UNITS[match.group(2).lower()])
