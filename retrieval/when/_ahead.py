"""Time to come as people say it ("tomorrow", "next week", "on Tuesday" in a question of
what is to come): the expressions `retrieval.when.ahead` reads, and their windows.

Each pattern names its parts as `_grammar` does (`n`, `unit`, `weekday`, `part`, `month`);
`window` turns a match into [start, end) counted from `now`, in `now`'s zone.
"""

import re
from datetime import datetime, timedelta

from retrieval.when._grammar import (
    _MONTH,
    _PART,
    _WEEKDAY,
    MONTHS,
    NUMBERS,
    UNIT_DAYS,
    WEEKDAYS,
    compiled,
)
from retrieval.when._windows import (
    DAY,
    Window,
    _midnight,
    _month_start,
    _number,
    _of_day,
    _whole,
)

_NUM = r"(?P<n>\d{1,3}|" + "|".join(sorted(map(re.escape, NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
_NUM2, _UNIT2 = _NUM.replace("<n>", "<n2>"), _UNIT.replace("<unit>", "<unit2>")  # once each

PATTERNS: list[tuple[str, re.Pattern]] = compiled(
    [
        ("after_tomorrow", r"the\s+day\s+after\s+tomorrow"),
        ("tomorrow", rf"tomorrow(?:['’]s)?(?:\s+{_PART})?"),
        ("next_period", r"next\s+(?P<unit>week|month|year|weekend)"),
        (
            "coming",
            rf"(?:over|in|during|within|for)?\s*the\s+(?:next|coming)\s+(?:{_NUM}\s+)?{_UNIT}",
        ),
        (
            "from_now",
            rf"(?:in\s+{_NUM}\s+{_UNIT}(?:['’]?\s+time)?|"
            rf"{_NUM2}\s+{_UNIT2}\s+from\s+now)",
        ),
        ("rest_of", r"(?:later\s+)?this\s+(?P<unit>week|month|year)"),
        ("weekend", r"(?:this|at\s+the|on\s+the|over\s+the)\s+weekend"),
        ("weekday", rf"(?:(?:on\s+)?next|this|on|this\s+coming)\s+{_WEEKDAY}(?:\s+{_PART})?"),
        ("bare_weekday", rf"(?<!every\s)(?<!each\s)(?<!last\s){_WEEKDAY}(?:\s+{_PART})?"),
        ("month", rf"(?:in|during|this|next)\s+{_MONTH}(?!\s*,?\s*\d)"),
    ]
)


def window(kind: str, match: re.Match, now: datetime) -> Window | None:
    """The window to come that one match of PATTERNS names, or None."""
    today, groups = _midnight(now), match.groupdict()
    if kind in {"tomorrow", "after_tomorrow"}:
        day = today + (2 if kind == "after_tomorrow" else 1) * DAY
        return _of_day(day, groups["part"]) if groups.get("part") else (day, day + DAY)
    if kind in {"weekday", "bare_weekday"}:
        ahead = (WEEKDAYS[groups["weekday"].lower()] - now.weekday()) % 7 or 7
        if match.group(0).lower().lstrip().startswith(("next", "on next")) and ahead < 3:
            ahead += 7  # "next Monday" said on a Saturday: not the day after tomorrow
        day = today + ahead * DAY
        return _of_day(day, groups["part"]) if groups.get("part") else (day, day + DAY)
    if kind == "weekend":
        saturday = today + ((5 - now.weekday()) % 7) * DAY
        return (now, saturday + 2 * DAY) if now.weekday() == 6 else (saturday, saturday + 2 * DAY)
    if kind == "month":
        month = MONTHS[groups["month"].lower().rstrip(".")]
        if month == now.month:
            return now, _month_start(now.year, month + 1, now)
        year = now.year if month > now.month else now.year + 1
        return _month_start(year, month, now), _month_start(year, month + 1, now)
    return _period(kind, groups, now, today)


def _period(kind: str, groups: dict, now: datetime, today: datetime) -> Window | None:
    unit = (groups.get("unit") or groups["unit2"]).lower()
    if kind == "next_period":
        if unit == "weekend":
            saturday = today + ((5 - now.weekday()) % 7 or 7) * DAY
            return saturday, saturday + 2 * DAY
        end = _whole(unit, now, today)[1]  # the next one starts where this one ends
        return end, _whole(unit, end, end)[1]
    if kind == "rest_of":
        return now, _whole(unit, now, today)[1]
    days = _number(groups.get("n") or groups.get("n2")) * UNIT_DAYS[unit]
    if days <= 0 or days > 36_500:
        return None
    if kind == "coming":
        return now, _midnight(now + timedelta(days=days)) + DAY
    share = max(1.0, days / 5)  # "in three weeks": around the day it names
    return _midnight(now + timedelta(days=days - share)), _midnight(
        now + timedelta(days=days + share)
    ) + DAY


__all__ = ["PATTERNS", "window"]
