"""Staff view of API tokens, agents, agent types, user settings, and apps with their tokens
and people; every change to a user's rows goes through the services. Agent types and
apps are staff's own: registered here.

A new app token's secret is shown once, on the page that answers the form, never in a
message (messages may sit in a cookie). A person of an app is erased (their memory, then
their account), never deleted as a bare row.
"""

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers

from accounts import agents, people
from accounts.models import Agent, AgentType, ApiToken, App, AppPerson, AppToken, UserSettings
from accounts.services import EDITABLE, token_revoke, user_settings_update
from accounts.throttle import throttle_admin_login
from privacy.services import app_person_erase

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


def _secret_page(request: HttpRequest, token: AppToken, secret: str) -> HttpResponse:
    response = TemplateResponse(
        request,
        "admin/accounts/secret_once.html",
        {
            **admin.site.each_context(request),
            "title": f"Token “{token.name}” of app {token.app.name}",
            "secret": secret,
            "back": reverse("admin:accounts_app_change", args=[token.app_id]),
            "back_label": token.app.name,
        },
    )
    add_never_cache_headers(response)
    return response


class _SecretOnceAdmin(admin.ModelAdmin):
    """An add shows the new token's secret once; `save_model` leaves the token and its
    secret on the request as `_new_token`."""

    def response_add(self, request: HttpRequest, obj: Model, post_url_continue=None):
        token, secret = request._new_token
        return _secret_page(request, token, secret)


class AppTokenInline(admin.TabularInline):
    model = AppToken
    fields = ("name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a token is added on its own page, which shows the secret once


@admin.register(App)
class AppAdmin(_SecretOnceAdmin):
    list_display = ("name", "people", "created_at", "disabled_at")
    search_fields = ("name", "description")
    inlines = (AppTokenInline,)
    actions = ("disable", "enable")

    def get_queryset(self, request: HttpRequest):
        return people.app_list()

    @admin.display(description="people", ordering="people_count")
    def people(self, app: App) -> int:
        return app.people_count

    def get_inlines(self, request: HttpRequest, obj: Any = None):
        return () if obj is None else self.inlines  # the first token comes with the app

    def get_fields(self, request: HttpRequest, obj: Any = None):
        if obj is None:
            return ("name", "description")
        return ("name", "description", "created_by", "created_at", "disabled_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return () if obj is None else ("name", "created_by", "created_at", "disabled_at")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # its people's accounts would stay behind: disable it instead

    def save_model(self, request, obj, form, change) -> None:
        if change:
            people.app_update(app=obj, description=form.cleaned_data["description"])
            return
        app, token, secret = people.app_create_with_token(
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
            created_by=request.user,
        )
        obj.pk, obj.created_at = app.pk, app.created_at
        request._new_token = (token, secret)

    @admin.action(description="Disable (its tokens answer 401)")
    def disable(self, request, queryset) -> None:
        for app in queryset:
            people.app_set_disabled(app=app, disabled=True)
        messages.success(request, "Disabled.")

    @admin.action(description="Enable")
    def enable(self, request, queryset) -> None:
        for app in queryset:
            people.app_set_disabled(app=app, disabled=False)
        messages.success(request, "Enabled.")


@admin.register(AppToken)
class AppTokenAdmin(_SecretOnceAdmin):
    list_display = ("name", "app", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("app",)
    search_fields = ("name", "prefix", "app__name")
    actions = ("revoke",)

    def get_fields(self, request: HttpRequest, obj: Any = None):
        if obj is None:
            return ("app", "name")
        return ("app", "name", "prefix", "created_at", "last_used_at", "revoked_at")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # nothing of a token changes but revoking it (the action)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoke it: history names the tokens that wrote

    def save_model(self, request, obj, form, change) -> None:
        token, secret = people.app_token_add(app=obj.app, name=form.cleaned_data["name"])
        obj.pk = token.pk
        request._new_token = (token, secret)

    @admin.action(description="Revoke")
    def revoke(self, request, queryset) -> None:
        for token in queryset.select_related("app"):
            people.app_token_revoke(app=token.app, token_id=token.pk)
        messages.success(request, "Revoked. They stop working with the next request.")


@admin.register(AppPerson)
class AppPersonAdmin(admin.ModelAdmin):
    list_display = ("external_id", "app", "user", "created_at")
    list_filter = ("app",)
    search_fields = ("external_id", "app__name")
    fields = ("app", "external_id", "user", "metadata", "created_at")
    readonly_fields = fields
    actions = ("erase",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the app creates its people

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a plain delete would leave the account and its memory: erase

    @admin.action(description="Erase (their whole memory, then the account; cannot be undone)")
    def erase(self, request, queryset) -> None:
        chosen = list(queryset.select_related("app", "user"))
        for person in chosen:
            app_person_erase(app=person.app, person=person)
        messages.success(request, f"Erased {len(chosen)} person(s).")


throttle_admin_login(admin.site)  # the admin login counts against the same login limit
