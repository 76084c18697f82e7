"""The webhooks API's shapes: endpoints (the secret only in the answer that made it),
deliveries with their attempts, and the bodies of create and change."""

from rest_framework import serializers

from core.api.serializers import StrictSerializer
from core.api.shapes import read_only_meta, shown_meta
from webhooks.models import EVENTS, Attempt, Delivery, Endpoint


class EndpointSerializer(serializers.ModelSerializer):
    owner = serializers.SerializerMethodField(help_text='"person" or "app".')
    paused = serializers.BooleanField(source="is_paused", help_text="No delivery is sent.")
    waiting = serializers.IntegerField(
        default=0, help_text="Deliveries waiting to be sent (in order)."
    )

    Meta = shown_meta(
        Endpoint,
        "id", "url", "events", "description", "owner", "paused", "paused_at", "pause_reason",
        "failures", "failing_since", "waiting", "created_at",
    )  # fmt: skip

    def get_owner(self, endpoint: Endpoint) -> str:
        return "app" if endpoint.app_id else "person"


class EndpointWithSecretSerializer(EndpointSerializer):
    secret = serializers.CharField(
        help_text="Signs every delivery (webhook-signature, Standard Webhooks; and "
        "X-Gaia-Signature). Shown only now: keep it."
    )

    Meta = read_only_meta(EndpointSerializer, "secret")


_DESCRIPTION = "What the endpoint is, for you (shown in lists)."
_EVENTS_HELP = f'Event names to receive, or "*" for all: {", ".join(EVENTS)}.'


class EndpointCreateSerializer(StrictSerializer):
    url = serializers.CharField(max_length=2000, help_text="http:// or https:// receiver URL.")
    events = serializers.JSONField(help_text=_EVENTS_HELP)
    description = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default="", help_text=_DESCRIPTION
    )


class EndpointUpdateSerializer(StrictSerializer):
    url = serializers.CharField(
        max_length=2000, required=False, help_text="http:// or https:// receiver URL."
    )
    events = serializers.JSONField(required=False, help_text=_EVENTS_HELP)
    description = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text=_DESCRIPTION
    )


class AttemptSerializer(serializers.ModelSerializer):
    Meta = shown_meta(Attempt, "at", "status_code", "error", "duration_ms")


class DeliverySerializer(serializers.ModelSerializer):
    event = serializers.CharField(source="event.kind", help_text="The event's name.")
    event_id = serializers.SerializerMethodField(help_text="The body's id (evt_...).")
    item_id = serializers.IntegerField(source="event.item_id", allow_null=True)
    log = AttemptSerializer(many=True, help_text="Every attempt, oldest first.")

    Meta = shown_meta(
        Delivery,
        "id", "event", "event_id", "item_id", "status", "attempts", "created_at",
        "next_attempt_at", "delivered_at", "last_status_code", "last_error", "log",
    )  # fmt: skip

    def get_event_id(self, delivery: Delivery) -> str:
        return f"evt_{delivery.event_id}"

    def to_representation(self, delivery: Delivery) -> dict:
        body = super().to_representation(delivery)
        if delivery.status != Delivery.PENDING:
            body["next_attempt_at"] = None
        return body
