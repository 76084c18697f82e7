"""An account stored by name, as apps and mem0's SDK store memories ("Maya prefers oat
milk"), derived from an account file written the way extraction stores them ("User
prefers oat milk"): the memories name the person, the questions are asked three ways
(in the first person as written, naming the person, and nonsense naming the person).

`by_name(data)` rewrites "User" / "the user" into the person's first name (read from the
memory that gives their name, else the file's `name`), so the same account is measured
both ways (`bench.account`): the holder's names should read as the holder.
`by_name(data, said=False)` is the same account as most apps store it: no memory says
"Maya's name is Maya" and the account has no name fields, so recall can only learn the
name from how the memories are told (`memory.holder.name_told_by`). `by_name(data,
mem0=True)` is the account as mem0's SDK writes it: no subject where it is the person
("Name is Maya Brennan", "Prefers oat milk"), the name only where a memory mentions them.
"""

import re
from typing import Any

from memory.holder import names_said

_NAME = re.compile(r"^User's (?:full )?name is (?P<full>[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*)")


def person_name(data: dict[str, Any]) -> tuple[str, str, bool]:
    """(first name, full name, whether a memory gives it) of the account's person: the
    memory "User's name is ...", else the file's `name`, else the start of its `about`."""
    for memory in data["memories"]:
        match = _NAME.match(memory.get("content", ""))
        if match:
            return match["full"].split()[0], match["full"], True
    full = str(data.get("name") or (data.get("about") or "").split(",")[0]).strip()
    if not full:
        raise ValueError("the account names no one")
    return full.split()[0], full, False


def told_by_name(text: str, first: str, full: str) -> str:
    """A memory in the third person, with the person's name for "User"."""
    text = re.sub(r"^User's (?:full )?name is ", f"{first}'s full name is ", text)
    text = re.sub(r"\b[Tt]he user\b", first, text)
    return re.sub(r"\bUser\b", first, text)


_LEADING_USER = re.compile(r"^(?:[Tt]he user|User)(?:'s)?\s+(?P<rest>\S.*)$", re.DOTALL)


def told_as_mem0(text: str, first: str, full: str) -> str:
    """A memory as mem0's SDK writes it: no subject when it is the person ("User lives in
    Porto" -> "Lives in Porto", "User's name is Maya Brennan" -> "Name is Maya Brennan"),
    the person's name where they are mentioned inside it."""
    match = _LEADING_USER.match(text)
    if match:
        text = match["rest"][:1].upper() + match["rest"][1:]
    return told_by_name(text, first, full)


# A question in the first person (or about "the user") asked naming the person.
_ASKED = [
    (r"\bam I\b", "is {n}"), (r"\bI am\b", "{n} is"), (r"\bI'm\b", "{n} is"),
    (r"\bI've\b", "{n} has"), (r"\bhave I\b", "has {n}"), (r"\bI have\b", "{n} has"),
    (r"\bdo I\b", "does {n}"), (r"\bdid I\b", "did {n}"), (r"\bcan I\b", "can {n}"),
    (r"\bshould I\b", "should {n}"), (r"\bwas I\b", "was {n}"), (r"\bI was\b", "{n} was"),
    (r"\bI'd\b", "{n} would"), (r"\bI'll\b", "{n} will"),
    (r"\b[Tt]he user's\b", "{n}'s"), (r"\b[Uu]ser's\b", "{n}'s"), (r"\b[Tt]he user\b", "{n}"),
    (r"\b[Mm]y\b", "{n}'s"), (r"\bmine\b", "{n}'s"), (r"\bmyself\b", "{n}"), (r"\bme\b", "{n}"),
    (r"\bI\b", "{n}"), (r"\bwe\b", "{n} and family"), (r"\bour\b", "{n}'s family's"),
]  # fmt: skip


def asked_by_name(question: str, first: str) -> str | None:
    """The question naming the person, or None when it names no one (a topic alone)."""
    text = question
    for pattern, replacement in _ASKED:
        text = re.sub(pattern, replacement.format(n=first), text)
    return text if text != question else None


def _names_them(memory: dict[str, Any]) -> bool:
    """Whether the memory says the person's name ("User's full name is Maya Brennan")."""
    return bool(names_said([memory.get("content", "")]))


def by_name(data: dict[str, Any], *, said: bool = True, mem0: bool = False) -> dict[str, Any]:
    """The account with its memories told by name, its questions asked in the first
    person (as written) and naming the person, and its nonsense naming the person.
    `said=False`: without the memory that gives the name (and the questions it answers)
    and without an account name: nothing declares who the person is. `mem0`: the
    memories as mem0's SDK writes them (`told_as_mem0`: "Name is Maya Brennan", "Lives in
    Bristol"), the person named only inside a memory."""
    first, full, given = person_name(data)
    kept = [m for m in data["memories"] if said or not _names_them(m)]
    tell = told_as_mem0 if mem0 else told_by_name
    told = {m["content"]: tell(m["content"], first, full) for m in kept}
    memories = [{**m, "content": told[m["content"]]} for m in kept]
    answerable = [q for q in data["questions"] if all(a in told for a in q["answers"])]
    first_person = [{**q, "answers": [told[a] for a in q["answers"]]} for q in answerable]
    named = []
    for q in first_person:
        asked = asked_by_name(q["question"], first)
        if asked:
            named.append({**q, "question": asked})
    nonsense = []
    for question in data["nonsense_questions"]:
        asked = asked_by_name(question, first)
        nonsense.append(asked or f"What does {first} think about {question}?")
    return {
        **data,
        "memories": memories,
        "questions": first_person,
        "named_questions": named,
        "nonsense_questions": data["nonsense_questions"],
        "named_nonsense": nonsense,
        "person": first,
        # An account whose memories never name the person: the app gave its person the
        # name (as an account name field), the one place recall can learn it from.
        "account_name": None if given or not said else full,
    }
