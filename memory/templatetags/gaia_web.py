"""Display helpers for the web pages: short relative times, source names, JSON."""

import json
from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone

from memory.web.forms import SOURCE_LABELS, SOURCE_PHRASES

register = template.Library()

_UNITS = (
    (365 * 86400, "year"),
    (30 * 86400, "month"),
    (7 * 86400, "week"),
    (86400, "day"),
    (3600, "hour"),
    (60, "minute"),
)


@register.filter
def ago(value: datetime | None) -> str:
    """'just now', '5 minutes ago', 'in 2 days': one unit, easy to scan in a list."""
    if not value:
        return ""
    seconds = (timezone.now() - value).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 60:
        return "just now"
    for size, unit in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            text = f"{count} {unit}{'s' if count != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "just now"  # pragma: no cover - the minute unit always matches


@register.filter
def source_label(source: str) -> str:
    """'llm_extract' -> 'Extraction': the noun used in filters and counts."""
    return SOURCE_LABELS.get(source, source)


@register.filter
def source_phrase(source: str) -> str:
    """'tool' -> 'stored by an agent': how a memory came to be, in a sentence."""
    return SOURCE_PHRASES.get(source, source)


@register.filter
def as_json(value: Any) -> str:
    """A stored JSON value as JSON, indented (not Python's repr: `true`, not `True`)."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
