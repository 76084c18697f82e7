"""Staff see endpoints (never their secrets), events and deliveries with their attempts."""

from django.contrib import admin

from webhooks.models import Attempt, Delivery, Endpoint
from webhooks.services import endpoint_pause, endpoint_resume


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ["id", "url", "owner", "app", "paused_at", "failures", "created_at"]
    list_filter = ["paused_at"]
    search_fields = ["url", "description"]
    # Changed only through its owner's API or page (URL checks), or the actions here.
    fields = ["url", "events", "description", "owner", "app", "paused_at", "pause_reason"]
    fields += ["failures", "failing_since", "created_at"]
    readonly_fields = fields
    actions = ["pause", "resume"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Pause the selected endpoints")
    def pause(self, request, queryset):
        for endpoint in queryset:
            endpoint_pause(endpoint=endpoint, reason="paused by staff")

    @admin.action(description="Resume the selected endpoints")
    def resume(self, request, queryset):
        for endpoint in queryset:
            endpoint_resume(endpoint=endpoint)


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    readonly_fields = ["at", "status_code", "error", "duration_ms"]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "endpoint", "kind", "status", "attempts", "created_at", "delivered_at"]
    list_filter = ["status"]
    list_select_related = ["event", "endpoint"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]

    @admin.display(description="event")
    def kind(self, delivery: Delivery) -> str:
        return delivery.event.kind

    def has_add_permission(self, request) -> bool:
        return False
