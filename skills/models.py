"""Skill memory (seed 001): procedures an agent type learned, shared by all its users.

A skill belongs to an `AgentType`, never to a user: it is scrubbed of personal details
before it is stored and stays `proposed` until staff approve it (or the type approves
scrubbed skills on its own). While proposed, `SkillContribution` rows say which users'
sessions it came from, so a user's erase can take their part back; approval drops them.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Agent, AgentType
from core.ownership import OwnedModel

STATUSES = ("proposed", "approved", "rejected")


class SkillQuerySet(models.QuerySet):
    def for_agent(self, agent: Agent | None) -> "SkillQuerySet":
        """The approved skills an agent may see: those of its type (none without one)."""
        if agent is None or agent.agent_type_id is None:
            return self.none()
        return self.filter(agent_type_id=agent.agent_type_id, status="approved")


class Skill(models.Model):
    agent_type = models.ForeignKey(AgentType, on_delete=models.CASCADE, related_name="skills")
    trigger = models.TextField(help_text="When to use it: 'When the user asks to ...'.")
    procedure = models.TextField(help_text="The steps that worked, in order.")
    tools_used = models.JSONField(default=list, blank=True)
    what_worked = models.TextField(blank=True, default="")
    what_didnt_work = models.TextField(blank=True, default="")
    gotchas = models.TextField(blank=True, default="")
    optimal_approach = models.TextField(blank=True, default="")
    unnecessary_tools = models.JSONField(default=list, blank=True)
    success_criteria = models.TextField(blank=True, default="")
    confidence = models.FloatField(default=0.5)
    times_validated = models.PositiveIntegerField(default=0)
    sessions_learned_from = models.PositiveIntegerField(default=1)
    status = models.CharField(
        max_length=10, choices=[(s, s) for s in STATUSES], default="proposed", db_index=True
    )
    # Details the scrubber replaced before the skill was stored (names, numbers, ...).
    scrubbed = models.PositiveIntegerField(default=0)
    learned_at = models.DateTimeField(default=timezone.now)
    last_validated_at = models.DateTimeField(default=timezone.now)
    decayed_at = models.DateTimeField(null=True, blank=True, editable=False)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=200, blank=True, default="", editable=False)

    objects = SkillQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["agent_type", "status"], name="skill_type_status")]

    def __str__(self) -> str:
        return self.trigger[:80]


class SkillContribution(OwnedModel):
    """One user's session a proposed skill was learned from (dropped on review)."""

    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="contributions")
    session = models.ForeignKey("conversations.Session", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
