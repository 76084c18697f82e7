"""The expressions of time `retrieval.when` reads: one pattern per kind, case ignored.

Each pattern names its parts (`n`, `unit`, `hedge`, `weekday`, `part`, `month`, `season`,
`which`, `pos`); `_windows.window` turns a match into a window. A part of a month, a
season or a calendar period ("early March", "the end of last month", "late last summer")
is read by the pattern of the period with `pos` before it.
"""

import calendar
import re

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45, "forty five": 45,
    "a couple of": 2, "a couple": 2, "couple of": 2, "couple": 2, "a few": 3, "few": 3,
    "several": 4, "a half": 0.5, "half a": 0.5, "half an": 0.5, "half": 0.5,
}  # fmt: skip
UNIT_DAYS = {
    "minute": 1 / 1440, "min": 1 / 1440, "hour": 1 / 24, "hr": 1 / 24, "day": 1, "week": 7,
    "night": 1, "fortnight": 14, "month": 30.44, "year": 365.25,
}  # fmt: skip
WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name and n != 5}
MONTHS["sept"] = 9
PARTS = {  # part of a day: (start hour, end hour; past 24 is the next day)
    "morning": (0, 12), "afternoon": (12, 18), "evening": (17, 24), "night": (18, 30),
    "tonight": (17, 30),
}  # fmt: skip
# Days people name ("over Christmas"): (month, day, days long), by the words they start
# with (lower case, no apostrophes), the longer first.
HOLIDAYS = {
    "christmas eve": (12, 24, 1), "christmas day": (12, 25, 1), "christmas": (12, 24, 3),
    "xmas": (12, 24, 3), "new years eve": (12, 31, 1), "new years day": (1, 1, 1),
    "new year": (12, 31, 2), "halloween": (10, 31, 1), "valentine": (2, 14, 1),
}  # fmt: skip
# The first month of each season where the person lives north of the equator; south of it
# the same names fall six months later.
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

_NUM = r"(?P<n>\d{1,4}|" + "|".join(sorted(map(re.escape, NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>minute|min|hour|hr|day|night|week|fortnight|month|year)s?"
_HEDGE = (
    r"(?P<hedge>(?:about|around|roughly|approximately|some|almost|nearly|maybe|like|"
    r"(?:just\s+|a\s+little\s+|a\s+bit\s+)?(?:over|under)|more\s+than|less\s+than)\s+)?"
)
# Numbers people give loosely, as the range they cover: "a few days ago" may be five, and
# "a couple of weeks ago" is rounded as "about two weeks ago" is.
VAGUE = {
    "a few": (2, 5), "few": (2, 5), "several": (3, 7), "a couple of": (2, 2),
    "a couple": (2, 2), "couple of": (2, 2), "couple": (2, 2),
}  # fmt: skip
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_PART = r"(?P<part>morning|afternoon|evening|night)"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)(?:\s+(?:holidays?|break|vacation))?"
# Which part of a period: "early March", "the end of last month", "mid-July".
_POS = (
    r"(?:(?:in|at|by|around|towards?|from)\s+)?(?:the\s+)?"
    r"(?P<pos>early|mid|middle\s+of|late|start\s+of|beginning\s+of|end\s+of)[\s-]+"
)
# A month, a season or a year named with a date after it is an absolute date
# (`retrieval.dates`): "in March 2023", "the summer of 2019".
_NO_DATE_AFTER = r"(?!\s*,?\s*(?:\d|of\s+\d))"
_NO_YEAR = r"(?!\s*,?\s*\d)"
_MONTH2 = _MONTH.replace("<month>", "<month2>")  # a pattern names each group once
# What "the 3rd" counts when it is no day: "on the 3rd floor", "on the 2nd attempt".
_NOT_A_DAY = (
    r"(?:of|floor|place|time|attempt|try|round|page|line|step|row|grade|level|quarter|day|"
    r"week|month|year|person|one|edition|lap|set|go)\b"
)


def compiled(patterns: list[tuple[str, str]]) -> list[tuple[str, re.Pattern]]:
    """Each (kind, pattern) compiled as a whole-word, case-blind expression."""
    return [(kind, re.compile(rf"\b{pattern}\b", re.IGNORECASE)) for kind, pattern in patterns]


PATTERNS: list[tuple[str, re.Pattern]] = compiled(
    [
        ("before_yesterday", r"(?:on\s+)?the\s+day\s+before\s+yesterday"),
        ("before_last", r"the\s+(?P<unit>night|week|weekend|month|year)\s+before\s+last"),
        ("yesterday_part", rf"yesterday(?:'s)?\s+{_PART}"),
        ("yesterday", r"yesterday"),
        ("last_night", r"last\s+night"),
        ("today_part", rf"(?:earlier\s+)?this\s+{_PART}|(?P<tonight>tonight)"),
        ("today", r"(?:earlier\s+)?today"),
        ("just_now", r"just\s+now|(?:a\s+)?(?:moment|second|minute)s?\s+ago"),
        ("other_day", r"the\s+other\s+day"),
        (  # "this time last year": the same moment a week, month or year ago
            "same_time",
            r"(?:(?:around|about|at)\s+)?this\s+time\s+(?:last\s+(?P<unit>week|month|year)|"
            r"a\s+(?P<unit_ago>week|month|year)\s+ago)",
        ),
        (
            "span",
            rf"(?:in|over|during|within|for)?\s*(?:the|this)\s+(?:last|past)\s+{_HEDGE}"
            rf"(?:{_NUM}\s+)?{_UNIT}",
        ),
        (
            "ago",
            rf"{_HEDGE}{_NUM}(?:\s*(?:or|to|-)\s*{_NUM.replace('<n>', '<far>')})?\s+{_UNIT}"
            rf"(?P<half>\s+and\s+a\s+half)?"
            rf"(?:\s+or\s+(?:(?P<or_so>so)|{_NUM.replace('<n>', '<or_far>')}))?"
            r"\s+(?:ago|back|earlier)",
        ),
        (
            "weekday",
            rf"(?:since(?:\s+last)?|(?:on\s+)?last|this\s+past|on)\s+{_WEEKDAY}"
            rf"(?:\s+{_PART})?(?:\s+just\s+gone)?",
        ),
        (  # "What did I eat Tuesday?": read only in a question of the past (`read`)
            "bare_weekday",
            rf"(?<!every\s)(?<!each\s)(?<!next\s)(?<!this\s){_WEEKDAY}(?:\s+{_PART})?",
        ),
        (
            "holiday",
            r"(?:(?P<which>last|this\s+past)\s+|(?:at|over|on|during|around|for|since)\s+)"
            r"(?P<holiday>christmas(?:\s+(?:eve|day))?|xmas|new\s+year(?:['’]?s)?(?:\s+(?:eve|day))?|"
            r"halloween|valentine(?:['’]?s)?(?:\s+day)?)",
        ),
        (
            "weekend",
            r"(?P<which>last|this|past|over\s+the|at\s+the|on\s+the|during\s+the)\s+weekend",
        ),
        (  # "on 28 November", "Nov 30th", "on the 3rd": the latest such day; with a year,
            # a date (`retrieval.dates`)
            "day_of_month",
            rf"(?:(?:on\s+)?(?:the\s+)?(?P<dom>[0-3]?\d)(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH}"
            rf"{_NO_YEAR}|(?:on\s+)?{_MONTH2}\s+(?:the\s+)?(?P<dom2>[0-3]?\d)(?:st|nd|rd|th)?"
            rf"(?!\d){_NO_YEAR}|on\s+the\s+(?P<dom3>[0-3]?\d)(?:st|nd|rd|th)(?!\w|\s+{_NOT_A_DAY}))",
        ),
        (
            "pos_period",
            rf"{_POS}the\s+(?P<unit>week|month|year)",
        ),
        (
            "period",
            rf"(?:{_POS})?(?:the\s+)?(?P<which>this|last|past|previous)\s+(?P<unit>week|month|year)",
        ),
        ("earlier_period", r"earlier\s+this\s+(?P<unit>week|month|year)"),
        (
            "month",
            rf"(?:(?:back\s+)?(?P<which>in|during|last|since|this|this\s+past)\s+|{_POS})"
            rf"(?:(?P<which2>last|this)\s+)?{_MONTH}{_NO_DATE_AFTER}",
        ),
        (
            "season",
            rf"(?:(?:back\s+)?(?P<which>in|during|over|last|this|this\s+past)\s+(?:the\s+)?|{_POS})"
            rf"(?:(?P<which2>last|this)\s+)?{_SEASON}{_NO_DATE_AFTER}",
        ),
    ]
)
