"""Staff view of conversations, read-only: turns are written by the conversation services,
and removed only through privacy's erase and redaction (never from here)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from conversations.models import Session, ToolCall, Turn


class ReadOnlyAdmin(admin.ModelAdmin):
    """Lists, search and the detail pages stay; no add, no change, no delete (bulk or one)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
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
class TurnAdmin(ReadOnlyAdmin):
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
class ToolCallAdmin(ReadOnlyAdmin):
    list_display = ("id", "owner", "tool_name", "success", "duration_ms", "timestamp")
    list_filter = ("owner", "success", "tool_name")
    search_fields = ("tool_name", "error", "owner__username")
