"""What an account owns besides its memory: API tokens and settings.

The tables kept their names from when the memory app held these models.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel


class AgentType(models.Model):
    """A kind of agent staff register (`gmail_agent`): the users' agents of one type share
    its skill memory (skills app), never their own memory."""

    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True, default="")
    # Skills the scrubber passed are approved without staff review (an operator's choice).
    auto_approve_skills = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name


class Agent(OwnedModel):
    """A named client of one account (an assistant, a script); its tokens act as it."""

    name = models.CharField(max_length=100)
    agent_type = models.ForeignKey(
        AgentType, null=True, blank=True, on_delete=models.SET_NULL, related_name="agents"
    )
    description = models.TextField(blank=True, default="")
    default_context = models.CharField(max_length=100, default="global")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="agent_unique_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name


class ApiToken(OwnedModel):
    """A named bearer token for one agent; only a hash of the secret is stored."""

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    agent = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="tokens"
    )

    class Meta:
        db_table = "memory_apitoken"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_usable(self) -> bool:
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > timezone.now()


class UserSettings(models.Model):
    """One row per user, created on demand by `user_settings_get`."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="gaia_settings"
    )
    timezone = models.CharField(max_length=64, default="UTC")
    memory_enabled = models.BooleanField(default=True)
    auto_extract = models.BooleanField(default=True)
    extraction_steering = models.TextField(blank=True, default="")
    discovery_consent = models.BooleanField(default=False)
    contexts = models.JSONField(default=list, blank=True)

    class Meta:
        db_table = "memory_usersettings"

    def __str__(self) -> str:
        return f"settings of {self.user_id}"
