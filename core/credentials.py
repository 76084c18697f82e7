"""Credentials people say in words: door and alarm codes, passphrases, login pairs,
one-time codes and national id numbers (the machine-made shapes are in core.secrets).

Each rule is one shape: a subject ("the garage door code", "my SSN", "login for the
bank"), a joint of a few words ("is", "for grandma's house is", ":", "changed to"), then
a value of the subject's kind (digits for a code, words for a passphrase, "user /
password" for a login). The subject alone never matches, and neither does a value that
the joint does not tie to it: "the door code changed on 2024-05-01", "the meeting code
is in the invite" and "My SSN card came" stay ordinary text. tests/core/test_credentials.py
holds the table of both sides.
"""

import re
from collections.abc import Callable
from typing import NamedTuple

Check = Callable[[re.Match], bool] | None


class Rule(NamedTuple):
    """One shape of secret: what it is, its pattern (group "value", when present, is the
    part masked; otherwise the whole match is) and an optional check of the match."""

    kind: str
    pattern: re.Pattern
    check: Check = None


# Between the subject and its value: "for the front door", "from the bank", then
# "is", "was", ":", "=", "->", "changed to", "is now" (a few, in any order).
_JOINT = (
    r"(?:\s+(?i:for|from|of|to|on|at|sent\s+(?:by|to))\s+[^\n\d:=.,;!?]{1,30}?)?"
    r"\s*(?:(?i:is|was|are|were|now|still|changed\s+to|set\s+to|reads|will\s+be|became|"
    r"er|var|är|ist|est|es)"
    r"\s*|[:=\-]+\s*|->\s*|=>\s*){0,3}"
)
_NOT_AFTER_NUMBER = (  # a number with a unit is a measure, not a code
    r"(?![\d:/.,]?\d)(?!\s?(?i:am|pm|%|km|kg|cm|mm|m|min|h|hours|days|weeks|years|metres|"
    r"meters|feet|ft|steps|kr|nok|sek|dkk|eur|usd|euros?|dollars?|kroner|people|times|percent)\b)"
)
_DATE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}")


def _is_date(text: str) -> bool:
    """2024-05-01, 12/03/2024, 1.5.24: a calendar date, not "12-34-56"."""
    found = _DATE.fullmatch(text.strip())
    if not found:
        return False
    parts = [int(p) for p in re.split(r"[-./]", found.group(0))]
    if len(str(parts[0])) == 4 or found.group(0)[:4].isdigit():
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    first, second = parts[0], parts[1]
    return (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)


def _not_a_date(match: re.Match) -> bool:
    return not _is_date(match.group("value"))


def _subject(words: str) -> str:
    return rf"(?i:\b(?:{words})\b)"


# A code of 3 to 10 digits, grouped by spaces, dashes or dots, with # or * around it.
_DIGITS = r"(?<![\w.\-])(?P<value>[#*]?\d(?:[ \-.]?\d){2,9}[#*]?)" + _NOT_AFTER_NUMBER

_DOOR = _subject(
    r"(?:door|garage|gate|alarm|keypad|lockbox|key\s?box|key\s?safe|lock|locker|padlock|"
    r"safe|entry|entrance|intercom|buzzer|access|alarm\s+system|security\s+system)"
    r"\s*[:,]?\s+(?:code|combination|combo|pin)s?"
    r"|(?:code|combination|combo)\s+(?:for|to|of)\s+"
    r"(?:(?:get\s+into|get\s+in\s+to|open|enter|unlock)\s+)?(?:the\s+|my\s+|our\s+)?"
    r"(?:[\w']+\s+)?(?:door|garage|gate|alarm|safe|lock|locker|lockbox|building|house|"
    r"flat|apartment|office|shed|storage)"
    # a lock box's value is its code: "Lockbox at the cabin: 0417"
    r"|lock\s?box|key\s?box|key\s?safe"
)
_ONE_TIME = _subject(
    r"(?:verification|one[\s-]?time|otp|2fa|mfa|two[\s-]factor|tfa|authentication|"
    r"authenticator|auth|login|log-?in|sign[\s-]?in|security|recovery|backup|reset|"
    r"activation|confirmation\s+pin|sms|text)\s+(?:pass)?codes?|one[\s-]time\s+passwords?|"
    r"otp|totp"
)
_PASSPHRASE = _subject(
    r"pass[\s-]?phrases?|(?:seed|recovery|secret|mnemonic|backup)\s+(?:phrase|words)|"
    r"mnemonic|wallet\s+words"
)
_PASSWORD = _subject(r"password|passwd|pwd")
# A passphrase value: three or more words up to the end of the sentence.
_WORDS = r"(?P<value>[\w'!@#$%^&*+\-]+(?:[ \t]+[\w'!@#$%^&*+\-]+){2,23})"
# Words a sentence about a passphrase uses ("the passphrase is stored in the vault"):
# a generated phrase ("correct horse battery staple") has none of the first kind.
_SENTENCE_WORDS = {
    "in", "on", "at", "the", "a", "an", "my", "our", "your", "his", "her", "their", "its",
    "this", "that", "with", "for", "to", "of", "and", "or", "as", "is", "was", "be", "been",
    "being", "very", "quite", "too", "not", "no", "now", "just", "still", "also", "only",
    "what", "where", "how", "some", "any", "all", "same", "so", "it", "i", "me", "we",
    "you", "than", "then", "but", "if", "by", "from", "enough", "again", "there", "here",
}  # fmt: skip
_STATE_WORDS = {
    "stored", "saved", "kept", "written", "somewhere", "something", "secret", "hidden",
    "long", "short", "different", "known", "shared", "sent", "printed", "inside", "under",
    "easy", "hard", "simple", "used", "set", "needed", "required", "changed", "reset",
    "forgotten", "expired", "wrong", "correct", "strong", "weak", "secure", "lost", "new",
    "old", "case", "probably", "one", "another", "unknown", "missing", "invalid",
}  # fmt: skip


def _no_sentence_words(match: re.Match) -> bool:
    words = [w.strip("'!") for w in match.group("value").lower().split()]
    return len(words) <= 12 and not any(w in _SENTENCE_WORDS for w in words)


def _passphrase(match: re.Match) -> bool:
    """After "passphrase is": words that do not start a sentence about it, or words with
    none a sentence needs ("correct horse battery staple")."""
    first = match.group("value").lower().split()[0]
    if _DATE.search(match.group("value")):
        return False
    return first not in _SENTENCE_WORDS | _STATE_WORDS or _no_sentence_words(match)


_LOGIN = _subject(
    r"log-?ins?|sign[\s-]?ins?|credentials?|user(?:name)?\s*(?:and|&|/)\s*pass(?:word)?|"
    r"account\s+details"
)
_PAIR = (
    r"(?P<value>(?P<user>[\w.@+\-]{2,100})\s*(?:/|\||:|,\s*(?i:password|pw)?:?)\s*"
    r"(?P<secret>[^\s,;]{4,100}))"
)


def _login_pair(match: re.Match) -> bool:
    user, secret = match.group("user"), match.group("secret").rstrip(".)")
    if not re.search(r"[A-Za-z]", user) or not re.search(r"[A-Za-z]", secret):
        return False
    if secret.startswith(("http", "www.", "/")) or _is_date(secret):
        return False
    return bool(re.search(r"[^A-Za-z]", secret) or secret != secret.lower() != secret.upper())


_NATIONAL_ID = (
    r"(?:\b(?:SSN|SIN|NINO?|TIN|BSN)\b|"
    + _subject(
        r"social\s+security(?:\s+(?:number|no\.?|#))?|social\s+insurance\s+number|"
        r"national\s+(?:id(?:entity)?|identification|insurance)(?:\s+(?:number|no\.?|#))?|"
        r"personnummer|personal\s+(?:id(?:entity)?\s+)?number|f[øo]dselsnummer|"
        r"henkil[öo]tunnus|tax\s+(?:id(?:entification)?|identification)\s+(?:number|no\.?)|"
        r"aadhaar(?:\s+number)?|passport\s+(?:number|no\.?|#)|id[\s-]card\s+number|"
        r"driver'?s\s+licen[cs]e\s+(?:number|no\.?)"
    )
    + ")"
)
_ID_VALUE = r"(?<![\w\-])(?P<value>[A-Z0-9](?:[ \-.]?[A-Z0-9]){4,19})(?![\w\-])"


def _id_number(match: re.Match) -> bool:
    value = match.group("value")
    return len(re.findall(r"\d", value)) >= 6 and _not_a_date(match)


_NOT_AN_ID_BEFORE = re.compile(
    r"(?i:phone|tel|fax|mobile|cell|call|order|invoice|ticket|case|ref(?:erence)?|part|"
    r"model|serial|tracking|isbn)\b\W*(?:\w+\W+){0,2}$"
)


def _us_ssn(match: re.Match) -> bool:
    """123-45-6789 in the ranges the US hands out, unless the words before say it is a
    phone, order or part number."""
    if _NOT_AN_ID_BEFORE.search(match.string[max(0, match.start() - 40) : match.start()]):
        return False
    area, group, serial = match.group("value").split("-")
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


# A one-time code with a letter prefix ("G-482913"), or before what it is for ("Use code
# 482913 to sign in", "482913 is your verification code").
_OTP_VALUE = r"(?<![\w\-])(?P<value>(?:[A-Z]{1,3}-)?\d(?:[ \-]?\d){3,9})" + _NOT_AFTER_NUMBER
_OTP_BEFORE_USE = (
    r"\b(?i:code)\s+" + _OTP_VALUE + r"\s+(?i:to\s+(?:sign|log)\s*(?:in|on)|to\s+verify|"
    r"to\s+confirm|to\s+reset|to\s+activate)\b"
)
_OTP_IS_YOUR = (  # an SMS's digits are contiguous: cheap to try at every number
    r"(?<![\w\-])(?P<value>\d{4,10})\s+(?i:is\s+your\s+(?:[\w-]+\s+){0,3}?"
    r"(?:code|otp|passcode|pin))\b"
)
# "user: alex pass: Sommer2026!": the password after a user name, under a short word.
_USER_THEN_PASS = (
    r"\b(?i:user(?:name)?|login|e-?mail)\s*[:=]\s*[^\s,;]{2,100}[,;]?\s+"
    r"(?i:pass|pw|pwd|pin)\s*[:=]\s*(?P<secret>(?P<value>[^\s,;]{4,100}))"
)


RULES: list[Rule] = [
    Rule("a door or alarm code", re.compile(_DOOR + _JOINT + _DIGITS), _not_a_date),
    Rule("a one-time code", re.compile(_ONE_TIME + _JOINT + _DIGITS), _not_a_date),
    Rule(
        "a one-time code",  # recovery codes: "abcd-efgh-2345", "8F3K-2M9Q"
        re.compile(
            _ONE_TIME
            + _JOINT
            + r"(?<![\w\-])(?P<value>[A-Za-z0-9]{4,5}(?:-[A-Za-z0-9]{4,5}){1,4})(?![\w\-])"
        ),
        lambda m: bool(re.search(r"\d", m.group("value"))) and _not_a_date(m),
    ),
    Rule("a one-time code", re.compile(_ONE_TIME + _JOINT + _OTP_VALUE), _not_a_date),
    Rule("a one-time code", re.compile(_OTP_BEFORE_USE)),
    Rule("a one-time code", re.compile(_OTP_IS_YOUR)),
    Rule("a passphrase", re.compile(_PASSPHRASE + _JOINT + _WORDS), _passphrase),
    Rule(
        "a passphrase",
        re.compile(
            _PASSWORD + r"\s*(?:(?i:is|was|:|=)\s*){1,2}(?P<value>[a-z]+(?:[ \t]+[a-z]+){2,7})"
        ),
        _no_sentence_words,
    ),
    Rule(
        "a login and password",
        re.compile(_LOGIN + r"[^\n:=]{0,40}?(?:[:=]|\b(?i:is|was)\b)\s*" + _PAIR),
        _login_pair,
    ),
    Rule(
        "a login and password",
        re.compile(_USER_THEN_PASS),
        lambda m: bool(re.search(r"[^A-Za-z]", m.group("value")) or not m.group("value").islower()),
    ),
    Rule(
        "a national id number",
        re.compile(r"(?<![\d\-])(?P<value>\d{3}-\d{2}-\d{4})(?![\d\-])"),
        _us_ssn,
    ),
    Rule(
        "a national id number",
        re.compile(r"\b[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
    ),
    Rule("a national id number", re.compile(_NATIONAL_ID + _JOINT + _ID_VALUE), _id_number),
]
