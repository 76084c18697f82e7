"""Who the account holder is, by name: what recall's perspective stage reads as "me".

`holder(user)` gathers the names the person goes by: the account's name fields, the
external id an app gave them when it is a name ("maya", "maya_brennan"; not "u-123" or an
email), the name their own memories give them ("User's name is Maya Brennan", "My name is
Maya", "Maya's full name is Maya Brennan") and the holder's aliases in the graph. When
none of those names anyone, the name their memories are told by (`name_told_by`: an app
that stores "Kim works as a nurse" and "Kim's dog is Rex" never says "Kim's name is Kim")
stands for them. It also
says which form the person's memories use most for them, "User" or one of the names
(`retrieval.perspective.Holder.form`), counted among the owner's own rows like every word
weight (`retrieval.termstats`). Read once per owner per HOLDER_SECONDS in each process
(names change rarely; a statement per recall would not be worth it).
"""

import re
import time
from collections import Counter
from typing import Any

from django.db.models import Q

from core.lru import Lru
from graph.models import Alias
from graph.vocabulary import ROLES
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from retrieval import pipeline
from retrieval.perspective import HOLDER, NOBODY, Holder

MAX_OWNERS = 4096
HOLDER_SECONDS = 30.0
_cache: Lru[int, tuple[float, Holder]] = Lru(MAX_OWNERS)
_WORD = r"[A-ZÀ-Ö][\w'\-]+"
_PARTICLE = r"de|da|do|dos|van|von|der|di|le|la"
_NAME = rf"(?P<name>{_WORD}(?:\s+(?:{_WORD}|{_PARTICLE})){{0,3}})"
_KIND = r"(?:full\s+|first\s+|given\s+|real\s+|legal\s+|preferred\s+)?name"
_SAYS_NAME = [
    re.compile(rf"^(?:the\s+)?(?:user|my|i)(?:'s)?\s+{_KIND}\s+is\s+{_NAME}", re.IGNORECASE),
    # With no subject, as mem0 writes it ("Name is Ana Ferreira"): the name capitalised.
    re.compile(rf"^(?i:{_KIND}\s+is)\s+{_NAME}"),
    re.compile(
        rf"^(?:the\s+)?user\s+(?:is\s+called|is\s+named|goes\s+by)\s+{_NAME}", re.IGNORECASE
    ),
    re.compile(rf"^(?:i\s+am|i'm)\s+called\s+{_NAME}", re.IGNORECASE),
    re.compile(rf"^(?:the\s+)?user\s+is\s+{_NAME},?\s+(?:who\s+)?goes\s+by\b", re.IGNORECASE),
]
# "Maya's full name is Maya Brennan", "João is João Carvalho": a name that names itself
# is the holder's.
_SELF_NAMED = re.compile(rf"^(?P<first>[A-ZÀ-Ö][\w\-]+)(?:(?:'s)?\s+{_KIND}\s+is|\s+is)\s+{_NAME}")
_EXTERNAL_NAME = re.compile(r"^[A-Za-zÀ-ÖØ-öø-ÿ]{2,30}(?:[ ._\-][A-Za-zÀ-ÖØ-öø-ÿ]{2,30}){0,2}$")
_NOT_NAMES = frozenset("user me i you admin test guest person people anonymous default".split())
# The name a memory is told by: its first word, capitalised, as subject or owner ("Kim
# works ...", "Kim's dog ...").
_TOLD_BY = re.compile(r"^(?P<name>[^\W\d_][\w\-]+)(?:'s|’s)?\s")
# Told by one name: at least TOLD_SHARE of the newest memories (and TOLD_MIN of them) start
# with it, TOLD_LEAD times as many as start with any other capitalised word. A
# conversation's two people share their memories (LoCoMo: 100 and 79 of 184), so neither
# is the holder; a person's own store names them far more than anyone else, even where
# most of its memories name no one, as mem0's do ("Works as a nurse": 36 of 175 start with
# the person's name in one account, the next name 6).
TOLD_SHARE = 0.1
TOLD_MIN = 3
TOLD_LEAD = 3.0
TOLD_SAMPLE = 200


def names_said(texts: list[str]) -> list[str]:
    """The names these memories give the holder."""
    found = []
    for text in texts:
        text = (text or "").strip()
        for pattern in _SAYS_NAME:
            match = pattern.match(text)
            if match:
                found.append(match["name"])
                break
        else:
            match = _SELF_NAMED.match(text)
            if match and match["name"].split()[0] == match["first"] and " " in match["name"]:
                found.append(match["name"])
    return found


# A name introduced by a word that names someone by their role to the holder ("Has a son
# named Theo", "Kim's son Theo", "Dog is called Rex": the graph's role words) is not the
# holder's, however many memories it starts (a parent's store is often mostly about the child).
_ROLE_WORDS = "|".join(sorted(ROLES, key=len, reverse=True))


def _introduced(word: str, joined: str) -> bool:
    """Whether the memories introduce `word` as someone's relation ("son Theo", "son is
    called Theo", "a dog named Rex"), within one memory (`joined` has one a line)."""
    return bool(
        re.search(
            rf"\b(?:{_ROLE_WORDS})(?:['’]s)?,?[ \t]+(?:(?:is|was)[ \t]+)?"
            rf"(?:(?:called|named)[ \t]+)?{re.escape(word)}(?!\w)",
            joined,
            re.IGNORECASE,
        )
    )


def _a_name(word: str, texts: list[str], joined: str) -> bool:
    """Whether `word` (capitalised at the start of a memory) reads as a name in `texts`
    (`joined`: them, one a line): never lower-case ("Painting is ..." beside "likes
    painting"), and somewhere owning something or capitalised inside a sentence ("Kim's
    cat", "Ola is Kim's brother"), as a verb that starts mem0's memories ("Likes tea")
    never is; and not a name they introduce as a relation's (`_introduced`)."""
    if re.search(rf"(?<![\w']){re.escape(word.lower())}(?!\w)", joined):
        return False
    if _introduced(word, joined):
        return False
    inside = re.compile(rf"(?<=\w[\s,;:]){re.escape(word)}(?!\w)|^{re.escape(word)}['’]s\b")
    return any(inside.search(t) for t in texts)


def name_told_by(texts: list[str]) -> str:
    """The name these memories (newest first) are told by, or "": of the capitalised
    words that start them and read as names (`_a_name`), the one that starts most of them,
    if that is at least TOLD_SHARE of them (and TOLD_MIN) and TOLD_LEAD times as many as
    the next name; never "User"."""
    texts = [(t or "").strip() for t in texts]
    starts: Counter[str] = Counter()
    for text in texts:
        match = _TOLD_BY.match(text)
        if match and match["name"][0].isupper() and match["name"].lower() not in _NOT_NAMES:
            starts[match["name"]] += 1
    joined = "\n".join(texts)
    names = (w for w, _ in starts.most_common() if _a_name(w, texts, joined))
    name, runner_up = next(names, ""), next(names, "")
    count = starts[name] if name else 0
    if count < max(TOLD_MIN, TOLD_SHARE * len(texts)) or count < TOLD_LEAD * starts[runner_up]:
        return ""
    return name


def _external(user: Any) -> list[str]:
    person = getattr(user, "app_person", None) if hasattr(user, "app_person") else None
    try:
        external = person.external_id if person is not None else ""
    except Exception:  # no app person (RelatedObjectDoesNotExist)
        return []
    if not _EXTERNAL_NAME.match(external or ""):
        return []
    words = re.split(r"[ ._\-]", external)
    if any(w.lower() in _NOT_NAMES for w in words):
        return []
    return [" ".join(w.capitalize() for w in words)]


def _account(user: Any) -> list[str]:
    first = (getattr(user, "first_name", "") or "").strip()
    last = (getattr(user, "last_name", "") or "").strip()
    return [n for n in (f"{first} {last}".strip(), first, last) if n]


def _graph(user: Any) -> list[str]:
    texts = Alias.objects.for_user(user).filter(entity__holder=True).values_list("text", flat=True)
    return [t for t in texts[:20] if t.lower() not in _NOT_NAMES | {"my", "myself"}]


SURE_ROWS = 20  # word counts from fewer of the owner's rows cannot tell the form


def _form(owner_id: int, holder: Holder) -> Holder:
    """The holder with the form their items use most: "User", or the name word more of
    them hold; while the counts come from fewer than SURE_ROWS rows, the other form is
    searched too (`Holder.also`)."""
    if not holder.names:
        return holder
    words = [HOLDER.lower(), *(n.lower() for n in holder.names if " " not in n)]
    counts, sampled = pipeline.word_rows(ITEMS, owner_id, words)
    best, count = HOLDER, counts[HOLDER.lower()]
    for name in holder.names:
        if " " in name:
            continue
        held = counts[name.lower()]
        if held < TOLD_SHARE * sampled:  # a name a few rows give ("Name is Ana Ferreira")
            continue
        if held > count:
            best, count = name, held
    first = next((n for n in holder.names if " " not in n), HOLDER)
    other = first if best == HOLDER else HOLDER
    also = other if sampled < SURE_ROWS else ""
    return Holder(holder.names, best, holder.tokens, also)


def holder(user: Any) -> Holder:
    """The holder's names (cached HOLDER_SECONDS) and the form their memories use most
    (from the owner's word counts, which have their own cache)."""
    if user is None or getattr(user, "pk", None) is None:
        return NOBODY
    cached = _cache.get(user.pk)
    if cached is not None and cached[0] > time.monotonic():
        return _form(user.pk, cached[1])
    said = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(
            Q(content__icontains="name")
            | Q(content__icontains="goes by")
            | Q(content__icontains="called")
        )
        .order_by("-pk")
        .values_list("content", flat=True)[:200]
    )
    names = [*_account(user), *_external(user), *names_said(list(said)), *_graph(user)]
    names = [n for n in names if n.strip().lower() not in _NOT_NAMES]
    if not names:
        newest = KnowledgeItem.objects.for_user(user).active().exclude(category="note")
        told = name_told_by(
            list(newest.order_by("-pk").values_list("content", flat=True)[:TOLD_SAMPLE])
        )
        names = [told] if told else []
    found = Holder.of(names)
    _cache.put(user.pk, (time.monotonic() + HOLDER_SECONDS, found))
    return _form(user.pk, found)


def clear_cache() -> None:
    _cache.clear()
