"""Staff view of findings; decisions go through the services (the owner's consent holds)."""

from collections.abc import Callable

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from discovery import services
from discovery.models import Finding
from memory.admin import MASK


def _each(request: HttpRequest, queryset: QuerySet, action: Callable, verb: str) -> None:
    done, failed = 0, []
    for finding in queryset.select_related("owner"):
        try:
            action(user=finding.owner, finding_id=finding.pk)
            done += 1
        except (ValidationError, PermissionDenied) as error:
            failed.append(f"#{finding.pk}: {' '.join(getattr(error, 'messages', [str(error)]))}")
    messages.success(request, f"{verb} {done} finding(s).")
    if failed:
        messages.warning(request, "Not done: " + "; ".join(failed))


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "scanner", "shown_content", "category", "status", "created_at")
    list_filter = ("status", "scanner", "category", "sensitive", "owner")
    search_fields = ("content", "entity", "owner__username")
    list_select_related = ("owner",)
    readonly_fields = [f.name for f in Finding._meta.fields]
    actions = ("approve", "reject")

    @admin.display(description="content")
    def shown_content(self, finding: Finding) -> str:
        return MASK if finding.sensitive else finding.content[:120]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # findings come from scans only

    def has_change_permission(self, request: HttpRequest, obj: Finding | None = None) -> bool:
        # Every field is read-only: a finding's page is for viewing, decisions are actions.
        return obj is None and super().has_change_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Finding | None = None) -> bool:
        return False  # a finding goes only through its services (approve, reject, reset)

    @admin.action(description="Approve (becomes knowledge)")
    def approve(self, request: HttpRequest, queryset: QuerySet) -> None:
        _each(request, queryset, services.finding_approve, "Approved")

    @admin.action(description="Reject")
    def reject(self, request: HttpRequest, queryset: QuerySet) -> None:
        _each(request, queryset, services.finding_reject, "Rejected")
