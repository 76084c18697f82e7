"""Staff review of skill memory: approve or reject proposed skills (through the services),
read what the scrubber left and how often each skill proved useful."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from skills.models import Skill
from skills.services import skill_review


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

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # skills are learned from sessions, not typed in

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
