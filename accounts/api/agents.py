"""The agents endpoints: list the caller's agents, read one, change its description,
default context or type. Which agent a request acts as comes from its token."""

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import agents
from accounts.models import Agent
from core.api.openapi import Operations, path_id
from core.api.serializers import StrictSerializer
from core.api.views import PagedListView, valid_body

AGENT_ID = path_id("The agent's id; another user's id answers 404 like a missing one.")
api = Operations(["agents"])


class AgentSerializer(serializers.ModelSerializer):
    agent_type = serializers.CharField(
        source="agent_type.name",
        read_only=True,
        allow_null=True,
        help_text="The registered type it is an instance of (shares that type's skills).",
    )
    current = serializers.SerializerMethodField(
        help_text="True for the agent the calling token acts as."
    )

    class Meta:
        model = Agent
        fields = ["id", "name", "description", "default_context", "agent_type", "created_at"]
        fields += ["current"]
        read_only_fields = fields

    def get_current(self, agent: Agent) -> bool:
        return agent.pk == self.context.get("current")


class AgentUpdateSerializer(StrictSerializer):
    description = serializers.CharField(
        max_length=2000, allow_blank=True, required=False, help_text="What the agent is for."
    )
    default_context = serializers.CharField(
        max_length=100,
        allow_blank=True,
        required=False,
        help_text="Where its writes go when they name no context; recall and prompts "
        "search it plus global. global (or empty) = no default.",
    )
    agent_type = serializers.CharField(
        max_length=100,
        allow_blank=True,
        required=False,
        help_text="A type staff registered (e.g. gmail_agent); empty for none.",
    )


on_agent = api.at(AGENT_ID, row=AgentSerializer)


def _shown(request: Request) -> dict:
    agent = agents.request_agent(request)
    return {"current": agent.pk if agent is not None else None}


@api.paged_list(
    "agents_list",
    summary="List your agents",
    description="Every token acts as one of these; `current` marks the caller's.",
)
class AgentListView(PagedListView):
    serializer_class = AgentSerializer

    def get(self, request: Request) -> Response:
        return self.paged(agents.agent_list(user=request.user), context=_shown(request))


class AgentDetailView(APIView):
    @on_agent.row_answer("agents_get", summary="Get one agent")
    def get(self, request: Request, pk: int) -> Response:
        agent = agents.agent_get(user=request.user, agent_id=pk)
        return Response(AgentSerializer(agent, context=_shown(request)).data)

    @on_agent.row_change(
        "agents_update",
        AgentUpdateSerializer,
        summary="Change an agent's description, default context or type",
    )
    def patch(self, request: Request, pk: int) -> Response:
        changes = valid_body(AgentUpdateSerializer, request)
        agent = agents.agent_update(user=request.user, agent_id=pk, **changes)
        return Response(AgentSerializer(agent, context=_shown(request)).data)
