"""Conversation turns, past-conversation search, sessions and tool calls."""

from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.agents import request_agent, request_context, with_context
from accounts.selectors import memory_on
from accounts.services import user_context
from conversations import search, selectors
from conversations.api.serializers import (
    SessionDetailSerializer,
    SessionSerializer,
    ToolCallCreateSerializer,
    ToolCallListQuerySerializer,
    ToolCallSerializer,
    ToolSummaryResultSerializer,
    TurnCreateSerializer,
    TurnSearchResultSerializer,
    TurnSearchSerializer,
    TurnSerializer,
)
from conversations.services import recording
from core.api.openapi import SESSION_ID, Operations, body_example, path_id
from core.api.serializers import OneOrMany, one_or_many
from core.api.views import PagedListView, request_body, valid_body

TURN_ID = path_id("The turn's id. Another user's id answers 404, like a missing one.")
conversations, tool_calls = Operations(["conversations"]), Operations(["tool calls"])
on_turn, on_session = conversations.at(TURN_ID), conversations.at(SESSION_ID)
TURN_EXAMPLES = [
    body_example(
        "one turn",
        {"session_id": "chat-1", "role": "user", "content": "I moved to Lisbon last spring"},
    ),
    body_example(
        "an exchange",
        [
            {"session_id": "chat-1", "role": "user", "content": "Any fado tonight?"},
            {"session_id": "chat-1", "role": "assistant", "content": "Two shows in Alfama."},
        ],
    ),
]
SEARCH_EXAMPLES = [
    body_example("keywords", {"query": "Lisbon", "top_k": 5}),
    body_example(
        "a week, newest first",
        {"time_from": "2026-11-01T00:00:00Z", "time_to": "2026-11-08T00:00:00Z"},
    ),
]
TOOL_CALL_EXAMPLES = [
    body_example(
        "a failure, as an OpenAI tool call",
        {
            "session_id": "chat-1",
            "name": "web_search",
            "arguments": '{"q": "fado tonight"}',
            "success": False,
            "error": "HTTP 429: quota exceeded",
            "duration_ms": 840,
        },
    ),
    body_example(
        "a success",
        {
            "tool_name": "calculator",
            "args": {"expression": "2+2"},
            "result_summary": "4",
            "duration_ms": 2,
        },
    ),
]


class TurnCreateView(APIView):
    @conversations.body_action(
        "turns_log",
        one_or_many("TurnLog", TurnCreateSerializer),
        one_or_many("TurnsLogged", TurnSerializer),
        status=201,
        examples=TURN_EXAMPLES,
        summary="Log one turn or a batch",
        description=(
            "Body: one turn or a list of them (at most 1000), stored in order, all or "
            "nothing. A session is created on first use of its session_id (ids are per "
            "user). Answers the stored turns with their ids: an object for an object, a "
            "list for a list."
        ),
    )
    def post(self, request: Request) -> Response:
        entries, many = OneOrMany.parse(
            TurnCreateSerializer, request_body(request), user_context(request.user)
        )
        agent, override = request_agent(request), request_context(request)
        entries = [with_context(entry, override) for entry in entries]
        if many:
            turns = recording.turns_append_many(user=request.user, turns=entries, agent=agent)
            body = TurnSerializer(turns, many=True).data
        else:
            turn = recording.turn_append(user=request.user, agent=agent, **entries[0])
            body = TurnSerializer(turn).data
        return Response(body, status=status.HTTP_201_CREATED)


class TurnDetailView(APIView):
    @on_turn.row_answer(
        "conversations_turn_get",
        TurnSerializer,
        summary="One turn by id (what a memory's source_turn points at)",
        description=(
            "The turn's text, role, time and session: a memory's `source_turn` (or a "
            "search hit's id) read back as what was said, and where (`session_id`, for "
            "`GET conversations/sessions/{session_id}/`)."
        ),
    )
    def get(self, request: Request, pk: int) -> Response:
        turn = selectors.turn_get(user=request.user, turn_id=pk)
        return Response(TurnSerializer(turn).data)


class TurnSearchView(APIView):
    @conversations.body_action(
        "conversations_search",
        TurnSearchSerializer,
        TurnSearchResultSerializer,
        examples=SEARCH_EXAMPLES,
        summary="Search past conversations",
        description=(
            "Keywords and/or a time range over the caller's turns: best match first with "
            "a query, newest first with only a time range. With memory off (session-only) "
            'nothing from earlier conversations is answered (`judge_note`: "memory off").'
        ),
    )
    def post(self, request: Request) -> Response:
        query = valid_body(TurnSearchSerializer, request, user_context(request.user))
        if not memory_on(request.user):  # session-only, as recall and the tool answer
            hits = search.Hits(reason="memory off")
        else:
            hits = search.search_turns(user=request.user, **query)
        return Response(TurnSearchResultSerializer(hits.answer()).data)


@conversations.paged_list("sessions_list", summary="List sessions")
class SessionListView(PagedListView):
    serializer_class = SessionSerializer

    def get(self, request: Request) -> Response:
        return self.paged(selectors.sessions_list(user=request.user))


class SessionDetailView(GenericAPIView):
    serializer_class = SessionDetailSerializer

    @on_session.row_answer(
        "sessions_get",
        SessionDetailSerializer,
        summary="One session and a page of its turns",
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = selectors.session_get(user=request.user, session_id=session_id)
        turns = selectors.session_turns(user=request.user, session=session)
        page = TurnSerializer(self.paginate_queryset(turns), many=True).data
        body = self.get_paginated_response(page).data
        return Response({"session": SessionSerializer(session).data, **body})


@tool_calls.paged_list(
    "tool_calls_list",
    summary="List tool calls",
    parameters=[ToolCallListQuerySerializer],
    failures=(400, 404),
)
class ToolCallListCreateView(PagedListView):
    serializer_class = ToolCallSerializer

    def get(self, request: Request) -> Response:
        return self.filtered(request, ToolCallListQuerySerializer, selectors.tool_calls_list)

    @tool_calls.body_action(
        "tool_calls_log",
        ToolCallCreateSerializer,
        ToolCallSerializer,
        status=201,
        examples=TOOL_CALL_EXAMPLES,
        summary="Log a tool call",
    )
    def post(self, request: Request) -> Response:
        given = valid_body(ToolCallCreateSerializer, request, user_context(request.user))
        call = recording.tool_call_record(user=request.user, agent=request_agent(request), **given)
        return Response(ToolCallSerializer(call).data, status=status.HTTP_201_CREATED)


class ToolCallSummaryView(APIView):
    @tool_calls.operation(
        "tool_calls_summary",
        ToolSummaryResultSerializer,
        summary="Per-tool summary",
        description="Per tool: calls, success rate, mean duration, last error.",
    )
    def get(self, request: Request) -> Response:
        rows = selectors.tool_summary(user=request.user)
        return Response(ToolSummaryResultSerializer({"results": rows}).data)
