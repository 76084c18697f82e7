"""Take a user's details out of a skill's text before it is stored for every user.

A skill is shared by all users of an agent type, so nothing in it may point at one
person. The model is told not to write personal data; this does not trust it. In order:

1. anything the secret detector flags (core.secrets) -> <secret>;
2. e-mail addresses, URLs and @handles -> <email>, <url>, <handle>;
3. numbers of two digits or more (phone numbers, amounts, ids, dates, times) -> <number>;
4. the contributing users' own terms, in any case: their user names and names, the
   speakers of their turns, the names in their memories' entities (person:sarah_chen,
   place:lisbon) and every capitalised word of their turns -> <name>;
5. any remaining capitalised word inside a sentence (a name or place the model brought)
   -> <name>, except words of the tools' names and of the agent type, acronyms
   (API, SMTP) and the calendar's names (Monday, March).

Over-scrubbing is the safe side: staff see the scrubbed text and the count before they
approve, and a skill reads as well with <name> where a name was.
"""

import re
from collections.abc import Iterable

from core.secrets import mask_secrets

_MARKED = re.compile(r"\[secret masked: [^\]]{1,80}\]")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.I)
_HANDLE = re.compile(r"(?<![\w<])@\w{2,}")
_NUMBER = re.compile(r"\+?\d[\d ().:/,-]*\d")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|[-*•]\s+|\d[.)]\s+|\"|“)$")
CALENDAR = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "i",
}  # fmt: skip
PLACEHOLDERS = {"secret", "email", "url", "handle", "number", "name"}


def words(texts: Iterable[str]) -> set[str]:
    """Every word of `texts`, lower case (tool names split on _ and -)."""
    found: set[str] = set()
    for text in texts:
        for word in _WORD.findall(re.sub(r"[_-]", " ", text or "")):
            found.add(word.lower())
    return found


def capitalised(texts: Iterable[str]) -> set[str]:
    """The capitalised words of `texts` (lower case): a user's names, places, brands. A
    sentence's first word counts too ("Sarah wants the report"): scrubbing a verb that
    began a request ("Forward ...") costs a word, missing a name would leak it."""
    return {
        word.lower()
        for text in texts
        for word in _WORD.findall(text or "")
        if word[0].isupper() and word.lower() not in CALENDAR
    }


class Scrubber:
    """Scrubs texts against one set of personal terms; counts what it replaced."""

    def __init__(self, *, personal: set[str], keep: set[str]) -> None:
        self.keep = {w.lower() for w in keep} | CALENDAR | PLACEHOLDERS
        self.personal = {p.lower() for p in personal if len(p) >= 2} - self.keep
        terms = sorted(self.personal, key=len, reverse=True)
        self._terms = (
            re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, terms)) + r")(?!\w)", re.I)
            if terms
            else None
        )
        self.replaced = 0

    def _sub(self, pattern: re.Pattern, mark: str, text: str) -> str:
        text, count = pattern.subn(mark, text)
        self.replaced += count
        return text

    def text(self, text: str) -> str:
        text, secrets = mask_secrets(text or "")
        self.replaced += secrets
        text = _MARKED.sub("<secret>", text)
        text = self._sub(_EMAIL, "<email>", text)
        text = self._sub(_URL, "<url>", text)
        text = self._sub(_HANDLE, "<handle>", text)
        text = self._sub(_NUMBER, "<number>", text)
        if self._terms is not None:
            text = self._sub(self._terms, "<name>", text)
        return self._proper_nouns(text)

    def _proper_nouns(self, text: str) -> str:
        out, last = [], 0
        for match in _WORD.finditer(text):
            word = match.group(0)
            if (
                word[0].isupper()
                and not word.isupper()  # API, SMTP, GMAIL_SEARCH: acronyms and tool names
                and word.lower() not in self.keep
                and not _SENTENCE_START.search(text[: match.start()])
                and text[match.start() - 1 : match.start()] != "<"
            ):
                out.append(text[last : match.start()] + "<name>")
                last = match.end()
                self.replaced += 1
        out.append(text[last:])
        return "".join(out)

    def items(self, values: Iterable[str]) -> list[str]:
        """A list of names (tools): each scrubbed, empties and repeats dropped."""
        cleaned = [self.text(str(v)).strip() for v in values]
        return list(dict.fromkeys(v for v in cleaned if v))
