"""Conversation pages: sessions, one session's turns, turn search, tool-call history."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, IntegerField, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from conversations import selectors
from conversations.models import ROLES, Session, ToolCall, Turn
from conversations.search import search_turns
from conversations.services.extraction import turn_extraction_retry
from core.validation import clean_text
from memory.models import KnowledgeItem

SESSIONS_PER_PAGE = 25
TURNS_PER_PAGE = 100
CALLS_PER_PAGE = 50
SEARCH_TOP_K = 50


def _count_of(model, user) -> Coalesce:
    rows = (
        model.objects.for_user(user)
        .filter(session=OuterRef("pk"))
        .values("session")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def _sessions(user) -> QuerySet:
    return (
        Session.objects.for_user(user)
        .annotate(turn_count=_count_of(Turn, user), tool_call_count=_count_of(ToolCall, user))
        .order_by("-last_turn_at", "-pk")
    )


@login_required
def session_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(_sessions(request.user), SESSIONS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "web/conversations/sessions.html", {"page": page, "roles": ROLES})


def _page_of_turn(turns: QuerySet, turn_id: str) -> int:
    """The page a linked turn (?turn=<id>) is on, so its #anchor is on the page shown."""
    target = turns.filter(pk=int(turn_id)).first() if turn_id.isdigit() else None
    if target is None:
        return 1
    before = turns.filter(
        Q(timestamp__lt=target.timestamp) | Q(timestamp=target.timestamp, pk__lt=target.pk)
    ).count()
    return before // TURNS_PER_PAGE + 1


@login_required
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    session = get_object_or_404(Session.objects.for_user(request.user), pk=pk)
    turns = Turn.objects.for_user(request.user).filter(session=session).order_by("timestamp", "pk")
    page = Paginator(turns, TURNS_PER_PAGE).get_page(
        request.GET.get("page") or _page_of_turn(turns, request.GET.get("turn", ""))
    )
    turn_ids = [t.pk for t in page.object_list]
    learned: dict[int, list[KnowledgeItem]] = {}
    for item in KnowledgeItem.objects.for_user(request.user).filter(source_turn__in=turn_ids):
        learned.setdefault(item.source_turn_id, []).append(item)
    calls = ToolCall.objects.for_user(request.user).filter(session=session).order_by("-timestamp")
    # Imported turns keep their real times, so the first turn, not the row, says when it began.
    first_turn_at = turns.aggregate(first=Min("timestamp"))["first"] or session.created_at
    return render(
        request,
        "web/conversations/session.html",
        {
            "session": session,
            "first_turn_at": first_turn_at,
            "page": page,
            "turns": [{"turn": t, "learned": learned.get(t.pk, [])} for t in page.object_list],
            "tool_calls": calls[:CALLS_PER_PAGE],
            "tool_call_total": calls.count(),
        },
    )


@login_required
def turn_search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:500]
    role = request.GET.get("role", "")
    role = role if role in ROLES else ""
    hits, error = [], ""
    if query:
        try:
            hits = search_turns(
                user=request.user, query=query, top_k=SEARCH_TOP_K, role=role or None
            )
        except ValidationError as exc:
            error = " ".join(exc.messages)
    return render(
        request,
        "web/conversations/search.html",
        {"query": query, "role": role, "roles": ROLES, "hits": hits, "error": error},
    )


@login_required
def tool_calls(request: HttpRequest) -> HttpResponse:
    calls = ToolCall.objects.for_user(request.user).select_related("session")
    failed_only = request.GET.get("failed") == "1"
    tool = clean_text(request.GET.get("tool"), field="tool", limit=200, required=False)
    if failed_only:
        calls = calls.filter(success=False)
    if tool:
        calls = calls.filter(tool_name=tool)
    page = Paginator(calls.order_by("-timestamp", "-pk"), CALLS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "web/conversations/tools.html",
        {
            "page": page,
            "summary": selectors.tool_summary(user=request.user),
            "failed_only": failed_only,
            "tool": tool,
        },
    )


@login_required
@require_POST
def turn_extraction_retry_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Put a failed or partly refused turn back in the extraction queue."""
    try:
        turn = turn_extraction_retry(user=request.user, turn_id=pk)
    except Turn.DoesNotExist:
        raise Http404 from None
    if turn.extraction_status == "pending":
        messages.success(request, "Extraction of this turn will be tried again shortly.")
    url = reverse("web-session-detail", args=[turn.session_id])
    return redirect(f"{url}?turn={turn.pk}#turn-{turn.pk}")
