"""Staff view of API tokens, agents, agent types and user settings; every change to a
user's rows goes through the services. Agent types are staff's own: registered here."""

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from accounts import agents
from accounts.models import Agent, AgentType, ApiToken, UserSettings
from accounts.services import EDITABLE, token_revoke, user_settings_update
from accounts.throttle import throttle_admin_login

_REFUSED = "_admin_refused_by_service"


class ServiceSaveAdmin(admin.ModelAdmin):
    """A ModelAdmin whose `save_model` writes through a service (`service_save`).

    A ValidationError from the service is shown as an error message and the staff user
    is sent back to the form: the row stays as it was, and no change is logged or
    announced as saved.
    """

    def service_save(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool):
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        try:
            self.service_save(request, obj, form, change)
        except ValidationError as error:
            setattr(obj, _REFUSED, True)
            self.message_user(request, "Not saved: " + " ".join(_texts(error)), messages.ERROR)

    def log_addition(self, request: HttpRequest, obj: Model, message: Any):
        return None if _refused(obj) else super().log_addition(request, obj, message)

    def log_change(self, request: HttpRequest, obj: Model, message: Any):
        return None if _refused(obj) else super().log_change(request, obj, message)

    def response_add(self, request: HttpRequest, obj: Model, *args, **kwargs) -> HttpResponse:
        if _refused(obj):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_add(request, obj, *args, **kwargs)

    def response_change(self, request: HttpRequest, obj: Model) -> HttpResponse:
        if _refused(obj):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)


def _refused(obj: Model) -> bool:
    return getattr(obj, _REFUSED, False)


def _texts(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{name}: {' '.join(texts)}" for name, texts in error.message_dict.items()]
    return list(error.messages)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "owner",
        "prefix",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("owner",)
    search_fields = ("name", "owner__username", "prefix")
    readonly_fields = ("owner", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke",)

    def has_add_permission(self, request):
        return False  # secrets are shown once: create tokens in the web app or by command

    @admin.action(description="Revoke")
    def revoke(self, request, queryset):
        for token in queryset.select_related("owner"):
            token_revoke(user=token.owner, token_id=token.pk)
        messages.success(request, "Revoked.")


@admin.register(UserSettings)
class UserSettingsAdmin(ServiceSaveAdmin):
    list_display = ("user", "timezone", "memory_enabled", "auto_extract", "discovery_consent")
    search_fields = ("user__username",)
    readonly_fields = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # rows are created on demand by user_settings_get

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # nothing needs it; a user's settings go with the user

    def service_save(self, request, obj, form, change):
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name in EDITABLE}
        if changes:
            user_settings_update(user=obj.user, **changes)


@admin.register(AgentType)
class AgentTypeAdmin(admin.ModelAdmin):
    """Kinds of agent (gmail_agent, ...) whose instances share skill memory."""

    list_display = ("name", "auto_approve_skills", "created_at")
    search_fields = ("name",)
    readonly_fields = ("created_at",)


@admin.register(Agent)
class AgentAdmin(ServiceSaveAdmin):
    list_display = ("name", "owner", "agent_type", "default_context", "created_at")
    list_filter = ("agent_type",)
    search_fields = ("name", "owner__username")
    fields = ("owner", "name", "agent_type", "default_context", "description", "created_at")
    readonly_fields = ("owner", "name", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # agents come with their tokens

    def service_save(self, request, obj, form, change):
        changes = {
            name: form.cleaned_data[name] for name in form.changed_data if name in agents.EDITABLE
        }
        if "agent_type" in changes:
            changes["agent_type"] = changes["agent_type"].name if changes["agent_type"] else ""
        if changes:
            agents.agent_update(user=obj.owner, agent_id=obj.pk, **changes)


throttle_admin_login(admin.site)  # the admin login counts against the same login limit
