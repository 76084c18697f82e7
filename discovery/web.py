"""The review queue in the web app: approve, edit, reject, bulk approve, consent, reset.

Every action is a POST with CSRF and goes through discovery.services; another user's
finding id is a 404 like a missing one.
"""

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.services import user_settings_get, user_settings_update
from discovery import selectors, services
from discovery.models import Finding
from discovery.scanners import SCANNERS
from memory.models import CATEGORIES
from privacy import services as privacy_services

PAGE_SIZE = 50
QUEUE = "web-discovery-queue"


def _settings_url() -> str | None:
    """The web app's settings page, when the web app provides one."""
    try:
        return reverse("web-settings")
    except NoReverseMatch:
        return None


def _act(request: HttpRequest, action: Callable[[], Any], success: str) -> HttpResponse:
    try:
        action()
    except Finding.DoesNotExist:
        raise Http404("No such finding.") from None
    except services.ConsentRequired as error:
        messages.error(request, error.message)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, success)
    return redirect(QUEUE)


@login_required
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    consent = user_settings_get(request.user).discovery_consent
    context: dict[str, Any] = {
        "consent": consent,
        "settings_url": _settings_url(),
        "scanners": SCANNERS.values(),
    }
    if consent:
        pending = selectors.findings_list(user=request.user, status="pending")
        context["page"] = Paginator(pending, PAGE_SIZE).get_page(request.GET.get("page"))
        context["counts"] = selectors.findings_counts(user=request.user)
        context["categories"] = CATEGORIES
    return render(request, "discovery/queue.html", context)


@login_required
@require_POST
def approve(request: HttpRequest, pk: int) -> HttpResponse:
    edits: dict[str, Any] = {}
    if request.POST.get("edit") == "1":
        edits = {
            name: request.POST.get(name, "")
            for name in ("content", "category", "context", "entity")
        }
        edits["sensitive"] = request.POST.get("sensitive") == "on"  # fmt: skip
    return _act(
        request,
        lambda: services.finding_approve(user=request.user, finding_id=pk, edits=edits),
        "Approved: it is now part of your memory.",
    )


@login_required
@require_POST
def reject(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        lambda: services.finding_reject(user=request.user, finding_id=pk),
        "Rejected: it will not be proposed again.",
    )


@login_required
@require_POST
def approve_bulk(request: HttpRequest) -> HttpResponse:
    try:
        ids = [int(value) for value in request.POST.getlist("ids")]
    except ValueError:
        ids = []
    if not ids:
        messages.error(request, "Select at least one finding to approve.")
        return redirect(QUEUE)
    return _act(
        request,
        lambda: services.findings_approve_bulk(user=request.user, finding_ids=ids),
        f"Approved {len(ids)} finding(s).",
    )


@login_required
@require_POST
def consent(request: HttpRequest) -> HttpResponse:
    enabled = request.POST.get("consent") == "on"
    user_settings_update(user=request.user, discovery_consent=enabled)
    messages.success(request, "Discovery is on." if enabled else "Discovery is off.")
    return redirect(QUEUE)


@login_required
@require_POST
def reset(request: HttpRequest) -> HttpResponse:
    if request.POST.get("confirm") != "on":
        messages.error(request, "Tick the confirmation box to erase all discovery items.")
        return redirect(QUEUE)
    result = privacy_services.discovery_reset(user=request.user)
    messages.success(
        request,
        f"Erased {result.erased_items} discovery item(s) and cleared "
        f"{result.cleared_findings} finding(s).",
    )
    return redirect(QUEUE)
