"""Take every detail that points at a person out of a skill's text before it is shared.

A skill is shared by all users of an agent type, so nothing in it may point at one
person. The model is told not to write personal data; this does not trust it. A text is
first normalised (skills/normalise.py: compatibility forms, invisible characters,
look-alike letters, spelled-out words), then:

1. anything the secret detector flags (core.secrets) -> <secret>;
2. e-mail addresses, also written out (`jo dot doe at gmail dot com`, `jo [at] acme`) or
   without a top-level domain, URLs, domain names and @handles -> <email>, <url>,
   <handle>;
3. numbers (phone numbers, amounts, ids, dates, times): a run of two digits or more, of
   three number words or digits (`nine one two`, `null eins zwei`, skills/allowed.py
   NUMBER_WORDS), or three digits inside a word -> <number>; a what3words address
   (`///filled.count.soap`) -> <address>;
4. the personal terms (skills/personal.py: what the contributors' data names, matched in
   any case, inside tool names and joined words too) -> <name>; a term that is also a
   general word (`rose`, `will`, `baker`: skills/words.py) only where it is written as a
   name, a word or a part of one joined by - _ ' in title case or capitals ("Rose",
   "ROSE's"), never in lower case or inside a longer word ("roses", "PaymentMethod");
5. whatever else looks like a name -> <name>: a capitalised word, or one in capitals,
   that is not on the short allow-list (skills/allowed.py), not a word of the agent type
   or of a tool's name, not a calendar name, and not general words joined in camelCase
   ("PaymentMethod") none of which the person's data uses as a name. Inside a sentence
   only the calendar, the providers', the type's and the tools' words are kept; where a
   sentence begins and in capitals, also every general word ("Refunds get ...", "NEVER":
   a name that is also a general word is step 4's, when the person's data names someone
   by it) and a word the same skill writes in lower case ("Newsletters ..." in a skill
   about "old newsletters": a lower-case word is either ordinary or already caught as
   personal);
6. and then the allow-list: a word that is not known to be general (skills/words.py),
   one of the type's or its tools' words, or taught by enough people of the type, becomes
   a placeholder of its kind, whatever its script or case: <name> for words (`王小明`,
   `Петровой`), <number> for Chinese numerals and codes of letters and digits (`2AA`).
   Steps 4 and 5 are the block-list kept as a second net for names that are common words.

Over-scrubbing is the safe side: staff see the scrubbed text and the count before they
approve, and a skill reads as well with <name> where a name was.
"""

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from core.secrets import mask_secrets
from skills.allowed import ALLOWED, CALENDAR, CJK_NUMERALS, NUMBER_WORDS, PROVIDERS
from skills.normalise import normalise
from skills.words import is_general, word_digest

PLACEHOLDERS = frozenset({"secret", "email", "url", "handle", "number", "name", "address"})
SUBSTRING_MIN = 6  # a personal term this long is found inside longer words too
_MARKED = re.compile(r"\[secret masked: [^\]]{1,80}\]")
# Every pattern starts where a word starts and bounds its parts (an address's local part
# and labels are at most 64 and 63 long), so a long run of letters costs linear time.
_LABEL = r"[^\W_][\w+-]{0,63}"
_AT = r"(?:\s{0,3}[\[({<]\s{0,3}at\s{0,3}[\])}>]\s{0,3}|\s{1,3}at\s{1,3})"
_DOT = r"(?:\s{0,3}[\[({<]\s{0,3}dot\s{0,3}[\])}>]\s{0,3}|\s{1,3}dot\s{1,3}|\.)"
EMAIL = re.compile(
    r"(?<![\w.+-])(?P<local>[\w.+-]{1,64})(?:@| @ )(?P<domain>[\w-]{1,63}(?:\.[\w-]{1,63}){0,8})"
)
SPELLED_EMAIL = re.compile(
    rf"(?i)(?<![\w+-])(?P<local>{_LABEL}(?:{_DOT}{_LABEL}){{0,8}})"
    rf"{_AT}(?P<domain>{_LABEL}(?:{_DOT}{_LABEL}){{0,8}})"
)
URL = re.compile(r"(?i)(?<![\w+.-])(?:[a-z][a-z0-9+.-]{0,30}://|www\.)(?P<host>[^\s/:?#]*)\S*")
_TLDS = (
    "com|org|net|edu|gov|mil|int|info|biz|io|co|ai|app|dev|me|us|uk|de|fr|es|it|nl|be|ch|"
    "at|se|no|dk|fi|pl|pt|ie|eu|ru|cn|jp|kr|in|br|au|ca|nz|mx|ar|za|tv|xyz|online|site|cloud"
)
_DOMAIN = re.compile(
    rf"(?i)(?<![\w.@<-])(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.){{1,8}}(?:{_TLDS})\b"
)
HANDLE = re.compile(r"(?<![\w<])@(?P<handle>\w{2,})")
_NUMBER_WORDS = (
    "zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    "seventy|eighty|ninety|hundred|thousand|million|double|triple|plus|"
    + "|".join(sorted({re.escape(w) for w in NUMBER_WORDS}, key=len, reverse=True))
)
_NUMERAL = rf"(?:\d+|(?<![^\W\d_])(?:{_NUMBER_WORDS})(?![^\W\d_]))"
_NUMBER = re.compile(rf"(?i)(?<![^\W\d])\+?{_NUMERAL}(?:[^\w\n<]{{0,3}}{_NUMERAL})*")
_DIGITS = re.compile(r"\d{3,}")
# A what3words address (`///filled.count.soap`): three words joined by dots.
_THREE_WORDS = re.compile(r"(?:///)?(?<![\w.])[^\W\d_]{2,}(?:\.[^\W\d_]{2,}){2}(?!\.?\w)")
_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)", re.IGNORECASE)
_RUN = re.compile(r"<(name|number)>(?:[ \t\-]*<\1>)+")
# Combining marks (Thai and Devanagari vowel signs) belong to the word they sit on.
_MARKS = re.escape(
    "".join(chr(c) for c in range(0x300, 0x10000) if unicodedata.category(chr(c))[0] == "M")
)
_TOKEN = re.compile(rf"[^\W\d_][\w'’{_MARKS}-]*|\d[\w'’{_MARKS}-]*[^\W\d_][\w'’{_MARKS}-]*")
_PART = re.compile(rf"[^\W\d_](?:[^\W\d_]|[{_MARKS}])*|\d+")
_OPENERS = tuple(".!?:;\n\"“”‘’'«»([{>→-–—*•)")
_SEGMENT = re.compile(r"[^\-_'’]+")
_CONTRACTION = re.compile(r"(?i)(?:['’](?:s|m|re|ve|ll|d|t)|n['’]t)$")
_LEET = str.maketrans("013457@$", "oieastas")
_SPELLED_FOR_SURE = re.compile(r"(?i)\bdot\b|[\[({<]\s*at\s*[\])}>]|\w\.\w")


def tokens(text: str) -> Iterable[re.Match]:
    """The words of `text` (tool names and words joined by _ - ' are one token each)."""
    return _TOKEN.finditer(text)


def parts(token: str) -> list[tuple[int, int]]:
    """(start, end) of the pieces of a token: split at _ - ' and digits, and camelCase."""
    spans: list[tuple[int, int]] = []
    for piece in _PART.finditer(token):
        start = piece.start()
        text = piece.group(0)
        for i in range(1, len(text)):
            upper_after_lower = text[i].isupper() and text[i - 1].islower()
            acronym_end = (
                text[i].islower() and text[i - 1].isupper() and i >= 2 and text[i - 2].isupper()
            )
            if upper_after_lower:
                spans.append((start, piece.start() + i))
                start = piece.start() + i
            elif acronym_end:
                spans.append((start, piece.start() + i - 1))
                start = piece.start() + i - 1
        spans.append((start, piece.end()))
    return spans


def words(texts: Iterable[str]) -> set[str]:
    """Every word piece of `texts`, lower case (tool names split on _ - and camelCase)."""
    found: set[str] = set()
    for text in texts:
        for token in tokens(normalise(text or "")):
            word = token.group(0)
            found.update(word[a:b].lower() for a, b in parts(word) if not word[a:b].isdigit())
    return found


@dataclass
class Terms:
    """What points at the contributing people. `strong`: their own names and what their
    data names outright (always personal); `weak`: what looks like a name in their
    sessions (personal unless the agent type shares the word, skills/personal.py)."""

    strong: set[str] = field(default_factory=set)
    weak: set[str] = field(default_factory=set)

    def __or__(self, other: "Terms") -> "Terms":
        return Terms(self.strong | other.strong, self.weak | other.weak)


class Scrubber:
    """Scrubs texts against one set of personal terms; counts what it replaced.

    `shared`: words the agent type shares (its name and description, tool names other
    users' agents of the type use too); `tools`: the words of the session's tool names
    and their parameters, kept unless they are personal; `taught`: digests
    (skills.words.word_digest) of the words enough people of the type taught it."""

    def __init__(
        self,
        *,
        terms: Terms,
        shared: set[str],
        tools: set[str] = frozenset(),
        taught: frozenset[str] = frozenset(),
    ) -> None:
        shared = {w.lower() for w in shared}
        self.taught = taught
        strong = {w.lower() for w in terms.strong}
        weak = {w.lower() for w in terms.weak} - ALLOWED - shared
        weak = {w for w in weak if not (taught and word_digest(w) in taught)}
        found = {w for w in strong | weak if len(w) >= 2} - PLACEHOLDERS
        # A name that is also a general word ("rose", "will", "baker") is one only where
        # a skill writes it as a name; "roses", "PaymentMethod", "it will" are words.
        self.common_names = {w for w in found if is_general(w)}
        self.personal = found - self.common_names
        self.vocabulary = (shared | {w.lower() for w in tools}) - self.personal
        long = sorted((w for w in self.personal if len(w) >= SUBSTRING_MIN), key=len, reverse=True)
        self._inside = re.compile("|".join(map(re.escape, long))) if long else None
        self._lower_case: set[str] = set()  # words the skill at hand writes in lower case
        self.replaced = 0

    def _sub(
        self, pattern: re.Pattern, mark: str, text: str, check: Callable[[str], bool] | None = None
    ) -> str:
        def replace(match: re.Match) -> str:
            if check is not None and not check(match.group(0)):
                return match.group(0)
            self.replaced += 1
            return mark

        return pattern.sub(replace, text)

    def text(self, text: str) -> str:
        """`text` normalised, with everything that points at a person replaced."""
        text, secrets = mask_secrets(normalise(text or ""))
        self.replaced += secrets
        text = _MARKED.sub("<secret>", text)
        text = self._sub(URL, "<url>", text)
        text = self._sub(EMAIL, "<email>", text)
        text = self._sub(SPELLED_EMAIL, "<email>", text, check=spelled_email)
        text = self._sub(_DOMAIN, "<url>", text)
        text = self._sub(HANDLE, "<handle>", text)
        text = self._sub(_NUMBER, "<number>", text, check=_number)
        text = self._sub(_DIGITS, "<number>", text)
        text = self._sub(_THREE_WORDS, "<address>", text, check=self._three_words)
        return _RUN.sub(r"<\1>", self._words(text))

    def skill(self, fields: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """A skill's fields scrubbed (texts as texts, lists as names, other values as they
        are), and how many details its `trigger` held."""
        texts = [v for v in fields.values() if isinstance(v, str)]
        texts += [str(i) for v in fields.values() if isinstance(v, list) for i in v]
        self._lower_case = {
            t.group(0) for text in texts for t in tokens(normalise(text)) if t.group(0).islower()
        }
        before = self.replaced
        out = {"trigger": self.text(str(fields.get("trigger") or ""))}
        in_trigger = self.replaced - before
        for name, value in fields.items():
            if name != "trigger":
                out[name] = (
                    self.text(value)
                    if isinstance(value, str)
                    else self.items(value)
                    if isinstance(value, list)
                    else value
                )
        self._lower_case = set()
        return out, in_trigger

    def items(self, values: Iterable[str]) -> list[str]:
        """A list of names (tools): each scrubbed, empties and repeats dropped."""
        cleaned = [self.text(str(v)).strip() for v in values]
        return list(dict.fromkeys(v for v in cleaned if v))

    def is_personal(self, word: str) -> bool:
        """Whether one word piece is, or holds, a personal term."""
        lower = word.lower()
        if lower in PLACEHOLDERS:
            return False
        if lower in self.personal or (
            not lower.isalpha() and lower.translate(_LEET) in self.personal
        ):
            return True
        return self._inside is not None and self._inside.search(lower) is not None

    def _words(self, text: str) -> str:
        out, last = [], 0
        for match in tokens(text):
            if text[match.start() - 1 : match.start()] == "<" and match.group(0) in PLACEHOLDERS:
                continue
            new = self._token(match.group(0), starts_sentence(text, match.start()))
            if new != match.group(0):
                out.append(text[last : match.start()] + new)
                last = match.end()
        out.append(text[last:])
        return "".join(out)

    def _compound(self, lower: str) -> bool:
        """Two personal terms written as one word (`sarahchen`)."""
        return any(
            lower[:i] in self.personal and lower[i:] in self.personal
            for i in range(2, len(lower) - 1)
        )

    def _token(self, token: str, starts_sentence: bool) -> str:
        spans = parts(token)
        personal = [(a, b) for a, b in spans if self.is_personal(token[a:b])]
        joined = re.sub(r"[\W_]", "", token).lower()
        if not personal and (self.is_personal(joined) or self._compound(joined)):
            personal = [(0, len(token))]
        personal = personal or self._named(token)
        if personal:
            self.replaced += len(personal)
            for a, b in reversed(personal):
                token = token[:a] + "<name>" + token[b:]
            return re.sub(r"(?:<name>)+", "<name>", token)
        if self._looks_like_a_name(token, starts_sentence):
            self.replaced += 1
            return "<name>"
        return self._unknown_out(token)

    def _named(self, token: str) -> list[tuple[int, int]]:
        """(start, end) of the parts of `token` (split at - _ ') that are a name of
        `common_names` written as a name: "Rose", "ROSE", "Rose's", "Rose-Marie"; a tool's
        word in capitals ("GRANT_ACCESS") is the tool's."""
        found = []
        for part in _SEGMENT.finditer(token):
            text = part.group(0)
            title = text[0].isupper() and text[1:] == text[1:].lower()
            capitals = text.isupper() and len(text) > 1
            lower = text.lower()
            word = lower if lower.isalpha() else lower.translate(_LEET)
            if word in self.common_names and (title or (capitals and word not in self.vocabulary)):
                found.append(part.span())
        return found

    def known(self, word: str) -> bool:
        """Whether a word may reach other people: a general word (skills/words.py), one
        of the type's or the tools' words, taught by enough people, or one letter."""
        lower = word.lower()
        return (
            is_general(lower)
            or lower in self.vocabulary
            or lower in PLACEHOLDERS
            or (len(lower) == 1 and lower.isascii())
            or bool(self.taught and word_digest(lower) in self.taught)
        )

    def _unknown_out(self, token: str) -> str:
        """`token` with every piece not known to be general replaced by a placeholder of
        its kind: a word -> <name>, numerals -> <number>; a code of letters and digits
        (`2AA`, `SW1A`) that is not a tool's -> <number> whole."""
        core = _CONTRACTION.sub("", token)
        if self.known(core) or _ORDINAL.fullmatch(core):
            return token
        if any(c.isdigit() for c in core):
            self.replaced += 1
            return "<number>" + token[len(core) :]
        unknown = [(a, b) for a, b in parts(core) if not self.known(core[a:b])]
        self.replaced += len(unknown)
        for a, b in reversed(unknown):
            numerals = all(c in CJK_NUMERALS for c in core[a:b])
            token = token[:a] + ("<number>" if numerals else "<name>") + token[b:]
        return _RUN.sub(r"<\1>", token)

    def _three_words(self, found: str) -> bool:
        """A what3words address, not a dotted tool or file name the type knows."""
        return found.startswith("///") or not all(
            w.lower() in self.vocabulary for w in found.split(".")
        )

    def _looks_like_a_name(self, token: str, starts_sentence: bool) -> bool:
        core = _CONTRACTION.sub("", token)
        if not any(c.isupper() for c in core) or (core.isalpha() and len(core) < 2):
            return False
        lower = core.lower()
        if lower in self.vocabulary or (starts_sentence and lower in self._lower_case):
            return False
        pieces = [core[a:b].lower() for a, b in parts(core) if not core[a:b].isdigit()]
        if _identifier(core, pieces) and not self.common_names.intersection(pieces):
            return False
        if starts_sentence or not any(c.islower() for c in core):
            # A general word starting a sentence or in capitals is the word ("Refunds
            # get ...", "NEVER"); one the person's data names someone by is step 4's.
            return not all(is_general(p) or p in self.vocabulary for p in pieces)
        return not all(p in CALENDAR or p in PROVIDERS or p in self.vocabulary for p in pieces)


def _identifier(core: str, pieces: list[str]) -> bool:
    """General words joined in camelCase ("PaymentMethod", "sendInvoice"): a name in
    code, not a person's."""
    return len(pieces) > 1 and core.isalpha() and all(is_general(p) for p in pieces)


def starts_sentence(text: str, start: int) -> bool:
    """Whether a word at `start` begins a text, sentence, line, list entry, quote or
    bracket (a capitalised common word there is not a name)."""
    before = text[:start].rstrip(" \t")
    return not before or before.endswith(_OPENERS)


def spelled_email(found: str) -> bool:
    """A written-out address says `dot` or brackets its `at`, or has a dotted part:
    `look at the inbox` is not one."""
    return bool(_SPELLED_FOR_SURE.search(found))


def _number(found: str) -> bool:
    """Two digits or more, or three numerals (`nine one two`): `one tool` stays."""
    digits = sum(c.isdigit() for c in found)
    numerals = len(re.findall(rf"(?i){_NUMERAL}", found))
    return digits >= 2 or numerals >= 3
