"""What points at the people a skill is learned from: the scrubber's personal terms.

Taken from everything a person's session holds, normalised and in any case: every turn
of every role and its speaker, every tool call's arguments, result and error, the
session's id and summary; and from the person: their user name, names and e-mail
address, and the names of their memories' entities (person:sarah_chen, place:lisbon).

Two strengths (skills/scrub.py `Terms`):
- strong, always scrubbed, even as a word of a tool's name (`wunderlich_crm_lookup`): the
  person's own names, their speakers, their entities, the names in e-mail addresses;
- weak, scrubbed unless the agent type shares the word: what looks like a name (a word
  with a capital letter, wherever it stands, unless it is a general word, skills/words.py:
  one of those counts only written as a name inside a sentence, "ask Rose", not where a
  sentence begins, in capitals or as part of a joined word: "Refund the invoice",
  "PROCESSING", "PaymentMethod"), e-mail and web domains, @handles, and every word of an
  argument that names someone (`to`, `cc`, `name`, `phone`, ...).

A term that is a general word is scrubbed only where the skill writes it as a name
(skills/scrub.py, step 4): "Rose" and "ROSE", not "roses" or "PaymentMethod".

The words an agent type shares are its name and description (staff wrote them) and the
words of tool names that other users' agents of the type use too: one person's
`wunderlich_crm_lookup` is not shared vocabulary. A skill's own tools and their
parameter names are kept unless personal, and so is a word GAIA_SKILL_WORD_PEOPLE
different people taught the type (`taught_words`).
"""

import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count

from accounts.models import AgentType
from conversations.models import Session, ToolCall, Turn
from memory.models import KnowledgeItem
from skills.models import SkillWord
from skills.normalise import normalise
from skills.scrub import (
    EMAIL,
    HANDLE,
    SPELLED_EMAIL,
    URL,
    Scrubber,
    Terms,
    parts,
    spelled_email,
    starts_sentence,
    tokens,
    words,
)
from skills.words import is_general

PERSON_KEYS = frozenset(
    "to cc bcc from sender recipient recipients name names username fullname contact "
    "contacts email emails mail phone phones tel mobile address addresses user users "
    "customer customers client clients person people owner owners assignee assignees "
    "attendee attendees guest guests member members author authors participant "
    "participants invitee invitees who with".split()
)  # an argument whose name has one of these words names someone: all its words count
TEXT_MAX = 20_000  # characters read of one tool call's arguments or result
PARAMETER_CALLS = 200  # calls of a skill's tools whose parameter names are read


def _pieces(text: str) -> set[str]:
    return words([re.sub(r"(?i)\bdot\b", " ", text)])


def text_terms(text: str, *, tools: frozenset[str] = frozenset()) -> Terms:
    """The personal terms of one text (see the module docstring). A word written as
    one of the session's `tools` (lower case) is the tool's name, not a name."""
    text = normalise(text or "")
    found = Terms()
    for address in EMAIL.finditer(text):
        found.strong |= _pieces(address["local"])
        found.weak |= _pieces(address["domain"].rsplit(".", 1)[0])
    for address in SPELLED_EMAIL.finditer(text):
        if spelled_email(address.group(0)):
            found.strong |= _pieces(address["local"])
            found.weak |= _pieces(address["domain"])
    for url in URL.finditer(text):
        found.weak |= _pieces(url["host"])
    for handle in HANDLE.finditer(text):
        found.weak |= _pieces(handle["handle"])
    for match in tokens(text):
        token = match.group(0)
        if any(c.isupper() for c in token) and token.lower() not in tools:
            pieces = {token[a:b].lower() for a, b in parts(token) if b - a > 1}
            if not _written_as_a_name(token) or starts_sentence(text, match.start()):
                pieces = {p for p in pieces if not is_general(p)}
            found.weak |= pieces
    return found


def _written_as_a_name(token: str) -> bool:
    """One word in title case ("Rose", "Rose's"): a general word written so inside a
    sentence names someone ("ask Rose"); in capitals, joined to another word or where a
    sentence, a quote or a label begins ("PaymentMethod", "Status: Processing") it
    does not."""
    core = re.split(r"['’]", token, maxsplit=1)[0]
    return len(core) > 1 and core.isalpha() and core[0].isupper() and core[1:].islower()


def _values(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(key, text) of every string in a tool call's arguments, however nested."""
    stack = [(key, value)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((str(k), v) for k, v in node.items())
            stack.extend(("", str(k)) for k in node)
        elif isinstance(node, (list, tuple)):
            stack.extend((key, v) for v in node)
        elif node is not None and not isinstance(node, bool):
            yield key, str(node)[:TEXT_MAX]


def person_terms(user: Any) -> Terms:
    """The person's own names, address and memory entities: all strong."""
    found = Terms()
    account = [user.get_username(), user.first_name, user.last_name]
    for text in account:
        found |= text_terms(text)
        found.strong |= words([text])
    if user.email:
        found |= text_terms(user.email)
    entities = (
        KnowledgeItem.objects.for_user(user).exclude(entity="").values_list("entity", flat=True)
    )
    found.strong |= words(e.split(":", 1)[-1] for e in entities.distinct())
    return found


def session_terms(session: Session) -> Terms:
    """Everything one session holds (see the module docstring)."""
    calls = ToolCall.objects.filter(owner_id=session.owner_id, session=session)
    tools = frozenset(n.lower() for n in calls.values_list("tool_name", flat=True).distinct())
    found = text_terms(session.summary, tools=tools) | Terms(weak=words([session.session_id]))
    turns = Turn.objects.filter(owner_id=session.owner_id, session=session)
    for content, speaker in turns.values_list("content", "speaker").iterator():
        found |= text_terms(content, tools=tools)
        found.strong |= words([speaker])
    for args, result, error in calls.values_list("args", "result_summary", "error").iterator():
        for key, text in _values(args):
            found |= text_terms(text, tools=tools)
            if words([key]) & PERSON_KEYS:
                found.weak |= words([text])
        for text in (result, error):
            found |= text_terms(text[:TEXT_MAX], tools=tools)
    return found


def shared_words(agent_type: AgentType, tool_names: Iterable[str], owner_id: int) -> set[str]:
    """The words the type shares: its name and description, and the words of those of
    `tool_names` that other users' agents of the type use too."""
    names = set(tool_names)
    others = (
        ToolCall.objects.filter(agent__agent_type=agent_type, tool_name__in=names)
        .exclude(owner_id=owner_id)
        .values_list("tool_name", flat=True)
        .distinct()
    )
    return words([agent_type.name, agent_type.description, *others])


def personal_terms(user: Any, sessions: Iterable[Session]) -> Terms:
    """The personal terms of `user` and of their `sessions`."""
    terms = person_terms(user)
    for session in sessions:
        terms |= session_terms(session)
    return terms


def scrubber_for(
    *, user: Any, terms: Terms, agent_type: AgentType, tool_names: Iterable[str]
) -> Scrubber:
    """A scrubber of `user`'s `terms` (personal_terms) for a skill of `agent_type` that
    names `tool_names`."""
    names = list(tool_names)
    return Scrubber(
        terms=terms,
        shared=shared_words(agent_type, names, user.pk),
        tools=words(names) | {n.lower() for n in names} | parameter_words(user, names),
        taught=taught_words(agent_type),
    )


def parameter_words(user: Any, tool_names: Iterable[str]) -> set[str]:
    """The words of the parameter names `user`'s calls of `tool_names` pass."""
    calls = ToolCall.objects.filter(owner_id=user.pk, tool_name__in=list(tool_names))
    keys: set[str] = set()
    for args in calls.order_by("-pk").values_list("args", flat=True)[:PARAMETER_CALLS]:
        if isinstance(args, dict):
            keys.update(str(k) for k in args)
    return words(keys)


def taught_words(agent_type: AgentType) -> frozenset[str]:
    """Digests of the words GAIA_SKILL_WORD_PEOPLE different people taught the type."""
    taught = (
        SkillWord.objects.filter(agent_type=agent_type)
        .values("digest")
        .annotate(people=Count("owner_id", distinct=True))
        .filter(people__gte=settings.GAIA_SKILL_WORD_PEOPLE)
        .values_list("digest", flat=True)
    )
    return frozenset(taught)
