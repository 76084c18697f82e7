"""The memory endpoints: remember, list, get/update/forget, restore, erase, recall,
bulk forget and upcoming items. Each view parses input, calls one service, selector or
search entry point, and serializes the answer.
"""

from collections.abc import Callable
from typing import Any

from django.db.models import Q
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.agents import (
    read_context,
    request_active_context,
    request_agent,
    request_context,
    with_context,
)
from accounts.services import user_context
from core.api.openapi import Operations, body_example, path_id
from core.api.serializers import OneOrMany, one_or_many, refuse_body
from core.api.views import PagedListView, request_body, valid_body, valid_query
from memory import selectors, services
from memory.api.serializers import (
    ForgetBulkResultSerializer,
    ForgetBulkSerializer,
    MemoryCreatedSerializer,
    MemoryCreateSerializer,
    MemoryDetailSerializer,
    MemoryListQuerySerializer,
    MemoryListResultSerializer,
    MemorySerializer,
    MemoryUpdateSerializer,
    RecallResultSerializer,
    RecallSerializer,
    UpcomingQuerySerializer,
)
from memory.models import KnowledgeItem
from memory.recall import recall
from privacy import services as privacy_services

REMEMBER_EXAMPLES = [
    body_example("a preference", {"content": "Prefers concise answers", "category": "preference"}),
    body_example(
        "a batch",
        [
            {"content": "Works at Acme as a data engineer", "entity": "person:user"},
            {
                "content": "Dentist appointment",
                "category": "reminder",
                "due_at": "2026-12-03T09:30:00+01:00",
            },
        ],
    ),
]
UPDATE_EXAMPLES = [
    body_example("a correction", {"content": "Prefers short, concrete answers"}),
    body_example("a reminder was given", {"reminded_at": "now"}),
]
RECALL_EXAMPLES = [
    body_example("a question", {"query": "how does the user like answers", "top_k": 5}),
    body_example(
        "with filters",
        {
            "query": "deadlines",
            "context": "work",
            "category": "reminder",
            "time_from": "2026-11-01",
        },
    ),
]
FORGET_EXAMPLES = [
    body_example(
        "old work items, counted first", {"context": "work", "older_than": "6m", "dry_run": True}
    )
]
MEMORY_ID = path_id("The memory's id. Another user's id answers 404, like a missing one.")
api = Operations(["memories"])
on_memory = api.at(MEMORY_ID, row=MemorySerializer)


def write_source(request: Request) -> str:
    """A person in the web app (session) writes as `user`; an agent (token) as `tool`."""
    return "tool" if request.auth is not None else "user"


def _listed(*, user: Any, where: Q | None = None, **filters: Any) -> Any:
    return selectors.memory_list(user=user, matching=where, **filters)


@api.paged_list(
    "memories_list",
    summary="List memories",
    parameters=[MemoryListQuerySerializer],
    failures=(400, 404),
)
class MemoryListCreateView(PagedListView):
    serializer_class = MemorySerializer

    def get(self, request: Request) -> Response:
        return self.filtered(request, MemoryListQuerySerializer, _listed)

    @api.body_action(
        "memories_remember",
        one_or_many("Remember", MemoryCreateSerializer),
        one_or_many("Remembered", MemoryCreatedSerializer),
        status=201,
        examples=REMEMBER_EXAMPLES,
        summary="Remember one item or a batch",
        description=(
            "Body: one object or a list of them (at most 1000). Answers the stored items "
            "in request order (an object for an object, a list for a list). `outcome` says "
            "what each write did: `deduplicated` (an item in the same category, context "
            "and entity says the same thing, in another form, and was updated instead of "
            "adding a row; `deduplicated` is then true), `conflict` (stored, and linked by "
            "`conflicts_with` to an item sharing most of its words that says something "
            "else: another place, day, number, name or a negation; reconciliation judges "
            "the pair) or `new`. A batch is stored all or nothing."
        ),
    )
    def post(self, request: Request) -> Response:
        entries, many = OneOrMany.parse(
            MemoryCreateSerializer, request_body(request), user_context(request.user)
        )
        source, agent = write_source(request), request_agent(request)
        override = request_context(request)
        entries = [with_context(entry, override) for entry in entries]
        if many:
            items = services.memory_create_many(
                user=request.user, items=entries, source=source, agent=agent, token=request.auth
            )
            body = MemoryCreatedSerializer(items, many=True).data
        else:
            item = services.memory_create(
                user=request.user, source=source, agent=agent, token=request.auth, **entries[0]
            )
            body = MemoryCreatedSerializer(item).data
        return Response(body, status=status.HTTP_201_CREATED)


def not_forgotten(user: Any, pk: int) -> KnowledgeItem:
    """The caller's item unless it is forgotten (`memory_visible`): after forget it is
    gone from GET and PATCH by id too, like a missing id, until restored."""
    return selectors.memory_visible(user=user, item_id=pk)


def current_not_forgotten(user: Any, pk: int) -> KnowledgeItem:
    """The item that stands for the caller's id now (the one that replaced it, if one
    did), unless either is forgotten (`memory_visible`)."""
    return selectors.memory_visible(user=user, item_id=pk, current=True)


def _switched(request: Request, pk: int, switch: Callable[..., KnowledgeItem]) -> Response:
    """Forget or restore (`switch`) the caller's item, which takes no body; the item."""
    refuse_body(request_body(request))
    item = switch(user=request.user, item_id=pk)
    return Response(MemorySerializer(item).data)


class MemoryDetailView(APIView):
    @on_memory.row_answer(
        "memories_get",
        MemoryDetailSerializer,
        summary="Get one memory",
        description="A forgotten item answers 404 until it is restored. `conflicts` lists "
        "the items it may contradict (linked when stored, until reconciliation judges them).",
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(MemoryDetailSerializer(not_forgotten(request.user, pk)).data)

    @on_memory.row_change(
        "memories_update",
        MemoryUpdateSerializer,
        examples=UPDATE_EXAMPLES,
        summary="Update a memory (update_memory)",
        description=(
            'Changes only the given fields. `reminded_at: "now"` marks a reminder as '
            "delivered. Changing the content re-embeds the item. A change of what it says "
            "(content, category, domain, context, entity) keeps the earlier state as a "
            "version (see history), with `reason` if given. The id stays the same; an id "
            "another item replaced changes that item (the answer carries its id). A "
            "forgotten item answers 404."
        ),
    )
    def patch(self, request: Request, pk: int) -> Response:
        target = current_not_forgotten(request.user, pk)
        changes = valid_body(MemoryUpdateSerializer, request, user_context(request.user))
        item = services.memory_update(
            user=request.user,
            item_id=target.pk,
            source=write_source(request),
            token=request.auth,
            **changes,
        )
        return Response(MemorySerializer(item).data)

    @on_memory.row_answer(
        "memories_forget",
        summary="Forget a memory (soft delete)",
        description="Hidden from search, listings and prompts at once; restorable.",
    )
    def delete(self, request: Request, pk: int) -> Response:
        return _switched(request, pk, services.memory_forget)


class MemoryRestoreView(APIView):
    @on_memory.row_action("memories_restore", summary="Restore a forgotten memory", failures=(404,))
    def post(self, request: Request, pk: int) -> Response:
        return _switched(request, pk, services.memory_restore)


class MemoryEraseView(APIView):
    @on_memory.row_erase(
        "memories_erase",
        summary="Erase a memory (hard delete)",
        description=(
            "Removes the row, its versions, the items it replaced, its full-text entry "
            "and its vector; nothing older becomes current. Cannot be undone."
        ),
    )
    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        privacy_services.memory_erase(user=request.user, item_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemorySearchView(APIView):
    @api.body_action(
        "memories_recall",
        RecallSerializer,
        RecallResultSerializer,
        examples=RECALL_EXAMPLES,
        summary="Recall: search memory",
        description=(
            "Hybrid search over the caller's active items, best first. Sensitive items "
            "only with include_sensitive. Each returned item is marked as used "
            "(confidence +0.02, use_count +1, last_used)."
        ),
    )
    def post(self, request: Request) -> Response:
        given = dict(valid_body(RecallSerializer, request, user_context(request.user)))
        given["context"] = read_context(given.get("context"), request_active_context(request))
        given["matching"] = given.pop("where", None)
        hits = recall(user=request.user, **given)
        services.memory_touch(user=request.user, item_ids=[h.item.pk for h in hits])
        return Response(RecallResultSerializer(hits.answer()).data)


class MemoryForgetBulkView(APIView):
    @api.body_action(
        "memories_forget_bulk",
        ForgetBulkSerializer,
        ForgetBulkResultSerializer,
        examples=FORGET_EXAMPLES,
        summary="Forget many memories (soft, restorable)",
        description=(
            "Forgets active items matching every given filter: context, entity, older_than "
            '("12h", "30d", "2w", "6m", "1y"), categories. At least one filter is required. '
            "dry_run only counts. `ids` lists them: each can be restored."
        ),
    )
    def post(self, request: Request) -> Response:
        given = valid_body(ForgetBulkSerializer, request)
        ids = services.memory_forget_matching(user=request.user, **given)
        return Response({"forgotten": len(ids), "dry_run": given["dry_run"], "ids": ids})


class MemoryUpcomingView(APIView):
    @api.operation(
        "memories_upcoming",
        MemoryListResultSerializer,
        summary="Upcoming and overdue items",
        description=(
            "Active items due within `days` or overdue, not yet reminded since they became due."
        ),
        parameters=[UpcomingQuerySerializer],
        failures=(400,),
    )
    def get(self, request: Request) -> Response:
        given = valid_query(UpcomingQuerySerializer, request)
        items = selectors.upcoming_items(user=request.user, **given)
        return Response(MemoryListResultSerializer({"results": items}).data)
