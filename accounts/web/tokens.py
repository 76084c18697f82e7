"""Agents and API tokens page: create a token (the secret is shown once) for an agent,
list, revoke; change an agent's default context."""

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.agents import agent_list, agent_update
from accounts.forms import AgentForm, TokenForm
from accounts.models import Agent, AgentType, ApiToken
from accounts.services import token_create, token_revoke
from core.pages import missing_is_404


@never_cache  # the response that carries a new secret must never be cached
@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    """GET lists the user's tokens; POST creates one and shows its secret once."""
    form = TokenForm(request.POST or None)
    created = secret = None
    if request.method == "POST" and form.is_valid():
        days = form.cleaned_data["expires_in"]
        expires_at = timezone.now() + timedelta(days=int(days)) if days else None
        created, secret = token_create(
            user=request.user,
            name=form.cleaned_data["name"],
            expires_at=expires_at,
            agent_name=form.cleaned_data["agent"] or None,
        )
        form = TokenForm()
    tokens = (
        ApiToken.objects.for_user(request.user)
        .select_related("agent")
        .order_by("revoked_at", "-created_at")
    )
    return render(
        request,
        "web/tokens.html",
        {
            "form": form,
            "tokens": tokens,
            "agents": agent_list(user=request.user),
            "agent_types": AgentType.objects.order_by("name"),
            "created": created,
            "secret": secret,
            "api_base": request.build_absolute_uri("/api/v1/"),
        },
    )


@require_POST
@login_required
def token_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    with missing_is_404(ApiToken):
        token = token_revoke(user=request.user, token_id=pk)
    messages.success(request, f"Token “{token.name}” revoked. It stopped working at once.")
    return redirect("web-token-list")


@require_POST
@login_required
def agent_edit(request: HttpRequest, pk: int) -> HttpResponse:
    form = AgentForm(request.POST)
    if not form.is_valid():  # e.g. a context longer than 100 characters
        problems = [f"{name}: {' '.join(texts)}" for name, texts in form.errors.items()]
        messages.error(request, "Not saved: " + "; ".join(problems))
        return redirect("web-token-list")
    given = {k: v for k, v in form.cleaned_data.items() if k in request.POST}
    try:
        with missing_is_404(Agent):
            agent = agent_update(user=request.user, agent_id=pk, **given)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("web-token-list")
    kind = f", type “{agent.agent_type.name}”" if agent.agent_type else ""
    messages.success(
        request,
        f"Agent “{agent.name}” now writes to “{agent.default_context}” by default{kind}.",
    )
    return redirect("web-token-list")
