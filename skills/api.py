"""Skill memory for agents: search the skills of the caller's agent type, and say that one
worked. A skill belongs to an agent type: an agent of another type (or none) sees none,
and an id of theirs answers 404 like a missing one."""

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.agents import request_agent
from core.api.openapi import Operations, path_id
from core.api.serializers import StrictSerializer, refuse_body
from core.api.views import request_body, request_query, valid
from memory.services import usage_add
from skills.models import Skill
from skills.search import MIN_RELEVANCE, SkillHit, skills_search
from skills.services import skill_validate_for

SKILL_ID = path_id("A skill's id (from a search); another type's id answers 404.")
api = Operations(["skills"])
on_skill = api.at(SKILL_ID)


class SkillSerializer(serializers.ModelSerializer):
    agent_type = serializers.CharField(source="agent_type.name", read_only=True)

    class Meta:
        model = Skill
        fields = [
            "id", "agent_type", "trigger", "procedure", "tools_used", "what_worked",
            "what_didnt_work", "gotchas", "optimal_approach", "unnecessary_tools",
            "success_criteria", "confidence", "times_validated", "learned_at",
            "last_validated_at",
        ]  # fmt: skip
        read_only_fields = fields


class SkillHitSerializer(serializers.Serializer):
    skill = SkillSerializer()
    relevance = serializers.FloatField(help_text="How well it fits the task, 0..1.")


class SkillSearchSerializer(StrictSerializer):
    query = serializers.CharField(max_length=2000, help_text="The task at hand.")
    top_k = serializers.IntegerField(
        min_value=1, max_value=20, default=5, help_text="How many (default 5)."
    )
    min_relevance = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        default=MIN_RELEVANCE,
        help_text=f"Leave out skills less relevant than this (default {MIN_RELEVANCE}).",
    )


class SkillSearchResultSerializer(serializers.Serializer):
    agent_type = serializers.CharField(
        allow_null=True, help_text="The caller's agent type; null: it has none, so no skills."
    )
    results = SkillHitSerializer(many=True)


def _answer(request: Request, hits: list[SkillHit]) -> dict[str, Any]:
    agent = request_agent(request)
    kind = agent.agent_type.name if agent is not None and agent.agent_type_id else None
    return SkillSearchResultSerializer({"agent_type": kind, "results": hits}).data


class SkillSearchView(APIView):
    @api.operation(
        "skills_search_get",
        SkillSearchResultSerializer,
        summary="Search your agent type's skills (query string)",
        parameters=[SkillSearchSerializer],
        failures=(400,),
    )
    def get(self, request: Request) -> Response:
        return self._search(request, request_query(request))

    @api.body_action(
        "skills_search",
        SkillSearchSerializer,
        SkillSearchResultSerializer,
        summary="Search your agent type's skills (recall_skills)",
        description=(
            "The approved skills of the calling token's agent type that fit the task, best "
            "first. Skills are shared by every user's agents of that type and scrubbed of "
            "personal data before they are stored; an agent without a type has none."
        ),
    )
    def post(self, request: Request) -> Response:
        return self._search(request, request_body(request))

    def _search(self, request: Request, given: Any) -> Response:
        query = valid(SkillSearchSerializer, given)
        hits = skills_search(agent=request_agent(request), **query)
        usage_add(user=request.user, counts={"skills_applied": len(hits)})  # handed over
        return Response(_answer(request, hits))


class SkillValidateView(APIView):
    @on_skill.row_action(
        "skills_validate",
        SkillSerializer,
        summary="Say a skill worked again",
        description=(
            "times_validated +1 and confidence up; it stops decaying for 90 days. A person "
            "counts once per skill: saying it again, from any of their agents, changes nothing."
        ),
    )
    def post(self, request: Request, pk: int) -> Response:
        refuse_body(request_body(request))
        skill = skill_validate_for(agent=request_agent(request), skill_id=pk)
        return Response(SkillSerializer(skill).data)
