"""Webhooks: endpoints, the outbox of events and the deliveries of each event to each
endpoint, with every attempt logged (docs/webhooks.md).

An endpoint belongs to one person (`owner`) or to one app (`app`: it receives the events
of every person of that app, and only theirs). An event is written in the transaction
of the change it reports, with one pending delivery per endpoint that wants it; the
worker sends an endpoint's deliveries strictly in order.
"""

from typing import Any, Self

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import App

ITEM_EVENTS = ("memory.created", "memory.updated", "memory.forgotten", "memory.erased")
EVENTS = (*ITEM_EVENTS, "user.erased", "conflict.found", "extraction.failed")
PING = "ping"  # only ever sent on request, to one endpoint


class EndpointQuerySet(models.QuerySet):
    def for_user(self, user: Any) -> Self:
        """A person's own endpoints; nothing for anonymous users or an app."""
        if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
            return self.none()
        return self.filter(owner_id=user.pk)

    def for_app(self, app: App | None) -> Self:
        """An app's endpoints (those that receive all its people's events)."""
        return self.none() if app is None else self.filter(app_id=app.pk)


class Endpoint(models.Model):
    """A URL that receives signed POSTs for the events it subscribes to."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    app = models.ForeignKey(
        App, null=True, blank=True, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=2000)
    events = models.JSONField(default=list)
    description = models.CharField(max_length=200, blank=True, default="")
    # Kept in clear: every delivery is signed with it (HMAC). Shown once, rotatable.
    secret = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)
    paused_at = models.DateTimeField(null=True, blank=True)
    pause_reason = models.CharField(max_length=300, blank=True, default="")
    failures = models.PositiveIntegerField(default=0)  # consecutive failed attempts
    failing_since = models.DateTimeField(null=True, blank=True)
    # One worker at a time sends an endpoint's queue (that keeps it in order).
    lease_until = models.DateTimeField(null=True, blank=True)

    objects = EndpointQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(owner__isnull=False, app__isnull=True)
                | Q(owner__isnull=True, app__isnull=False),
                name="webhook_endpoint_one_owner",
            )
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None


class Event(models.Model):
    """One thing that happened to a person's memory, as the receivers will read it."""

    kind = models.CharField(max_length=40)
    # The person it is about (an id, not a key: user.erased outlives the account).
    subject_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    external_id = models.CharField(max_length=200, blank=True, default="")
    item_id = models.BigIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["subject_id", "item_id"], name="webhook_event_item")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"


class Delivery(models.Model):
    """One event for one endpoint: pending until a 2xx answer, then delivered (a ping,
    sent once on request, ends failed when it got none)."""

    PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
    STATUSES = [(PENDING, "pending"), (DELIVERED, "delivered"), (FAILED, "failed")]

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=12, choices=STATUSES, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(fields=["endpoint", "status", "id"], name="webhook_delivery_queue"),
            models.Index(fields=["status", "delivered_at"], name="webhook_delivery_done"),
        ]

    def __str__(self) -> str:
        return f"delivery #{self.pk} ({self.status})"


class Attempt(models.Model):
    """One POST of a delivery: what came back and how long it took."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"attempt #{self.pk} ({self.status_code or self.error})"
