"""Staff curation of every user's memory; edits, actions and deletes go through the services."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from accounts.admin import ServiceSaveAdmin
from memory import services
from memory.models import KnowledgeItem, MemoryVersion, UsageDay
from privacy import services as privacy_services

# The fields an item added here takes from the form (the rest: the service's defaults).
CREATED_FROM_FORM = (
    "content", "category", "domain", "context", "entity", "sensitive", "pinned", "metadata",
    "due_at",
)  # fmt: skip

MASK = "•••• sensitive ••••"


class _SetFilter(admin.SimpleListFilter):
    """Rows whose `field` is set ("yes") or empty ("no")."""

    field = ""
    labels = ("", "")  # the answers to "yes" and "no"

    def lookups(self, request, model_admin):
        return list(zip(("yes", "no"), self.labels, strict=True))

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(**{f"{self.field}__isnull": self.value() == "no"})
        return queryset


class ForgottenFilter(_SetFilter):
    title = parameter_name = "forgotten"
    labels = ("Forgotten", "Not forgotten")
    field = "forgotten_at"


class SupersededFilter(_SetFilter):
    title = parameter_name = "superseded"
    labels = ("Superseded", "Current")
    field = "superseded_by"


def _each(request: HttpRequest, queryset: QuerySet, action, verb: str) -> None:
    done = 0
    for item in queryset.select_related("owner"):
        action(user=item.owner, item_id=item.pk)
        done += 1
    messages.success(request, f"{verb} {done} item(s).")


@admin.register(KnowledgeItem)
class KnowledgeItemAdmin(ServiceSaveAdmin):
    list_display = (
        "id",
        "owner",
        "category",
        "shown_content",
        "context",
        "entity",
        "source",
        "confidence",
        "sensitive",
        "pinned",
        "updated_at",
    )
    list_filter = (
        "owner",
        "category",
        "context",
        "source",
        "sensitive",
        "pinned",
        ForgottenFilter,
        SupersededFilter,
    )
    search_fields = ("content", "entity", "domain", "owner__username")
    readonly_fields = (
        "owner",
        "embedding_model",
        "importance",
        "use_count",
        "last_used",
        "created_at",
        "updated_at",
        "superseded_by",
        "conflicts_with",
        "forgotten_at",
        "source_turn",
        "agent",
        "token",
        "earlier_versions",
    )
    list_select_related = ("owner",)
    actions = ("forget_items", "restore_items", "erase_items", "mark_sensitive")

    @admin.display(description="content")
    def shown_content(self, item: KnowledgeItem) -> str:
        return MASK if item.sensitive else item.content[:120]

    @admin.display(description="earlier versions")
    def earlier_versions(self, item: KnowledgeItem) -> str:
        """Newest first, read only: they change through restore and erase (web, API)."""
        rows = [
            (
                f"{v.created_at:%Y-%m-%d %H:%M}",
                v.change_source,
                v.token_name or "-",
                v.reason or "-",
                MASK if v.sensitive else v.content[:200],
            )
            for v in MemoryVersion.objects.filter(item=item).order_by("-created_at", "-pk")
        ]
        if not rows:
            return "none"
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li>{} · replaced by {} (token {}; {}): {}</li>", rows),
        )

    def service_save(self, request, obj, form, change):
        fields = {
            name: form.cleaned_data[name]
            for name in form.changed_data
            if name in services.UPDATABLE
        }
        if change:
            if fields:
                services.memory_update(user=obj.owner, item_id=obj.pk, source="user", **fields)
            return
        created = services.memory_create(
            user=form.cleaned_data["owner"] if "owner" in form.cleaned_data else request.user,
            source="user",
            **{k: form.cleaned_data.get(k) for k in CREATED_FROM_FORM},
        )
        obj.pk = created.pk

    def get_readonly_fields(self, request, obj=None):
        return (
            self.readonly_fields if obj else tuple(f for f in self.readonly_fields if f != "owner")
        )

    @admin.action(description="Forget (soft delete, restorable)")
    def forget_items(self, request, queryset):
        _each(request, queryset, services.memory_forget, "Forgot")

    @admin.action(description="Restore forgotten items")
    def restore_items(self, request, queryset):
        _each(request, queryset, services.memory_restore, "Restored")

    @admin.action(description="Erase for good (hard delete)")
    def erase_items(self, request, queryset):
        _each(request, queryset, privacy_services.memory_erase, "Erased")

    @admin.action(description="Mark sensitive")
    def mark_sensitive(self, request, queryset):
        for item in queryset.select_related("owner"):
            services.memory_update(user=item.owner, item_id=item.pk, source="user", sensitive=True)
        messages.success(request, f"Marked {queryset.count()} item(s) sensitive.")

    def delete_model(self, request, obj):
        privacy_services.memory_erase(user=obj.owner, item_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for item in queryset.select_related("owner"):
            privacy_services.memory_erase(user=item.owner, item_id=item.pk)


@admin.register(UsageDay)
class UsageDayAdmin(admin.ModelAdmin):
    """Usage analytics: searches, memories used and skills applied per person and day
    (counts only). Written by recall and skill search, never by hand."""

    list_display = ("day", "owner", "kind", "count")
    list_filter = ("kind", "day")
    date_hierarchy = "day"
    search_fields = ("owner__username",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
