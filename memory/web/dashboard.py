"""The dashboard: what the user's agents know, what they did, and what is waiting."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from conversations import selectors as conversation_selectors
from learning.consolidation import sessions_due
from learning.llm.status import model_state
from memory import selectors
from memory.web.chart import activity_chart
from memory.web.forms import SOURCE_LABELS
from skills.selectors import skill_stats

TOP_ENTITIES = 10


def _bars(counts: dict[str, int], labels: dict[str, str] | None = None) -> list[dict]:
    """Rows for a horizontal bar list: label, count and width relative to the largest."""
    largest = max(counts.values(), default=0) or 1
    labels = labels or {}
    return [
        {
            "label": labels.get(value, value) or "—",
            "value": value,
            "count": n,
            "pct": max(1, round(100 * n / largest)),  # a sliver even for the smallest
        }
        for value, n in counts.items()
    ]


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    user = request.user
    stats = selectors.memory_stats(user=user)
    knowledge = stats["knowledge"]
    extraction = stats["extraction"]
    now = timezone.now()
    upcoming = selectors.upcoming_items(user=user, days=7)
    context = {
        "stats": stats,
        "by_category": _bars(knowledge["by_category"]),
        "by_context": _bars(knowledge["by_context"]),
        "by_source": _bars(knowledge["by_source"], SOURCE_LABELS),
        "chart": activity_chart(selectors.activity_timeline(user=user, days=30)),
        "upcoming": [{"item": i, "overdue": i.due_at <= now} for i in upcoming],
        "entities": selectors.entities_list(user=user, limit=TOP_ENTITIES),
        "tools": conversation_selectors.tool_summary(user=user)[:10],
        "coverage_pct": round(100 * stats["embeddings"]["coverage"]),
        "skills": skill_stats(user=user),
        "llm_configured": bool(settings.GAIA_LLM_URL),
        "llm_state": model_state(),
        "extraction_waiting": extraction["pending"],
        "extraction_failures": conversation_selectors.extraction_failures(user=user),
        "awaiting_consolidation": sessions_due(user=user).count(),
        "is_empty": knowledge["active"] == 0 and stats["conversations"]["turns"] == 0,
        "last_updated": parse_datetime(knowledge["last_updated"] or ""),
    }
    return render(request, "web/dashboard.html", context)
