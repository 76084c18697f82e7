"""Calendar dates a query names ("on October 13, 2023", "in July 2023"), as time windows.

A question that names a day asks about that day: "What did Gina find for her store on
1 February, 2023?" is answered by a turn of that day, whose own words need not be close
to the question's. Search therefore adds a stage that ranks the rows of the named days
(`pipeline.fused_candidates`). Only full dates are read: a day with month and year (in the
usual English orders, or ISO 2023-10-13) or a month with its year. "Last week" and a bare
"June" are left alone: their year, or the day they count from, is a guess.
"""

import calendar
import re
from datetime import datetime, timedelta

from django.utils import timezone

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>[12]\d{3})"
# Most specific first; a later pattern never reads text an earlier one matched.
_PATTERNS = [
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>[12]\d{3})-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
]
MAX_WINDOWS = 4
Window = tuple[datetime, datetime]  # [start, end)


def _window(year: int, month: int, day: int | None) -> Window | None:
    zone = timezone.get_default_timezone()
    try:
        if day is not None:
            start = datetime(year, month, day, tzinfo=zone)
            return start, start + timedelta(days=1)
        start = datetime(year, month, 1, tzinfo=zone)
    except ValueError:  # "February 30, 2023", month 13
        return None
    following = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=zone)
    return start, following


def mentioned_windows(text: str) -> list[Window]:
    """The days (or months) `text` names, in order of appearance, at most MAX_WINDOWS."""
    found: list[tuple[int, Window]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            month = match["month"]
            number = int(month) if month.isdigit() else _MONTHS[month.lower().rstrip(".")]
            day = match.groupdict().get("day")
            window = _window(int(match["year"]), number, int(day) if day else None)
            if window:
                taken.append((match.start(), match.end()))
                found.append((match.start(), window))
    windows = [window for _, window in sorted(found, key=lambda pair: pair[0])]
    return list(dict.fromkeys(windows))[:MAX_WINDOWS]
