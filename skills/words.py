"""The general words: English words a skill may keep because they are known not to point
at anyone.

Built once per process from two data packages: `wordfreq` (the COMMON most frequent
English words) and `english-words` (Webster's Second International, `web2`, whose entries
keep their case: a word it lists only capitalised is a proper noun). A frequent word is
general when the dictionary lists it, or the word it inflects (`contacts`, `applied`,
`running`), in lower case; so `john`, `london` and `garcia` are not, while `send`,
`landlord` and `soap` are. To these come the short hand-kept lists of skills/allowed.py
(function words, acronyms, the calendar, the mail providers, today's words the old
dictionary lacks: `newsletter`, `spreadsheet`).

Some names are also common words (`mark`, `rose`, `wang`): the block-list of the
person's own terms (skills/personal.py) and the capitalised-word rule (skills/scrub.py)
are the second net for those.
"""

import hashlib
import hmac
from collections.abc import Iterator
from functools import cache, lru_cache

import wordfreq
from django.conf import settings
from english_words import get_english_words_set

from skills.allowed import ALLOWED, MODERN

COMMON = 30_000  # most frequent English words read from wordfreq
_SUFFIXES = (("s", ""), ("es", ""), ("ies", "y"), ("ied", "y"), ("ed", ""), ("ed", "e"),
             ("d", ""), ("ing", ""), ("ing", "e"), ("er", ""), ("er", "e"), ("ers", ""),
             ("ers", "e"), ("est", ""), ("est", "e"), ("ly", ""), ("ily", "y"))  # fmt: skip
_DOUBLED = frozenset({"ed", "ing", "er", "est"})  # `planned`, `running`: one consonant less


def _bases(word: str) -> Iterator[str]:
    """`word` and the words it may inflect."""
    yield word
    for suffix, added in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            base = word[: -len(suffix)] + added
            yield base
            if suffix in _DOUBLED and len(base) >= 3 and base[-1] == base[-2]:
                yield base[:-1]


@cache
def general_words() -> frozenset[str]:
    """The general words, lower case (see the module docstring)."""
    dictionary = get_english_words_set(["web2"], lower=False, alpha=True)
    lower = {word for word in dictionary if word.islower()} | MODERN
    frequent = wordfreq.top_n_list("en", COMMON)
    found = {w for w in frequent if w.isalpha() and any(b in lower for b in _bases(w))}
    return frozenset(found) | ALLOWED


def word_digest(word: str) -> str:
    """A keyed digest of one lower-case word: how the words people taught a type are
    counted without keeping them (skills.models.SkillWord)."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, word.encode(), hashlib.sha256).hexdigest()[:32]


@lru_cache(maxsize=65536)
def is_general(word: str) -> bool:
    """Whether a lower-case word is general, or an inflection of one (`newsletters`)."""
    known = general_words()
    return any(base in known for base in _bases(word))
