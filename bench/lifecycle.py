"""A year of one account, simulated month by month, and what memory holds at the end.

Each month: 20 new facts, 5 reworded repeats of earlier ones (as extraction stores them),
3 corrections of earlier facts (as extraction updates them), one fact forgotten, 10
recalls handed to an agent, the system prompt and per-turn context fetched every week,
two failed tool calls and two successes (one of them the same call that failed a month
earlier), and the decay job at the end of the month. Time is simulated: rows get the
month's dates and decay runs with the month's "now". Prints the counts of active,
superseded, forgotten, versioned and duplicate-looking items, and whether the user's
name is still known.
"""

import random
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from conversations.models import ToolCall
from conversations.services.recording import tool_call_record
from learning.decay import decay_user
from learning.tool_errors import tool_errors_sync
from memory import agent_prompt, services
from memory.models import KnowledgeItem
from memory.recall import recall

CITIES = "Lisbon Porto Berlin Madrid Oslo Kyoto Lima Quito Accra Hanoi Riga Perth".split()
THINGS = "tea chess jazz sushi hiking rowing poetry salsa ramen cycling opera pottery".split()
PEOPLE = "Ana Ben Chloe Dev Emil Fay Gus Hana Ivo Jun Kai Lea Max Nia Oto Pia".split()
NAME = "User's name is Sam Rivera"


VERBS = "plays|cooks|studies|watches|paints|collects|practises|teaches".split("|")


def _fact(rng: random.Random, n: int) -> str:
    person, city, thing = rng.choice(PEOPLE), rng.choice(CITIES), rng.choice(THINGS)
    return f"User {rng.choice(VERBS)} {thing} with {person} in {city}, since spring {2000 + n}"


def _reworded(text: str) -> str:
    """The same fact as a model might write it again in other words."""
    words = text.split()
    verb, thing, person, city = words[1], words[2], words[4], words[6].rstrip(",")
    return f"{person} and the user {verb.rstrip('s')} {thing} together in {city}"


def counts(user: Any, repeats: list[tuple[int, int]]) -> dict[str, int]:
    """What the account holds: states of items, versions, and duplicate-looking pairs (a
    fact and its reworded repeat both active)."""
    items = KnowledgeItem.objects.for_user(user)
    active = set(items.active().values_list("pk", flat=True))
    duplicates = sum(1 for a, b in repeats if a != b and a in active and b in active)
    versions = getattr(KnowledgeItem, "versions", None)
    return {
        "active": len(active),
        "superseded": items.filter(superseded_by__isnull=False).count(),
        "forgotten": items.filter(forgotten_at__isnull=False).count(),
        "versions kept": (
            versions.rel.related_model.objects.filter(owner=user).count() if versions else 0
        ),
        "duplicate-looking pairs": duplicates,
        "error lessons active": items.active().filter(category="error").count(),
        "name still known": int(items.active().filter(content=NAME).exists()),
    }


def _at(ids: list[int], when: datetime) -> None:
    KnowledgeItem.objects.filter(pk__in=ids).update(created_at=when, updated_at=when)


def _month(
    user: Any, rng: random.Random, month: int, start: datetime, facts: list[int], repeats: list
) -> None:
    day = start + timedelta(days=30 * month)
    new = [
        services.memory_create(user=user, content=_fact(rng, month * 20 + i), source="tool").pk
        for i in range(20)
    ]
    _at(new, day)
    facts.extend(new)
    alive = list(KnowledgeItem.objects.for_user(user).active().filter(pk__in=facts))
    for item in rng.sample(alive, min(5, len(alive))):
        repeat = services.memory_create(
            user=user, content=_reworded(item.content), source="llm_extract"
        )
        _at([repeat.pk], day + timedelta(days=1))
        repeats.append((item.pk, repeat.pk))
    for item in rng.sample(alive, min(3, len(alive))):
        services.memory_update(
            user=user, item_id=item.pk, source="llm_extract",
            content=item.content.replace("since spring", "since autumn"),
        )  # fmt: skip
    services.memory_forget(user=user, item_id=rng.choice(alive).pk)
    for week in range(4):
        when = day + timedelta(days=7 * week)
        _shown(user, when)
    hits = [h.item.pk for q in rng.sample(THINGS, 10) for h in recall(user=user, query=q)]
    services.memory_touch(user=user, item_ids=hits, when=day + timedelta(days=20))
    for args, ok in (({"code": f"job {month}"}, False), ({"code": f"job {month - 1}"}, True)):
        call = tool_call_record(
            user=user, tool_name="execute_code", args=args, success=ok,
            error="" if ok else "ModuleNotFoundError: torch", timestamp=day,
        )  # fmt: skip
        ToolCall.objects.filter(pk=call.pk).update(timestamp=day + timedelta(days=2))
        tool_errors_sync(user_id=user.pk, tool_name="execute_code")
    decay_user(user=user, now=day + timedelta(days=29))


def _shown(user: Any, when: datetime) -> None:
    """An agent fetches the system prompt and the per-turn context."""
    _, shown = agent_prompt.system_block(user=user)
    services.memory_seen(user=user, item_ids=shown, when=when)


def simulate(*, months: int = 12, seed: int = 5, out: Callable[[str], None] = print) -> dict:
    """Run the simulation in a throwaway user (removed after); the final counts."""
    user = get_user_model().objects.create_user(f"lifecycle-{uuid.uuid4().hex[:8]}")
    rng = random.Random(seed)
    start = timezone.now() - timedelta(days=30 * months + 30)
    try:
        name = services.memory_create(user=user, content=NAME, category="preference", source="user")
        _at([name.pk], start)
        facts: list[int] = []
        repeats: list[tuple[int, int]] = []
        for month in range(months):
            _month(user, rng, month, start, facts, repeats)
            out(f"  month {month + 1}/{months}: {counts(user, repeats)['active']} active")
        return counts(user, repeats)
    finally:
        user.delete()
