"""Time as people say it: "yesterday", "about a week ago", "in the last 5 days", "in March".

A question placed in time ("What did the dentist say about a week ago?") asks about what
happened then; read as words, "week" and "ago" are one more topic and match nothing.
`read` finds the expression, turns it into a window [from, to) in the person's time zone,
counted from `now`, and gives the question back without it: the window narrows the search
(`memory.recall`, `conversations.search`), the rest is the topic, and the answer says what
was read (`time_read`).

What is read (case does not matter):
- a day: today, yesterday, the day before yesterday, this morning / afternoon / evening,
  tonight, last night, yesterday morning ...;
- a weekday: (last | on | this past) Tuesday: its most recent day before today;
- a distance: N days / weeks / months / years ago ("3 days ago", "two weeks ago", "a
  couple of months ago"), a window around the point (a fifth of the distance either
  side, whole days, at least one day; "about", "around", "roughly" and "some" widen it to
  a third): people round;
- a span up to now: in / over / during the last / past N days (weeks, months, a few
  days), since Monday, since March, earlier this week, the other day;
- a calendar period: this / last week, month, year, last weekend; in March, last March
  (the most recent March that has begun; "in March 2023" is a date, `retrieval.dates`).

Nothing else: "may", "second", "we" and a bare number are no time (a general date parser
reads "we" and "may" as dates: docs/recall.md says why none is used). At most one
expression is read, the first; dates with a year stay with `retrieval.dates` (a weight,
as before). A window never starts before year 1 or ends after year 9999.
"""

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "a couple of": 2, "a couple": 2,
    "couple of": 2, "a few": 3, "few": 3, "several": 4, "a half": 0.5, "half a": 0.5,
}  # fmt: skip
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30.44, "year": 365.25}
_WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name and n != 5}
_MONTHS["sept"] = 9
_PARTS = {  # part of a day: (start hour, end hour; past 24 is the next day)
    "morning": (0, 12), "afternoon": (12, 18), "evening": (17, 24), "night": (18, 30),
    "tonight": (17, 30),
}  # fmt: skip

_NUM = r"(?P<n>\d{1,4}|" + "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
_HEDGE = r"(?P<hedge>(?:about|around|roughly|approximately|some|almost|nearly|maybe|like)\s+)?"
_WEEKDAY = r"(?P<weekday>" + "|".join(_WEEKDAYS) + r")"
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_PART = r"(?P<part>morning|afternoon|evening|night)"
# A month or year named with a date after it is an absolute date (`retrieval.dates`).
_NO_DATE_AFTER = r"(?!\s*,?\s*(?:\d|of\s+\d))"

_PATTERNS: list[tuple[str, re.Pattern]] = [
    (kind, re.compile(rf"\b{pattern}\b", re.IGNORECASE))
    for kind, pattern in [
        ("before_yesterday", r"(?:on\s+)?the\s+day\s+before\s+yesterday"),
        ("yesterday_part", rf"yesterday(?:'s)?\s+{_PART}"),
        ("yesterday", r"yesterday"),
        ("last_night", r"last\s+night"),
        ("today_part", rf"(?:earlier\s+)?this\s+{_PART}|(?P<tonight>tonight)"),
        ("today", r"(?:earlier\s+)?today"),
        ("other_day", r"the\s+other\s+day"),
        (
            "span",
            rf"(?:in|over|during|within|for)?\s*the\s+(?:last|past)\s+{_HEDGE}"
            rf"(?:{_NUM}\s+)?{_UNIT}",
        ),
        ("ago", rf"{_HEDGE}{_NUM}\s+{_UNIT}\s+(?:ago|back|earlier)"),
        ("weekday", rf"(?:(?:on\s+)?last|this\s+past|on|since)\s+{_WEEKDAY}"),
        ("weekend", r"(?P<which>last|this|past)\s+weekend"),
        ("period", r"(?P<which>this|last|past|previous)\s+(?P<unit>week|month|year)"),
        ("earlier_period", r"earlier\s+this\s+(?P<unit>week|month|year)"),
        ("month", rf"(?P<which>in|during|last|since|this|this\s+past)\s+{_MONTH}{_NO_DATE_AFTER}"),
    ]
]


@dataclass(frozen=True)
class TimeRead:
    """A time expression read from a question."""

    start: datetime  # aware, in the person's time zone; the window is [start, end)
    end: datetime
    said: str  # the words read ("about a week ago")
    rest: str  # the question without them

    def answer(self, *, used: bool = True) -> dict[str, str | bool]:
        """What the answer says was read: {"from", "to" (ISO 8601), "said", "used"};
        `used` is False when nothing of the person's fell in the window, so the search
        was not narrowed (a conversation imported from years ago, asked "last year")."""
        return {
            "from": self.start.isoformat(),
            "to": self.end.isoformat(),
            "said": self.said,
            "used": used,
        }


def _number(text: str | None) -> float:
    if not text:
        return 1
    text = " ".join(text.lower().split())
    return float(text) if text.isdigit() else _NUMBERS.get(text, 1)


def _midnight(day: datetime) -> datetime:
    return datetime.combine(day.date(), time(), tzinfo=day.tzinfo)


def _safe(make, *args) -> datetime | None:
    try:
        return make(*args)
    except (OverflowError, ValueError):
        return None


def _window(kind: str, match: re.Match, now: datetime) -> tuple[datetime, datetime] | None:
    today = _midnight(now)
    day = timedelta(days=1)
    groups = match.groupdict()
    if kind == "before_yesterday":
        return today - 2 * day, today - day
    if kind in {"yesterday", "yesterday_part", "today", "today_part", "last_night"}:
        base = today - day if kind.startswith("yesterday") or kind == "last_night" else today
        part = "tonight" if groups.get("tonight") else groups.get("part")
        if kind == "last_night":
            part = "night"
        if not part:
            return base, (now if base == today else base + day)
        start_hour, end_hour = _PARTS[part]
        return base + timedelta(hours=start_hour), base + timedelta(hours=end_hour)
    if kind == "other_day":
        return today - 8 * day, today
    if kind in {"span", "ago"}:
        count = _number(groups.get("n"))
        days = count * _UNIT_DAYS[groups["unit"].lower()]
        if days > 3_650_000 or days <= 0:
            return None
        if kind == "span":  # up to now
            start = _midnight(now - timedelta(days=days)) if days >= 1 else now - timedelta(days)
            return start, now
        share = 1 / 3 if groups.get("hedge") else 1 / 5
        spread = max(1.0, days * share)
        centre = now - timedelta(days=days)
        start = _midnight(centre - timedelta(days=spread))
        end = _midnight(centre + timedelta(days=spread)) + day
        return start, min(end, now)
    if kind == "weekday":
        weekday = _WEEKDAYS[groups["weekday"].lower()]
        back = (now.weekday() - weekday) % 7 or 7
        start = today - back * day
        if match.group(0).lower().startswith("since"):
            return start, now
        return start, start + day
    if kind == "weekend":
        saturday = today - ((now.weekday() - 5) % 7) * day  # the latest Saturday, maybe today
        if groups["which"].lower() == "this":
            return (saturday, now) if now.weekday() >= 5 else None
        if now.weekday() >= 5:
            saturday -= 7 * day
        return saturday, saturday + 2 * day
    if kind in {"period", "earlier_period"}:
        unit = groups["unit"].lower()
        last = kind == "period" and groups["which"].lower() != "this"
        if unit == "week":
            start = today - now.weekday() * day
            if last:
                return start - 7 * day, start
            return start, now
        if unit == "month":
            start = today.replace(day=1)
            if last:
                previous = (start - day).replace(day=1)
                return previous, start
            return start, now
        start = today.replace(month=1, day=1)
        if last:
            return _safe(start.replace, start.year - 1) or start, start
        return start, now
    if kind == "month":
        month = _MONTHS[groups["month"].lower().rstrip(".")]
        which = " ".join(groups["which"].lower().split())
        year = now.year if month <= now.month else now.year - 1
        if which in {"last", "this past"} and month == now.month:
            year -= 1  # "last December" said in December is a year ago
        start = _safe(datetime, year, month, 1, 0, 0, 0, 0, now.tzinfo)
        if start is None:
            return None
        following = _safe(datetime, year + month // 12, month % 12 + 1, 1, 0, 0, 0, 0, now.tzinfo)
        if which == "since":
            return start, now
        return start, min(following or now, now) if start < now else following
    return None


_TRAILING = re.compile(r"\s+(?:from|on|in|during|at|of|since|over|ago)\s*([?.!]*)$", re.I)


def _without(text: str, start: int, end: int) -> str:
    """`text` without the span, its dangling preposition, and with tidy spaces."""
    rest = (text[:start] + " " + text[end:]).strip()
    rest = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", rest))
    rest = _TRAILING.sub(r"\1", rest)
    return rest.strip(" ,")


def read(text: str, now: datetime, zone: tzinfo | None = None) -> TimeRead | None:
    """The first time expression of `text` as a window counted from `now` (in `zone`,
    default `now`'s own), or None when it names none."""
    if not text or not text.strip():
        return None
    if zone is not None:
        now = now.astimezone(zone)
    found = []
    for kind, pattern in _PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.start(), -(match.end() - match.start()), kind, match))
    for _, _, kind, match in sorted(found, key=lambda f: f[:2]):
        try:
            window = _window(kind, match, now)
        except (OverflowError, ValueError):
            window = None
        if window is None or not window[0] < window[1]:
            continue
        said = " ".join(match.group(0).split())
        return TimeRead(window[0], window[1], said, _without(text, match.start(), match.end()))
    return None
