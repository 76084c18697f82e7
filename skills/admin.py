"""Staff review of skill memory: approve or reject proposed skills (through the services),
read what the scrubber left and how often each skill proved useful; decide which agents'
skills skip review in a type that approves skills on its own."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from skills.models import Skill, TrustedAgent
from skills.selectors import skill_type_stats
from skills.services import agent_trust, skill_review


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    list_display = (
        "trigger_short", "agent_type", "status", "confidence", "times_validated",
        "sessions_learned_from", "scrubbed", "learned_at",
    )  # fmt: skip
    list_filter = ("status", "agent_type")
    search_fields = ("trigger", "procedure")
    actions = ("approve_skills", "reject_skills")
    readonly_fields = (
        "agent_type", "status", "confidence", "times_validated", "sessions_learned_from",
        "scrubbed", "learned_at", "last_validated_at", "decayed_at", "reviewed_by",
        "reviewed_at",
    )  # fmt: skip
    fields = (
        "agent_type", "status", "trigger", "procedure", "tools_used", "what_worked",
        "what_didnt_work", "gotchas", "optimal_approach", "unnecessary_tools",
        "success_criteria", *readonly_fields[2:],
    )  # fmt: skip

    change_list_template = "admin/skills/skill/change_list.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # skills are learned from sessions, not typed in

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> Any:
        """The list, under a table of skill analytics per agent type."""
        extra = {**(extra_context or {}), "skill_types": skill_type_stats()}
        return super().changelist_view(request, extra_context=extra)

    @admin.display(description="trigger")
    def trigger_short(self, skill: Skill) -> str:
        return skill.trigger[:100]

    def _review(self, request: HttpRequest, chosen: QuerySet, approve: bool) -> None:
        for skill in chosen:
            skill_review(skill_id=skill.pk, reviewer=request.user, approve=approve)
        verb = "approved" if approve else "rejected"
        self.message_user(request, f"{chosen.count()} skill(s) {verb}.", messages.SUCCESS)

    @admin.action(description="Approve the selected skills (shared with every agent of the type)")
    def approve_skills(self, request: HttpRequest, chosen: QuerySet) -> None:
        self._review(request, chosen, approve=True)

    @admin.action(description="Reject the selected skills")
    def reject_skills(self, request: HttpRequest, chosen: QuerySet) -> None:
        self._review(request, chosen, approve=False)


class TrustedAgentForm(forms.ModelForm):
    class Meta:
        model = TrustedAgent
        fields = ("agent",)

    def clean_agent(self) -> Any:
        agent = self.cleaned_data["agent"]
        if agent.agent_type_id is None:
            raise forms.ValidationError("Give the agent a type first (Agents).")
        return agent


@admin.register(TrustedAgent)
class TrustedAgentAdmin(admin.ModelAdmin):
    """Agents whose skills skip review while they are of a type that approves skills on
    its own. Without a row here, such a type's skills from that agent wait for review
    (whoever moved the agent into the type)."""

    form = TrustedAgentForm
    list_display = ("agent", "owner", "agent_type", "granted_by", "granted_at")
    list_filter = ("agent_type",)
    autocomplete_fields = ("agent",)

    @admin.display(description="owner")
    def owner(self, trusted: TrustedAgent) -> str:
        return trusted.agent.owner.get_username()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # add or delete; a trust names one agent in one type

    def save_model(self, request: HttpRequest, obj: TrustedAgent, form: Any, change: bool) -> None:
        saved = agent_trust(agent=obj.agent, by=request.user)
        obj.pk, obj.agent_type, obj.granted_by, obj.granted_at = (
            saved.pk, saved.agent_type, saved.granted_by, saved.granted_at
        )  # fmt: skip
