"""The words of the graph: entity kinds, relation types, and the role phrases that name an
entity through its relation to the person ("my partner", "the team I am on")."""

import re

KINDS = (
    "person",
    "organisation",
    "team",
    "project",
    "place",
    "pet",
    "thing",
    "event",
    "other",
)
RELATION_TYPES = (
    "partner_of",
    "parent_of",
    "child_of",
    "sibling_of",
    "friend_of",
    "works_at",
    "works_on",
    "leads",
    "manages",
    "reports_to",
    "member_of",
    "part_of",
    "studies_at",
    "lives_in",
    "located_in",
    "owns",
    "knows",
    "related_to",
)
# A subject holds at most one of these at a time: a new one ends the one before.
SINGLE_VALUED = frozenset({"works_at", "lives_in", "partner_of"})
# Hold both ways: "Ana partner_of Rui" is "Rui partner_of Ana".
SYMMETRIC = frozenset({"partner_of", "sibling_of", "friend_of", "knows", "related_to"})
PHRASES = {
    "partner_of": "is the partner of",
    "parent_of": "is a parent of",
    "child_of": "is a child of",
    "sibling_of": "is a sibling of",
    "friend_of": "is a friend of",
    "works_at": "works at",
    "works_on": "works on",
    "leads": "leads",
    "manages": "manages",
    "reports_to": "reports to",
    "member_of": "is a member of",
    "part_of": "is part of",
    "studies_at": "studies at",
    "lives_in": "lives in",
    "located_in": "is in",
    "owns": "owns",
    "knows": "knows",
    "related_to": "is related to",
}
HOLDER_NAMES = ("me", "myself", "i")

# What "my X" names: the entity at the other end of the person's relation of that type,
# outward (the person is its subject: "my employer" = what I work at) or inward (the
# person is its object: "my manager" = who manages me). Symmetric types go both ways.
ROLES: dict[str, tuple[str, str]] = {}
for _words, _type, _way in (
    ("partner wife husband spouse girlfriend boyfriend fiance fiancee", "partner_of", "out"),
    ("mother mom mum father dad parent parents", "child_of", "out"),
    ("son daughter kid kids child children", "parent_of", "out"),
    ("sister brother sibling siblings", "sibling_of", "out"),
    ("friend friends", "friend_of", "out"),
    ("employer company workplace firm office", "works_at", "out"),
    ("project projects", "works_on", "out"),
    ("team squad group", "member_of", "out"),
    ("boss manager", "reports_to", "out"),
    ("school university college", "studies_at", "out"),
    ("city town home", "lives_in", "out"),
    ("dog cat pet horse", "owns", "out"),
    ("report reports", "manages", "out"),
):
    for _word in _words.split():
        ROLES[_word] = (_type, _way)

_ROLE = "|".join(sorted(ROLES, key=len, reverse=True))
# "my partner", "our dog", "the team I am on", "the company I work for"
ROLE_PATTERN = re.compile(
    rf"\b(?:my|our)\s+(?P<a>{_ROLE})\b"
    rf"|\bthe\s+(?P<b>{_ROLE})\s+(?:that\s+)?(?:i|we)(?:\s+am|'m|\s+are|'re)?\s+"
    r"(?:on|in|work(?:ing)?\s+(?:for|at|on|in)|belong\s+to|live\s+in|lead|run)\b",
    re.IGNORECASE,
)


def key(text: str) -> str:
    """How an alias is compared: case and spacing ignored."""
    return " ".join(str(text).casefold().split())


def sentence(subject: str, type_: str, obj: str) -> str:
    """A relation as a plain sentence ("Rui works at Atelier Norte")."""
    return f"{subject} {PHRASES.get(type_, type_.replace('_', ' '))} {obj}"
