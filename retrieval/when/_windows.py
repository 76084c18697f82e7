"""The window [start, end) an expression read by `_grammar` names, counted from `now`."""

import re
from collections.abc import Callable
from datetime import datetime, time, timedelta

from retrieval.when._grammar import (
    HOLIDAYS,
    MONTHS,
    NUMBERS,
    PARTS,
    SEASONS,
    UNIT_DAYS,
    VAGUE,
    WEEKDAYS,
)

Window = tuple[datetime, datetime]
DAY = timedelta(days=1)
# Zones south of the equator, where summer is December to February (a zone's key, or the
# start of it).
_SOUTH = (
    "Australia/", "Antarctica/", "America/Argentina/", "Pacific/Auckland", "Pacific/Chatham",
    "Pacific/Fiji", "America/Santiago", "America/Montevideo", "America/Asuncion",
    "America/Sao_Paulo", "Africa/Johannesburg", "Africa/Maputo", "Africa/Windhoek",
    "Africa/Harare", "Indian/Mauritius", "Indian/Reunion",
)  # fmt: skip


def _number(text: str | None) -> float:
    if not text:
        return 1
    text = " ".join(text.lower().split())
    return float(text) if text.isdigit() else NUMBERS.get(text, 1)


def _midnight(day: datetime) -> datetime:
    return datetime.combine(day.date(), time(), tzinfo=day.tzinfo)


def _month_start(year: int, month: int, now: datetime) -> datetime:
    """The first of `month` (any integer: 13 is next January) of `year`."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=now.tzinfo)


def _part_of(window: Window, pos: str | None) -> Window:
    """ "early", "mid", "late" ... of a window: its first, middle or last third."""
    if not pos:
        return window
    pos = " ".join(pos.lower().split())
    start, end = window
    third = (end - start) / 3
    if pos in {"early", "start of", "beginning of"}:
        return start, start + third
    if pos in {"mid", "middle of"}:
        return start + third, start + 2 * third
    return start + 2 * third, end


def _days(kind: str, groups: dict, now: datetime, today: datetime) -> Window | None:
    if kind == "before_yesterday":
        return today - 2 * DAY, today - DAY
    if kind in {"yesterday", "yesterday_part", "today", "today_part", "last_night"}:
        base = today - DAY if kind.startswith("yesterday") or kind == "last_night" else today
        part = "tonight" if groups.get("tonight") else groups.get("part")
        part = "night" if kind == "last_night" else part
        if not part:
            return base, (now if base == today else base + DAY)
        return _of_day(base, part)
    if kind == "just_now":
        return now - timedelta(hours=1), now
    if kind == "other_day":
        return today - 8 * DAY, today
    if kind == "same_time":  # a year ago give or take a fortnight, a month ago a day or so
        days = UNIT_DAYS[(groups.get("unit") or groups["unit_ago"]).lower()]
        then, wide = now - timedelta(days=days), timedelta(days=max(1.0, days / 24))
        return _midnight(then - wide), _midnight(then + wide) + DAY
    return None


def _of_day(base: datetime, part: str) -> Window:
    start_hour, end_hour = PARTS[part.lower()]
    return base + timedelta(hours=start_hour), base + timedelta(hours=end_hour)


def _distance(kind: str, groups: dict, now: datetime) -> Window | None:
    """ "in the last 5 days" (up to now), "about a week ago" (a window around the day)."""
    unit = groups["unit"].lower()
    low, high = VAGUE.get(" ".join((groups.get("n") or "").lower().split()), (None, None))
    count = low or _number(groups.get("n")) + (0.5 if groups.get("half") else 0)
    days = count * UNIT_DAYS[unit]
    far = groups.get("far") or groups.get("or_far")  # "four or five months ago"
    further = max(_number(far) if far else high or 0, count) * UNIT_DAYS[unit]
    if further > 3_650_000 or days <= 0:
        return None
    if kind == "span":  # up to now: from the start of the day it reaches back to, or the hour
        days = further * (1.5 if high else 1)  # "the last few hours": five, and some
        by_day = days >= 1 and unit not in {"minute", "min", "hour", "hr"}
        return (_midnight(now - timedelta(days)) if by_day else now - timedelta(days)), now
    if further < 1:  # "an hour ago": people round; anything since twice as long ago
        return now - timedelta(days=2 * further) - timedelta(minutes=15), now
    loose = groups.get("hedge") or groups.get("or_so") or (high == low and high) or far
    share = 1 / 3 if loose else 1 / 5
    start = _midnight(now - timedelta(days=further + max(1.0, further * share)))
    end = _midnight(now - timedelta(days=days - max(1.0, days * share))) + DAY
    return start, min(end, now)


def _weekdays(kind: str, groups: dict, now: datetime, today: datetime, said: str) -> Window | None:
    if kind in {"weekday", "bare_weekday"}:
        back = (now.weekday() - WEEKDAYS[groups["weekday"].lower()]) % 7 or 7
        start = today - back * DAY
        if said.lower().startswith("since"):
            return start, now
        if groups.get("part"):
            return _of_day(start, groups["part"])
        return start, start + DAY
    if kind == "weekend":  # the latest Saturday, maybe today
        saturday = today - ((now.weekday() - 5) % 7) * DAY
        which = groups["which"].lower()
        if now.weekday() == 6 and which not in {"last", "past"}:  # Sunday: this one so far
            return saturday, now
        if now.weekday() >= 5:
            if which == "this":
                return saturday, now
            saturday -= 7 * DAY
            if which not in {"last", "past"}:  # Saturday: "the weekend" may be either
                return saturday, now
        if which == "this":  # on a weekday: the coming one, no time past
            return None
        return saturday, saturday + 2 * DAY
    return None


def _calendar(kind: str, groups: dict, now: datetime, today: datetime) -> Window | None:
    unit = groups["unit"].lower()
    if kind == "before_last":
        return _before_last(unit, now, today)
    which = (groups.get("which") or "").lower()
    last = kind == "period" and which != "this"
    if unit == "week":
        start = today - now.weekday() * DAY
        return (start - 7 * DAY, start) if last else (start, now)
    if unit == "month":
        start = today.replace(day=1)
        return ((start - DAY).replace(day=1), start) if last else (start, now)
    start = today.replace(month=1, day=1)
    return (start.replace(year=start.year - 1), start) if last else (start, now)


def _whole(unit: str, now: datetime, today: datetime) -> Window:
    """This whole week, month or year, to come included."""
    if unit == "week":
        start = today - now.weekday() * DAY
        return start, start + 7 * DAY
    if unit == "month":
        return today.replace(day=1), _month_start(now.year, now.month + 1, now)
    return today.replace(month=1, day=1), today.replace(year=now.year + 1, month=1, day=1)


def _before_last(unit: str, now: datetime, today: datetime) -> Window:
    if unit == "night":
        return _of_day(today - 2 * DAY, "night")
    if unit == "weekend":  # the one before the last that has ended
        saturday = today - ((now.weekday() - 5) % 7) * DAY - (14 if now.weekday() >= 5 else 7) * DAY
        return saturday, saturday + 2 * DAY
    if unit == "week":
        start = today - now.weekday() * DAY - 14 * DAY
        return start, start + 7 * DAY
    if unit == "month":
        start = _month_start(now.year, now.month - 2, now)
        return start, _month_start(now.year, now.month - 1, now)
    start = today.replace(month=1, day=1)
    return start.replace(year=start.year - 2), start.replace(year=start.year - 1)


def _month(groups: dict, now: datetime) -> Window | None:
    """The most recent such month that has begun; "last March" said in March is a year ago."""
    month = MONTHS[groups["month"].lower().rstrip(".")]
    which = " ".join((groups.get("which2") or groups.get("which") or "").lower().split())
    year = now.year if month <= now.month else now.year - 1
    if which in {"last", "this past"} and month == now.month:
        year -= 1
    start = _month_start(year, month, now)
    if which == "since":
        return start, now
    return start, min(_month_start(year, month + 1, now), now)


def _day_of_month(groups: dict, now: datetime, today: datetime) -> Window | None:
    """The latest such day that has begun: "on the 3rd" of this month or the last, "on 28
    November" of this year or the last."""
    day = int(groups.get("dom") or groups.get("dom2") or groups["dom3"])
    named = groups.get("month") or groups.get("month2")
    if named:
        month = MONTHS[named.lower().rstrip(".")]
        year = now.year if (month, day) <= (now.month, now.day) else now.year - 1
        start = datetime(year, month, day, tzinfo=now.tzinfo)  # ValueError: no such day
    else:
        start = today.replace(day=day) if day <= now.day else None
        if start is None:
            last = (today.replace(day=1) - DAY).replace(day=1)
            start = last.replace(day=day)
    return start, min(start + DAY, now)


def _latest(of_year: Callable[[int], datetime], now: datetime) -> int:
    """The latest year whose moment (`of_year`) is not after `now`."""
    year = now.year + 1
    while of_year(year) > now:
        year -= 1
    return year


def _season(groups: dict, now: datetime) -> Window | None:
    """The most recent such season that has begun ("this summer", "over the summer"), or
    ended ("last summer"), in the person's hemisphere; meteorological seasons."""
    first = SEASONS[groups["season"].lower()]
    key = getattr(now.tzinfo, "key", "") or ""
    if key.startswith(_SOUTH):
        first += 6
    which = " ".join((groups.get("which2") or groups.get("which") or "").lower().split())
    year = _latest(lambda y: _month_start(y, first, now), now)
    start, end = _month_start(year, first, now), _month_start(year, first + 3, now)
    if which == "this" and end <= now and _month_start(year + 1, first, now).year == now.year:
        return None  # "this summer" said in April: the one to come, no time past
    if which in {"last", "this past"} and end > now:  # under way: last year's
        start, end = _month_start(year - 1, first, now), _month_start(year - 1, first + 3, now)
    return start, min(end, now)


def _holiday(groups: dict, now: datetime) -> Window | None:
    """The most recent such day that has begun ("over Christmas"), or ended ("last
    Christmas" said on Christmas Day is a year ago)."""
    said = re.sub(r"['’]", "", " ".join(groups["holiday"].lower().split()))
    key = next((name for name in HOLIDAYS if said.startswith(name)), None)
    if key is None:
        return None
    month, day, length = HOLIDAYS[key]
    year = _latest(lambda y: datetime(y, month, day, tzinfo=now.tzinfo), now)
    start = datetime(year, month, day, tzinfo=now.tzinfo)
    end = start + length * DAY
    if (groups.get("which") or "") and end > now:  # "last Christmas", said at Christmas
        start = start.replace(year=start.year - 1)
        end = start + length * DAY
    return start, min(end, now)


def window(kind: str, match: re.Match, now: datetime) -> Window | None:
    """The window of one match of `_grammar.PATTERNS`, or None when it names none."""
    today = _midnight(now)
    groups = match.groupdict()
    if kind in {"span", "ago"}:
        return _distance(kind, groups, now)
    if kind in {"weekday", "bare_weekday", "weekend"}:
        return _weekdays(kind, groups, now, today, match.group(0))
    if kind == "holiday":
        return _holiday(groups, now)
    if kind == "day_of_month":
        return _day_of_month(groups, now, today)
    if kind == "pos_period":  # "at the start of the month": of this one, so far
        found = _part_of(_whole(groups["unit"].lower(), now, today), groups.get("pos"))
        return (found[0], min(found[1], now)) if found[0] < now else None
    if kind in {"period", "earlier_period", "before_last"}:
        found = _calendar(kind, groups, now, today)
    elif kind == "month":
        found = _month(groups, now)
    elif kind == "season":
        found = _season(groups, now)
    else:
        return _days(kind, groups, now, today)
    if found is None:
        return None
    start, end = _part_of(found, groups.get("pos"))
    return start, min(end, now) if start < now else end
