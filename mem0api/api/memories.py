"""Add, search, list and delete-all: mem0's collection endpoints over one app's people.

`add` logs the messages as turns of a conversation session (mem0's run_id, or one
session per day, `mem0-YYYY-MM-DD`) of the person (created on first add). With `infer`
(mem0's default) extraction learns from them in the background when an LLM is
configured: the answer is mem0's queued shape (status PENDING). `infer=False` stores each
message's content as a memory as given (linked to its turn; the turns are not extracted)
and answers the stored memories with what dedup did.
"""

import operator
from datetime import UTC, datetime
from functools import reduce
from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError as Invalid
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import people
from accounts.models import AppPerson
from conversations.services.extraction import turn_extraction_skip
from conversations.services.recording import turns_append_many
from learning.llm import llm_configured
from mem0api.api.base import (
    Mem0View,
    NotSupported,
    acting,
    app_of,
    people_for,
    refuse_unsupported,
    runs_of,
    scoped_items,
)
from mem0api.api.filters import FilterNotSupported, Scope, required_scopes, scopes
from mem0api.api.serializers import AddSerializer, PageSerializer, SearchSerializer, memory_out
from memory import services as memory_services
from memory.models import KnowledgeItem
from memory.recall import MAX_TOP_K, recall
from privacy import services as privacy_services

ENTITY_KEYS = ("user_id", "agent_id", "run_id")
# Sent by some SDK versions and meaning nothing here (no orgs, one output format).
HARMLESS = {"org_id", "project_id", "version", "output_format", "async_mode"}
MAX_SEARCHED = 50
# Top-level options of older SDK calls that are filters (search's metadata and categories,
# get_all's keywords and dates).
AS_FILTERS = {"metadata", "categories", "keywords", "start_date", "end_date"}


def body_of(request: Request, known: set[str], unsupported: set[str], what: str) -> dict:
    data = request.data if isinstance(request.data, dict) else {}
    refuse_unsupported(data, unsupported, what)
    unknown = sorted(set(data) - known - unsupported - HARMLESS - set(ENTITY_KEYS) - {"filters"})
    if unknown:
        raise NotSupported(f"{what}: {', '.join(unknown)} not supported by this server.")
    return data


def _as_filters(data: dict) -> list[dict[str, Any]]:
    """The older SDKs' top-level options as the filters they mean."""
    given = {k: data[k] for k in AS_FILTERS if data.get(k) not in (None, "", [], {})}
    out: list[dict[str, Any]] = []
    if "metadata" in given:
        out.append({"metadata": given["metadata"]})
    if "categories" in given:
        categories = given["categories"]
        out.append({"categories": {"in": categories if isinstance(categories, list)
                                   else [categories]}})  # fmt: skip
    if "keywords" in given:
        out.append({"keywords": {"icontains": given["keywords"]}})
    if "start_date" in given:
        out.append({"created_at": {"gte": given["start_date"]}})
    if "end_date" in given:
        out.append({"created_at": {"lte": given["end_date"]}})
    return out


def scopes_of(data: dict, *, required: bool = True) -> list[Scope]:
    """The filters, any top-level user_id/agent_id/run_id and the top-level options that
    are filters (`AS_FILTERS`), as OR branches."""
    parts: list[Any] = [{k: data[k] for k in ENTITY_KEYS if data.get(k) is not None}]
    parts += [data["filters"]] if data.get("filters") else []
    parts = [p for p in parts + _as_filters(data) if p]
    node: Any = parts[0] if len(parts) == 1 else ({"AND": parts} if parts else {})
    try:
        return required_scopes(node) if required else scopes(node)
    except FilterNotSupported as error:
        raise NotSupported(str(error)) from None


def _owned(app: Any, found: list[Scope]) -> list[tuple[AppPerson, Scope]]:
    return [(person, scope) for scope in found for person in people_for(app, scope)]


class AddView(Mem0View):
    UNSUPPORTED = {
        "custom_categories", "custom_instructions", "agent_custom_instructions",
        "expiration_date", "structured_data_schema", "immutable", "includes", "excludes",
        "enable_graph", "app_id",
    }  # fmt: skip

    @extend_schema(exclude=True)  # mem0's own API reference describes this surface
    def post(self, request: Request) -> Response:
        data = body_of(request, set(AddSerializer().fields), self.UNSUPPORTED, "add")
        given = AddSerializer(data={k: v for k, v in data.items() if k in AddSerializer().fields})
        given.is_valid(raise_exception=True)
        [scope] = _one_scope(data)
        person, _ = people.person_create(app=app_of(request), external_id=scope.user_id)
        token = acting(request, person)
        agent = people.person_agent(person=person, name=scope.agent_id) if scope.agent_id else None
        args = given.validated_data
        when = datetime.fromtimestamp(args["timestamp"], UTC) if args.get("timestamp") else None
        run_id = scope.run_id or f"mem0-{timezone.now().date().isoformat()}"
        turns = [
            {"session_id": run_id, "role": m["role"], "content": m["content"],
             "speaker": m.get("name", ""), "timestamp": when}
            for m in args["messages"]
        ]  # fmt: skip
        user = person.user
        if args["infer"]:
            logged = turns_append_many(user=user, turns=turns, agent=agent or token.agent)
            return Response(_queued(logged, run_id))
        with transaction.atomic():
            logged = turns_append_many(user=user, turns=turns, agent=agent or token.agent)
            for turn in logged:  # stored as given below: nothing to learn from them
                turn_extraction_skip(turn_id=turn.pk)
            entries = [
                {"content": m["content"], "metadata": args.get("metadata") or {},
                 "source_turn": turn.pk}
                for m, turn in zip(args["messages"], logged, strict=True)
            ]  # fmt: skip
            items = memory_services.memory_create_many(
                user=user, items=entries, agent=agent, token=token
            )
            if when is not None:  # a memory folded into an older one keeps its date
                fresh = [i.pk for i in items if not getattr(i, "deduplicated", False)]
                memory_services.memory_date(user=user, item_ids=fresh, when=when)
        results = [
            {"id": str(item.pk), "memory": item.content, "data": {"memory": item.content},
             "event": "UPDATE" if getattr(item, "deduplicated", False) else "ADD",
             "outcome": getattr(item, "outcome", "new"), "user_id": person.external_id,
             "run_id": run_id}
            for item in items
        ]  # fmt: skip
        return Response(
            {"status": "SUCCEEDED", "message": f"Stored {len(items)} memories as given.",
             "event_id": None, "results": results}
        )  # fmt: skip


def _one_scope(data: dict) -> list[Scope]:
    # add's metadata is the memories' own, not a filter
    found = scopes_of({k: v for k, v in data.items() if k not in AS_FILTERS}, required=False)
    if len(found) != 1 or not found[0].user_id:
        raise Invalid({"user_id": ["add needs one user_id: the person the memory is of."]})
    return found


def _queued(turns: list, run_id: str) -> dict[str, Any]:
    pending = [t.pk for t in turns if t.extraction_status == "pending"]
    if not pending:
        status, message = (
            "SUCCEEDED",
            (
                "Logged as conversation turns; nothing to learn from them (extraction is off "
                "for this person, or no user message of five words or more)."
            ),
        )
    elif llm_configured():
        status, message = (
            "PENDING",
            (
                "Memory processing has been queued for background execution: the messages "
                "are logged as turns, and extraction learns from them."
            ),
        )
    else:
        status, message = (
            "PENDING",
            (
                "Logged as conversation turns, waiting for extraction: no LLM is configured on "
                "this server, so nothing is learned until one is (GAIA_LLM_URL); infer=False "
                "stores messages as given."
            ),
        )
    return {
        "status": status, "message": message, "event_id": None, "run_id": run_id,
        "turn_ids": [t.pk for t in turns], "pending_turn_ids": pending,
    }  # fmt: skip


class SearchView(Mem0View):
    UNSUPPORTED = {"fields", "reference_date", "app_id"}
    ACCEPTED = {"query", "top_k", "threshold", "rerank", "show_expired", "latest_only",
                "keyword_search", "queries", *AS_FILTERS}  # fmt: skip

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:
        data = body_of(request, self.ACCEPTED, self.UNSUPPORTED, "search")
        given = SearchSerializer(data={k: v for k, v in data.items() if k in self.ACCEPTED})
        given.is_valid(raise_exception=True)
        args = given.validated_data
        if not args["query"].strip():
            raise Invalid({"query": ["Must not be empty."]})
        owned = _owned(app_of(request), scopes_of(data))
        if len(owned) > MAX_SEARCHED:  # one recall per person: bounded work per request
            raise Invalid({"filters": [f"A search covers at most {MAX_SEARCHED} people."]})
        found: dict[int, dict[str, Any]] = {}
        time_read = None
        for person, scope in owned:
            outs, read = _search_one(person, scope, args)
            time_read = time_read or read
            for out in outs:
                if out["id"] not in found or out["score"] > found[out["id"]]["score"]:
                    found[out["id"]] = out
        best = sorted(found.values(), key=lambda o: -o["score"])[: args["top_k"]]
        return Response(self.answer(best, time_read))

    def answer(self, results: list[dict[str, Any]], time_read: dict | None = None) -> Any:
        """mem0's answer; Gaia's `time_read` beside the results when the query named a
        time as people say it ("yesterday": the window read, in the person's zone)."""
        return {"results": results, **({"time_read": time_read} if time_read else {})}


class SearchV2View(SearchView):
    """POST /v2/memories/search/ (mem0ai before 2.0): the same search, a bare list."""

    def answer(self, results: list[dict[str, Any]], time_read: dict | None = None) -> Any:
        return results


def _search_one(
    person: AppPerson, scope: Scope, args: dict
) -> tuple[list[dict[str, Any]], dict | None]:
    """Recall over one person's memory in one scope, and the time it read; the hits are
    marked as used."""
    hits = recall(
        user=person.user,
        query=args["query"],
        queries=args.get("queries"),
        top_k=MAX_TOP_K if scope.run_id else args["top_k"],
        min_relevance=args.get("threshold"),
        agent=scope.agent_id,
        matching=scope.where or None,
    )
    items = [hit.item for hit in hits]
    runs = runs_of(items)
    kept = [h for h in hits if scope.run_id is None or runs.get(h.item.pk) == scope.run_id]
    kept = kept[: args["top_k"]]
    memory_services.memory_touch(user=person.user, item_ids=[h.item.pk for h in kept])
    return [
        memory_out(h.item, person=person, run_id=runs.get(h.item.pk), score=h.relevance)
        for h in kept
    ], hits.time_read


class ListView(Mem0View):
    UNSUPPORTED = {"fields", "app_id"}
    ACCEPTED = {"page", "page_size", "show_expired", "latest_only", *AS_FILTERS}

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:
        data = body_of(request, self.ACCEPTED, self.UNSUPPORTED, "get_all")
        paging = {k: data[k] for k in ("page", "page_size") if k in data}
        paging.update(request.query_params.dict())  # the query string takes precedence
        page = PageSerializer(data={k: v for k, v in paging.items() if k in ("page", "page_size")})
        page.is_valid(raise_exception=True)
        number, size = page.validated_data["page"], page.validated_data["page_size"]
        owned = _owned(app_of(request), scopes_of(data))
        persons = {person.user_id: person for person, _ in owned}
        parts = [scoped_items(person, scope) for person, scope in owned]
        items = reduce(operator.or_, parts) if parts else None
        if items is not None:
            items = items.order_by("-updated_at", "-pk").select_related("agent")
        count = items.count() if items is not None else 0
        rows = list(items[(number - 1) * size : number * size]) if items is not None else []
        runs = runs_of(rows)
        results = [memory_out(i, person=persons[i.owner_id], run_id=runs.get(i.pk)) for i in rows]

        def link(to: int) -> str:
            return request.build_absolute_uri(f"{request.path}?page={to}&page_size={size}")

        return Response(
            self.answer(
                {
                    "count": count,
                    "next": link(number + 1) if number * size < count else None,
                    "previous": link(number - 1) if number > 1 else None,
                    "results": results,
                }
            )
        )

    def answer(self, page: dict[str, Any]) -> Any:
        return page


class ListV2View(ListView):
    """POST /v2/memories/ (mem0ai before 2.0): the same listing, a bare list."""

    def answer(self, page: dict[str, Any]) -> Any:
        return page["results"]


V1_CALLS = {
    "GET": "get_all: GET /mem0/v1/memories/ is mem0's v1 listing; this server answers the "
    "v2 call, POST /mem0/v3/memories/ with filters (mem0ai 2.x get_all)",
    "POST": "add: POST /mem0/v1/memories/ is mem0's v1 add; this server answers the v2 "
    "call, POST /mem0/v3/memories/add/ (mem0ai 2.x add)",
}


class DeleteAllView(Mem0View):
    """DELETE /v1/memories/ (delete_all); the v1 listing and add on the same path 501."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        raise NotSupported(f"{V1_CALLS['GET']}.")

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:
        raise NotSupported(f"{V1_CALLS['POST']}.")

    @extend_schema(exclude=True)
    def delete(self, request: Request) -> Response:
        query = request.query_params.dict()
        refuse_unsupported(query, {"app_id", "metadata"}, "delete_all")
        erased = 0
        for person, scope in _owned(app_of(request), scopes_of(query)):
            for item_id in list(scoped_items(person, scope).values_list("pk", flat=True)):
                try:
                    privacy_services.memory_erase(user=person.user, item_id=item_id)
                except KnowledgeItem.DoesNotExist:  # erased with an item it replaced
                    continue
                erased += 1
        return Response({"message": f"Deleted {erased} memories.", "deleted": erased})
