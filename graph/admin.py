"""Staff view of every person's graph, read-only but for ending relations (through the
service); entities and relations are otherwise changed on their owner's People pages or
through the API, and removed only by erasure."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from conversations.admin import ReadOnlyAdmin
from graph.models import Alias, Entity, Relation
from graph.services import relation_end


class AliasInline(admin.TabularInline):
    model = Alias
    fields = ("text",)
    readonly_fields = ("text",)
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Entity | None = None) -> bool:
        return False


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "owner", "holder", "created_at", "updated_at")
    list_filter = ("kind", "holder")
    search_fields = ("name", "aliases__text", "owner__username")
    list_select_related = ("owner",)
    inlines = (AliasInline,)


@admin.register(Relation)
class RelationAdmin(ReadOnlyAdmin):
    list_display = ("subject", "type", "object", "owner", "valid_from", "valid_to", "ended_by")
    list_filter = ("type",)
    search_fields = ("subject__name", "object__name", "owner__username")
    list_select_related = ("owner", "subject", "object", "ended_by__subject", "ended_by__object")
    actions = ("end_relations",)

    @admin.action(description="End the selected relations now (they are kept, ended)")
    def end_relations(self, request: HttpRequest, queryset: QuerySet) -> None:
        ended = 0
        for relation in queryset.filter(valid_to__isnull=True).select_related("owner"):
            relation_end(user=relation.owner, relation=relation)
            ended += 1
        messages.success(request, f"Ended {ended} relation(s).")
