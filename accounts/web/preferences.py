"""Settings page: time zone, memory on/off, automatic extraction, steering, contexts."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.forms import SettingsForm
from accounts.services import user_settings_get, user_settings_update
from core.forms import apply_service_errors

FIELDS = ("timezone", "memory_enabled", "auto_extract", "extraction_steering", "contexts")


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    current = user_settings_get(request.user)
    initial = {name: getattr(current, name) for name in FIELDS}
    initial["contexts"] = "\n".join(current.contexts)
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            user_settings_update(
                user=request.user, **{name: form.cleaned_data[name] for name in FIELDS}
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, "Settings saved.")
            return redirect("web-settings")
    return render(request, "web/settings.html", {"form": form, "settings": current})
