"""Input rules shared by every write path: clear ValidationErrors, never a 500."""

import re
import zoneinfo
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from core.secrets import refuse_secrets
from core.text import check_text

# A time zone, or a function that returns one (so a user's zone is read only when used).
TimeZone = tzinfo | Callable[[], tzinfo] | None

_DURATION = re.compile(r"^\s*(\d{1,5})\s*([hdwmy])\s*$", re.I)
_DURATION_UNITS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}
MAX_DURATION_DAYS = 100 * 365
# Every date taken from outside lies in this range (UTC). It holds any birthday, any real
# conversation log and any plausible deadline, and it stays centuries inside Python's
# year 1..9999: shown in any time zone (UTC-12..UTC+14) or moved by a reminder window,
# a date in range never leaves the calendar (year 1 in New York would be year 0).
WHEN_MIN = datetime(1900, 1, 1, tzinfo=UTC)
WHEN_MAX = datetime(8999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
OFFSET_MAX = timedelta(hours=15, minutes=59)  # the widest UTC offset PostgreSQL stores
WHEN_RANGE_MESSAGE = "Out of range: give a time from 1900-01-01 to 8999-12-31 (UTC)."


def refuse_credentials(text: str, field: str = "content") -> None:
    """Refuse credential-shaped text: memory must never become a secret store.

    The detector is `core.secrets`; this name stays for the write paths that call it.
    """
    refuse_secrets(text, field)


def clean_text(value: Any, *, field: str, limit: int, required: bool = True) -> str:
    """Refuse text that is not valid (core.text), drop NUL, strip, require non-empty when
    asked, truncate to `limit` characters."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError({field: "Must be a string."}, code="invalid")
    check_text(value, field=field, nul=False)
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
    """An aware datetime from a datetime, an ISO 8601 string or a date, between WHEN_MIN
    and WHEN_MAX (a ValidationError outside).

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
    try:
        in_range = WHEN_MIN <= parsed.astimezone(UTC) <= WHEN_MAX
    except OverflowError:  # 9999-12-31T23:00-12:00 is past the end of the calendar in UTC
        in_range = False
    if not in_range:
        raise ValidationError({field: WHEN_RANGE_MESSAGE}, code="out_of_range")
    if abs(parsed.utcoffset() or timedelta()) > OFFSET_MAX:
        # ISO 8601 allows offsets up to 23:59; PostgreSQL refuses past 15:59. Same instant.
        parsed = parsed.astimezone(UTC)
    return parsed


def parse_duration(value: str, *, field: str = "older_than") -> timedelta:
    """'12h', '30d', '2w', '6m' (30-day months) or '1y' as a timedelta, at most 100 years
    (so that counting back from now stays in the calendar)."""
    match = _DURATION.match(value or "")
    if not match:
        raise ValidationError(
            {field: "Use a number and a unit: h, d, w, m or y (e.g. 12h, 30d, 6m)."},
            code="invalid",
        )
    days = int(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]
    if days > MAX_DURATION_DAYS:
        raise ValidationError({field: "At most 100 years (e.g. 100y or 36500d)."}, code="invalid")
    return timedelta(days=days)
