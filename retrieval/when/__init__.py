"""Time as people say it: "yesterday", "about a week ago", "in the last 5 days", "in March".

A question placed in time ("What did the dentist say about a week ago?") asks about what
happened then; read as words, "week" and "ago" are one more topic and match nothing.
`read` finds the expression, turns it into a window [from, to) in the person's time zone,
counted from `now`, and gives the question back without it: the window narrows the search
(`memory.recall`, `conversations.search`), the rest is the topic, and the answer says what
was read (`time_read`).

What is read (case does not matter; the patterns are in `_grammar`, the windows in
`_windows`):
- a day: today, yesterday, the day before yesterday, this morning / afternoon / evening,
  tonight, last night, yesterday morning, the night before last ...;
- a moment: just now, a moment ago, N minutes / hours ago (anything since twice as long
  ago: people round), in the last N hours, the last half hour;
- a weekday: (last | on | this past) Tuesday, with a part ("on Monday morning"): its most
  recent day before today; a bare "Tuesday" only in a question of the past;
- a holiday: over Christmas, on New Year's Eve, at Halloween, last Valentine's Day;
- a distance: N days / weeks / months / years ago ("3 days ago", "two weeks back", "a
  week or so ago"), a window around the point (a fifth of the distance either side, whole
  days, at least one day; "about", "around", "or so" widen it to a third); this time last
  year (month, week): the same moment then, give or take a twenty-fourth of it;
- a span up to now: in / over / during the last / past N days (weeks, months, a few
  days), this past week, since Monday, since March, earlier this week, the other day;
  "since" before any of them ("since last week", "since Christmas") reaches up to now;
- a calendar period: this / last / the previous week, month, year, the week (month,
  weekend) before last, last weekend, over the weekend; in March, last March (the most
  recent March that has begun; "in March 2023" is a date, `retrieval.dates`); a season
  (last summer, over the winter: meteorological, six months later south of the equator,
  from the person's time zone); the part of one ("early March", "mid-July", "at the end
  of last month", "at the start of the month": its first, middle or last third);
- a day of the month without a year: on 28 November, Nov 30th, on the 3rd (the latest
  such day; with a year it is a date, `retrieval.dates`).

A weekday, a weekend, a month or a season said without "last" in a question that speaks
of what is to come ("What do I have on Tuesday?") is no window (`_ahead`).

Nothing else: "may", "second", "we" and a bare number are no time (a general date parser
reads "we" and "may" as dates: docs/recall.md says why none is used). At most one
expression is read, the first; dates with a year stay with `retrieval.dates` (a weight,
as before). A window never starts before year 1 or ends after year 9999.
"""

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo

from retrieval import dates
from retrieval.when import _ahead as _coming
from retrieval.when._grammar import PATTERNS
from retrieval.when._windows import window as _window

__all__ = ["TimeRead", "ahead", "read", "recent", "speaks_ahead"]

# Words that ask for the newest of what answers, and name no window: "What did the physio
# say lately?", "the latest on my knee", "last time", "these days". Not "recently": it
# places an event not long ago ("What workshop did Caroline attend recently?"), it does
# not ask for the newest one.
_RECENT = re.compile(
    r"\b(?P<news>the\s+latest(?:\s+(?:news|update))?(?=\s+(?:on|with|about|from|for)\b))|"
    r"\b(?:lately|of\s+late|these\s+days|nowadays|"
    r"(?:the\s+)?last\s+time|latest|most\s+recent)\b",
    re.IGNORECASE,
)


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


_SINCE = re.compile(r"\b(?:ever\s+)?since\s+$", re.IGNORECASE)
_TRAILING = re.compile(r"\s+(?:from|on|in|during|at|of|since|over|ago|for)\s*([?.!]*)$", re.I)


def _without(text: str, start: int, end: int) -> str:
    """`text` without the span, its dangling preposition, and with tidy spaces."""
    rest = (text[:start] + " " + text[end:]).strip()
    rest = re.sub(r"\s+([?.!,])", r"\1", re.sub(r"\s{2,}", " ", rest))
    rest = re.sub(r"[,;:]+([?.!])", r"\1", rest)
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
    for kind, pattern in PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.start(), -(match.end() - match.start()), kind, match))
    for _, _, kind, match in sorted(found, key=lambda f: f[:2]):
        try:
            window = _window(kind, match, now)
        except (OverflowError, ValueError):
            window = None
        if window is None or not window[0] < window[1] or _ahead(kind, match, text):
            continue
        if kind == "bare_weekday" and not _PAST.search(text):  # "What is Tuesday for?"
            continue
        begin = match.start()
        since = _SINCE.search(text[:begin])
        if since or match.group(0).lower().startswith("since"):  # "since last week": up to now
            window, begin = (window[0], now), since.start() if since else begin
        said = " ".join(text[begin : match.end()].split())
        return TimeRead(window[0], window[1], said, _without(text, begin, match.end()))
    return None


# A calendar name said without "last" may be the one to come: "What do I have on Tuesday?",
# "What are we doing at the weekend?", "Where am I going in March?". Read as the one past
# only when the question speaks of the past, or of nothing to come.
_CALENDAR = {"weekday", "bare_weekday", "weekend", "month", "season", "holiday", "day_of_month"}
_PAST_WHICH = re.compile(r"\b(?:last|past|previous|since)\b", re.IGNORECASE)
_PAST = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|went|said|told|got|made|bought|saw|met|"
    r"ate|gave|took|came|began|wrote|paid|left|felt|thought|spent|\w{2,}(?<!e)ed)\b",
    re.IGNORECASE,
)
_TO_COME = re.compile(
    r"\b(?:will|won't|shall|going\s+to|gonna|am|are|is|do|does|have|has|coming|upcoming|"
    r"next|planned|plan|need|must|should)\b|'ll\b|'re\b|'m\b",
    re.IGNORECASE,
)


def _ahead(kind: str, match: re.Match, text: str) -> bool:
    """Whether a calendar name ("on Tuesday", "in March", "at the weekend") is, by the
    question's tense, the one to come: then it names no time past."""
    if kind not in _CALENDAR or _PAST_WHICH.search(match.group(0)):
        return False
    return bool(_TO_COME.search(text)) and not _PAST.search(text)


def recent(text: str) -> tuple[str, str] | None:
    """(the question without its words of recency, those words) when it asks for the
    newest of what answers ("What has the physio said lately?"), else None."""
    match = _RECENT.search(text or "")
    if match is None or dates.mentioned_windows(text):  # "latest project in July 2023"
        return None
    said = " ".join(match.group(0).split())
    if match.group("news"):  # "What's the latest with my knee?" -> "What's new with my knee?"
        return text[: match.start()] + "new" + text[match.end() :], said
    return _without(text, match.start(), match.end()), said


# Expressions of time to come that say so themselves ("tomorrow", "next week", "in three
# days"); the others ("on Tuesday", "in March", "this weekend") only in a question that
# speaks of what is to come.
_SURELY_AHEAD = {"after_tomorrow", "tomorrow", "next_period", "coming", "from_now"}
_NEXT = re.compile(r"^\s*(?:on\s+)?next\b", re.IGNORECASE)


def speaks_ahead(text: str) -> bool:
    """Whether a question speaks of what is to come and of nothing past ("What do I have
    this week?", not "What did I do this week?")."""
    return bool(_TO_COME.search(text or "")) and not _PAST.search(text or "")


def ahead(text: str, now: datetime, zone: tzinfo | None = None) -> TimeRead | None:
    """The first expression of time to come in `text` ("tomorrow", "next week", "on
    Tuesday" asked of what is to come) as a window after `now` (in `zone`), or None. For
    what is due then (`memory.recall`): `read` reads the time past, and is asked first."""
    if not text or not text.strip():
        return None
    if zone is not None:
        now = now.astimezone(zone)
    to_come = speaks_ahead(text)
    found = []
    for kind, pattern in _coming.PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((match.start(), -(match.end() - match.start()), kind, match))
    for _, _, kind, match in sorted(found, key=lambda f: f[:2]):
        if kind not in _SURELY_AHEAD and not to_come and not _NEXT.match(match.group(0)):
            continue
        try:
            window = _coming.window(kind, match, now)
        except (OverflowError, ValueError):
            window = None
        if window is None or not window[0] < window[1]:
            continue
        said = " ".join(match.group(0).split())
        return TimeRead(window[0], window[1], said, _without(text, match.start(), match.end()))
    return None
