"""Memory pages: search and list, detail with history and origin, add, edit, forget,
restore or erase one version."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.selectors import memory_on
from accounts.services import user_settings_get
from conversations.models import Turn
from core.forms import apply_service_errors
from learning.llm import llm_configured
from memory import lineage, selectors, services
from memory.models import KnowledgeItem, MemoryVersion
from memory.recall import recall
from memory.versions import item_history
from memory.web.forms import MemoryFilterForm, MemoryForm
from privacy import services as privacy_services

PAGE_SIZE = 25
SEARCH_TOP_K = 100
EDITABLE = (
    "content",
    "category",
    "context",
    "entity",
    "domain",
    "sensitive",
    "pinned",
    "due_at",
)


def _owned(request: HttpRequest, pk: int) -> KnowledgeItem:
    return get_object_or_404(KnowledgeItem.objects.for_user(request.user), pk=pk)


def _next_or(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def _search(user: Any, filters: dict[str, Any]) -> list:
    """Recall (the same search agents get), narrowed by the filters recall lacks."""
    hits = recall(
        user=user,
        query=filters["q"],
        top_k=SEARCH_TOP_K,
        category=filters.get("category") or None,
        context=filters.get("context") or None,
        entity=filters.get("entity") or None,
        include_sensitive=filters.get("sensitive") != "no",
        agent=filters.get("agent") or None,
    )
    keep = []
    for hit in hits:
        item = hit.item
        if filters.get("context") and item.context != filters["context"]:
            continue
        if filters.get("source") and item.source != filters["source"]:
            continue
        if filters.get("sensitive") == "yes" and not item.sensitive:
            continue
        keep.append(hit)
    return keep


def _row(entry: Any, searching: bool) -> dict[str, Any]:
    item = entry.item if searching else entry
    row: dict[str, Any] = {"item": item}
    if searching:
        row.update(score=entry.score, matched_by=entry.matched_by, relevance=entry.relevance)
    return row


def _listing(user: Any, filters: dict[str, Any]) -> Any:
    """The person's items under the list filters; with memory off, a search is a match
    of the words typed (recall finds nothing for anyone while memory is off)."""
    items = selectors.memory_list(
        user=user,
        category=filters.get("category") or None,
        context=filters.get("context") or None,
        entity=filters.get("entity") or None,
        source=filters.get("source") or None,
        agent=filters.get("agent") or None,
        sensitive={"yes": True, "no": False}.get(filters.get("sensitive") or ""),
        include_forgotten=bool(filters.get("forgotten")),
        include_superseded=bool(filters.get("superseded")),
        ordering=filters.get("ordering") or "-updated_at",
    )
    typed = (filters.get("q") or "").strip()
    return items.filter(content__icontains=typed) if typed else items


@login_required
def memory_list_page(request: HttpRequest) -> HttpResponse:
    form = MemoryFilterForm(request.GET or None)
    filters = form.cleaned_data if form.is_valid() else {}
    memory_off = not memory_on(request.user)
    searching = bool((filters.get("q") or "").strip()) and not memory_off
    error = ""
    if searching:
        try:
            hits = _search(request.user, filters)
        except ValidationError as exc:
            error = " ".join(exc.messages)
            hits = []
        page = Paginator(hits, PAGE_SIZE).get_page(request.GET.get("page"))
    else:
        page = Paginator(_listing(request.user, filters), PAGE_SIZE).get_page(
            request.GET.get("page")
        )
    filtered = any(
        filters.get(k)
        for k in (
            "category",
            "context",
            "entity",
            "agent",
            "source",
            "sensitive",
            "forgotten",
            "superseded",
        )  # fmt: skip
    )
    return render(
        request,
        "web/memories/list.html",
        {
            "form": form,
            "page": page,
            "searching": searching,
            "rows": [_row(entry, searching) for entry in page.object_list],
            "filtered": filtered,
            "error": error,
            "memory_off": memory_off,
        },
    )


def _origin(request: HttpRequest, item: KnowledgeItem) -> dict[str, Any]:
    turn = None
    if item.source_turn_id:
        turn = (
            Turn.objects.for_user(request.user)
            .select_related("session")
            .filter(pk=item.source_turn_id)
            .first()
        )
    return {"turn": turn}


@login_required
def memory_detail_page(request: HttpRequest, pk: int) -> HttpResponse:
    item = _owned(request, pk)
    return render(
        request,
        "web/memories/detail.html",
        {
            "item": item,
            "history": item_history(user=request.user, item=item),
            "origin": _origin(request, item),
            "conflicts": lineage.item_conflicts(user=request.user, item=item),
            "reconciling": llm_configured(),
        },
    )


def _context_options(user: Any) -> list[str]:
    names = {row["context"] for row in selectors.contexts_list(user=user)}
    names.update(user_settings_get(user).contexts)
    names.add("global")
    return sorted(names)


def _form_page(request: HttpRequest, form: Any, item: KnowledgeItem | None) -> HttpResponse:
    """The add (`item` None) or edit form, offering the contexts the user has."""
    return render(
        request,
        "web/memories/form.html",
        {"form": form, "item": item, "contexts": _context_options(request.user)},
    )


@login_required
def memory_add_page(request: HttpRequest) -> HttpResponse:
    form = MemoryForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = {k: v for k, v in form.cleaned_data.items() if k in EDITABLE}
        try:
            item = services.memory_create(user=request.user, source="user", **data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            if item.deduplicated:
                messages.info(request, "You had a memory saying the same, so it was updated.")
            elif item.outcome == "conflict":
                messages.warning(
                    request, "Memory added; it may conflict with one you had (see below)."
                )
            else:
                messages.success(request, "Memory added.")
            return redirect("web-memory-detail", pk=item.pk)
    return _form_page(request, form, None)


@login_required
def memory_edit_page(request: HttpRequest, pk: int) -> HttpResponse:
    item = _owned(request, pk)
    initial = {name: getattr(item, name) for name in EDITABLE}
    form = MemoryForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name in EDITABLE}
        if not changes:
            messages.info(request, "Nothing changed.")
            return redirect("web-memory-detail", pk=item.pk)
        try:
            services.memory_update(
                user=request.user,
                item_id=item.pk,
                source="user",
                reason=form.cleaned_data["reason"],
                **changes,
            )
        except KnowledgeItem.DoesNotExist:
            raise Http404 from None
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, "Memory saved.")
            return redirect("web-memory-detail", pk=item.pk)
    return _form_page(request, form, item)


def _act(request: HttpRequest, pk: int, action, done: str) -> HttpResponse:
    try:
        item = action(user=request.user, item_id=pk)
    except KnowledgeItem.DoesNotExist:
        raise Http404 from None
    messages.success(request, done)
    return redirect(_next_or(request, reverse("web-memory-detail", args=[item.pk])))


@require_POST
@login_required
def memory_forget_page(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, services.memory_forget, "Forgotten. Agents no longer see it.")


@require_POST
@login_required
def memory_restore_page(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, services.memory_restore, "Restored exactly as it was.")


@login_required
def memory_erase_page(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST erases for good."""
    item = _owned(request, pk)
    if request.method == "POST":
        privacy_services.memory_erase(user=request.user, item_id=item.pk)
        messages.success(request, "Erased for good.")
        return redirect("web-memory-list")
    older = item_history(user=request.user, item=item)[1:]
    return render(request, "web/memories/erase.html", {"item": item, "older": older})


def _version(request: HttpRequest, pk: int, version_id: int) -> MemoryVersion:
    return get_object_or_404(
        MemoryVersion.objects.for_user(request.user), pk=version_id, item_id=pk
    )


@require_POST
@login_required
def memory_version_restore_page(request: HttpRequest, pk: int, version_id: int) -> HttpResponse:
    version = _version(request, pk, version_id)
    try:
        lineage.memory_version_restore(user=request.user, item_id=pk, version_id=version.pk)
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    else:
        messages.success(request, "That version is current again; the text it replaced is kept.")
    return redirect("web-memory-detail", pk=pk)


@login_required
def memory_version_erase_page(request: HttpRequest, pk: int, version_id: int) -> HttpResponse:
    """GET asks for confirmation; POST erases that one version for good."""
    version = _version(request, pk, version_id)
    if request.method == "POST":
        privacy_services.memory_version_erase(user=request.user, item_id=pk, version_id=version.pk)
        messages.success(request, "That version is erased for good.")
        return redirect("web-memory-detail", pk=pk)
    return render(request, "web/memories/version_erase.html", {"version": version})
