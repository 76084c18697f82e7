"""What an account owns besides its memory: API tokens and settings.

The tables kept their names from when the memory app held these models.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel, unique_per_owner


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
        constraints = [unique_per_owner("name", name="agent_unique_name_per_owner")]

    def __str__(self) -> str:
        return self.name


# The field of an app's request naming the person it acts for (accounts.people.act_for).
ACTING_KEY = "user_id"


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
    # Set on a person's token an app made: the app token an acting request came with
    # (`app_token`, its secret never issued), or the app that issued it (`app`).
    app = models.ForeignKey(
        "App", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    app_token = models.ForeignKey(
        "AppToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        db_table = "memory_apitoken"
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def request_keys(self) -> tuple[str, ...]:
        """The keys of a request that belong to this credential, not to the operation it
        asks for (core.api.views.request_body): an app's acting token took `user_id`, the
        person the app acts for (accounts.people)."""
        return (ACTING_KEY,) if self.app_token_id is not None else ()

    @property
    def is_usable(self) -> bool:
        if self.app_token_id is not None:  # acts only through its app token, never alone
            return False
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
        verbose_name_plural = "user settings"

    def __str__(self) -> str:
        return f"settings of {self.user_id}"


class App(models.Model):
    """An application that serves many people (a support bot, a tutoring site) with one
    credential: it creates its people by an external id and acts for one per request.

    It sees only the people it created; each of them is an ordinary account whose memory
    is theirs alone (the app reaches it only by acting for them)."""

    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    disabled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class AppToken(models.Model):
    """An app's credential; only a hash of the secret is stored."""

    app = models.ForeignKey(App, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=20, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.app.name}/{self.name} ({self.prefix}…)"

    @property
    def is_usable(self) -> bool:
        return self.revoked_at is None and self.app.disabled_at is None

    @property
    def rate_key(self) -> str:
        """What the API's rate counts this token's own requests under (core.api.conventions)."""
        return f"app{self.pk}"


class AppPerson(models.Model):
    """One of an app's people: its external id for them and their account."""

    app = models.ForeignKey(App, on_delete=models.CASCADE, related_name="people")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="app_person"
    )
    external_id = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = "app person"
        verbose_name_plural = "app people"
        constraints = [
            models.UniqueConstraint(fields=["app", "external_id"], name="app_person_unique_id")
        ]

    def __str__(self) -> str:
        return f"{self.app.name}:{self.external_id}"
