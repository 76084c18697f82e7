"""A realistic month of one user's memory, written through the services (test data)."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from conversations.models import Turn
from conversations.services.recording import tool_call_record, turn_append, turns_append_many
from memory import lineage, services
from memory.models import KnowledgeItem

MEMORIES = [
    ("preference", "Prefers tea over coffee, green tea in the afternoon.", "global", ""),
    ("fact", "Works as a data engineer at Lumen Analytics.", "work", "org:lumen"),
    ("fact", "Sarah Chen leads the billing migration project.", "work", "person:sarah_chen"),
    ("fact", "Sarah Chen prefers reviews on Tuesday mornings.", "work", "person:sarah_chen"),
    ("skill", "Deploys the Gaia project with docker compose and make run.", "work", "project:gaia"),
    ("fact", "The Gaia project stores memory in PostgreSQL in production.", "work", "project:gaia"),
    ("preference", "Likes short answers with code first, explanation after.", "global", ""),
    ("note", "Training for a half marathon in October.", "home", ""),
    ("error", "pip install fails behind the office proxy without --proxy.", "work", ""),
    ("fact", "Has two children, Mia and Leo.", "home", "person:mia"),
]


def seed_month(user: Any) -> dict[str, Any]:
    """Memories of every kind, a lineage chain, sessions of turns and tool calls."""
    now = timezone.now()
    sources = [
        "user",
        "tool",
        "tool",
        "llm_extract",
        "tool",
        "discovery",
        "user",
        "tool",
        "error_auto",
        "tool",
    ]
    items = []
    for index, (category, content, context, entity) in enumerate(MEMORIES):
        item = services.memory_create(
            user=user,
            content=content,
            category=category,
            context=context,
            entity=entity,
            source=sources[index],
        )
        # Spread creation over the month so the activity chart has a shape.
        KnowledgeItem.objects.filter(pk=item.pk).update(created_at=now - timedelta(days=index * 3))
        items.append(item)
    secret = services.memory_create(
        user=user,
        content="Blood type is O negative.",
        category="fact",
        sensitive=True,
        source="user",
    )
    reminder = services.memory_create(
        user=user,
        content="Renew the passport before the Lisbon trip.",
        category="reminder",
        due_at=now + timedelta(days=2),
        source="user",
    )
    overdue = services.memory_create(
        user=user,
        content="Send the quarterly report to Sarah.",
        category="reminder",
        due_at=now - timedelta(days=1),
        source="tool",
    )
    old = services.memory_create(
        user=user, content="Lives in Porto.", category="fact", context="home", source="tool"
    )
    turn = turn_append(
        user=user,
        session_id="moving-day",
        role="user",
        content="We finally moved to Lisbon last weekend, the new flat is great.",
        timestamp=now - timedelta(days=4),
    )
    new = lineage.memory_supersede(  # corrected in place: "Lives in Porto." is a version
        user=user,
        item_id=old.pk,
        content="Lives in Lisbon (moved from Porto).",
        source="llm_extract",
        source_turn=turn,
    )
    # An item another one replaced (reconciliation's "contradict"), as a row of its own.
    old = KnowledgeItem.objects.create(
        owner=user,
        content="Lived in Braga as a student.",
        context="home",
        source="tool",
        created_at=now - timedelta(days=40),
        updated_at=now - timedelta(days=10),
        superseded_by=new,
    )
    forgotten = services.memory_create(
        user=user, content="Was looking at standing desks.", category="note", source="tool"
    )
    services.memory_forget(user=user, item_id=forgotten.pk)

    sessions = ["morning-planning", "billing-migration", "weekend-trip"]
    talk = []  # stored in one batch below: embedded together, not 84 times one by one
    for day in range(0, 28, 2):
        session = sessions[day % 3]
        when = now - timedelta(days=day, hours=2)
        for n in range(1 + (day * 7) % 5):
            talk.append({
                "session_id": session,
                "role": "user",
                "content": f"Can you help me plan step {n} of the {session} work today?",
                "timestamp": when + timedelta(minutes=n * 3),
            })  # fmt: skip
            talk.append({
                "session_id": session,
                "role": "assistant",
                "content": f"Sure, here is step {n}: review the notes and draft a list.",
                "timestamp": when + timedelta(minutes=n * 3 + 1),
            })  # fmt: skip
        tool_call_record(
            user=user,
            tool_name="calendar.lookup",
            session_id=session,
            args={"day": day},
            result_summary="3 events",
            duration_ms=120 + day,
            timestamp=when,
        )
        tool_call_record(
            user=user,
            tool_name="web.search",
            session_id=session,
            args={"q": "flights to Lisbon"},
            success=day % 6 != 0,
            error="" if day % 6 else "HTTP 503 from search provider",
            duration_ms=800 + day * 10,
            timestamp=when,
        )
    turns_append_many(user=user, turns=talk)
    Turn.objects.for_user(user).filter(session__session_id="weekend-trip").update(
        extraction_status="failed", extraction_error="LLM answer was not valid JSON"
    )
    return {
        "items": items,
        "secret": secret,
        "reminder": reminder,
        "overdue": overdue,
        "old": old,
        "new": new,
        "forgotten": forgotten,
        "turn": turn,
    }
