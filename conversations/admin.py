from django.contrib import admin

from conversations.models import Session, ToolCall, Turn


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = (
        "session_id",
        "owner",
        "context",
        "created_at",
        "last_turn_at",
        "consolidated_at",
    )
    list_filter = ("owner", "context")
    search_fields = ("session_id", "owner__username")


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "owner",
        "session",
        "role",
        "short_content",
        "timestamp",
        "extraction_status",
    )
    list_filter = ("owner", "role", "context", "extraction_status")
    search_fields = ("content", "owner__username", "session__session_id")
    list_select_related = ("owner", "session")
    readonly_fields = ("embedding_model",)

    @admin.display(description="content")
    def short_content(self, turn: Turn) -> str:
        return turn.content[:120]


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "tool_name", "success", "duration_ms", "timestamp")
    list_filter = ("owner", "success", "tool_name")
    search_fields = ("tool_name", "error", "owner__username")
