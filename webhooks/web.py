"""Settings > Webhooks: a signed-in person's endpoints and their recent deliveries; add
one (its secret shown once), pause, resume, ping, rotate the secret, delete."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from webhooks import delivery, selectors, services
from webhooks.models import EVENTS, Endpoint

ACTIONS = ("pause", "resume", "ping", "secret", "delete")


class EndpointForm(forms.Form):
    url = forms.CharField(label="Receiver URL", max_length=2000)
    events = forms.MultipleChoiceField(
        choices=[(e, e) for e in EVENTS],
        initial=list(EVENTS),
        widget=forms.CheckboxSelectMultiple,
        help_text="What it receives.",
    )
    description = forms.CharField(max_length=200, required=False)


def _page(request: HttpRequest, form: EndpointForm, **shown: object) -> HttpResponse:
    endpoints = list(selectors.endpoint_list(user=request.user))
    return render(
        request,
        "web/webhooks.html",
        {
            "form": form,
            "endpoints": endpoints,
            "deliveries": selectors.recent_deliveries(endpoints=endpoints),
            **shown,
        },
    )


@never_cache  # a response that carries a new secret must never be cached
@login_required
def webhook_list(request: HttpRequest) -> HttpResponse:
    """GET lists the person's endpoints and recent deliveries; POST adds an endpoint."""
    form = EndpointForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created, secret = services.endpoint_create(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            for message in error.messages:
                form.add_error(None, message)
        else:
            return _page(request, EndpointForm(), shown_for=created, secret=secret)
    return _page(request, form)


@never_cache
@require_POST
@login_required
def webhook_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """One of ACTIONS on one of the person's endpoints (another's is a 404)."""
    if action not in ACTIONS:
        raise Http404
    try:
        endpoint = selectors.endpoint_get(user=request.user, endpoint_id=pk)
    except Endpoint.DoesNotExist:
        raise Http404 from None
    if action == "secret":
        secret = services.endpoint_rotate_secret(endpoint=endpoint)
        return _page(request, EndpointForm(), shown_for=endpoint, secret=secret)
    if action == "pause":
        services.endpoint_pause(endpoint=endpoint)
        messages.success(request, "Paused: events wait for it until you resume it.")
    elif action == "resume":
        services.endpoint_resume(endpoint=endpoint)
        messages.success(request, "Resumed: waiting events are being sent, oldest first.")
    elif action == "ping":
        sent = delivery.ping_send(endpoint=endpoint)
        if sent.status == sent.DELIVERED:
            messages.success(request, f"Ping delivered (HTTP {sent.last_status_code}).")
        else:
            messages.error(request, f"Ping failed: {sent.last_error}")
    else:
        services.endpoint_delete(endpoint=endpoint)
        messages.success(request, "Endpoint deleted with its waiting events and log.")
    return redirect("web-webhooks")
