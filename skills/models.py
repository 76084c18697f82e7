"""Skill memory (seed 001): procedures an agent type learned, shared by all its users.

A skill belongs to an `AgentType`, never to a user: it is scrubbed of personal details
before it is stored and stays `proposed` until staff approve it (or, for an agent staff
trusted in a type that approves skills on its own, at once). `SkillContribution` rows
say which people it came from (who taught it, who taught it again, who said it worked),
whatever its status, so a person's erase reaches it; each person counts once per skill.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Agent, AgentType
from core.ownership import OwnedModel

STATUSES = ("proposed", "approved", "rejected")
KINDS = (
    ("learned", "its text was learned from this session"),
    ("seconded", "this session taught it again while it was proposed"),
    ("validated", "this person's agent said it worked (or taught it again) once approved"),
)


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
    """One person's part in a skill: the session its text came from, one that taught it
    again, or a validation. At most one per person and skill; kept after review."""

    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="contributions")
    kind = models.CharField(max_length=10, choices=KINDS, default="learned")
    session = models.ForeignKey(
        "conversations.Session", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    agent = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["skill", "owner"], name="skill_contribution_once")
        ]
        indexes = [models.Index(fields=["owner", "created_at"], name="skill_contribution_recent")]


class TrustedAgent(models.Model):
    """Staff let this agent's skills skip review while it is an instance of `agent_type`
    (a type that approves skills on its own); without a row they are proposed."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    agent_type = models.ForeignKey(AgentType, on_delete=models.CASCADE, related_name="+")
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["agent", "agent_type"], name="trusted_agent_once")
        ]

    def __str__(self) -> str:
        return f"{self.agent} in {self.agent_type}"


class SkillWord(OwnedModel):
    """A word one person's session taught a type (a keyed digest, never the word): a word
    taught by GAIA_SKILL_WORD_PEOPLE different people is the type's own vocabulary and
    may reach the others (skills/scrub.py). Goes with the person's erase."""

    agent_type = models.ForeignKey(AgentType, on_delete=models.CASCADE, related_name="+")
    digest = models.CharField(max_length=32)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["agent_type", "digest", "owner"], name="skill_word_once_per_person"
            )
        ]
