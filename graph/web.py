"""The graph pages: a person's entities as a small drawing (server-rendered SVG) and a
list, and one entity's page (aliases, relations now and before with their times, its
memories) where they add aliases, merge, split, and end a relation."""

import math
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.ids import as_id
from graph import selectors, services
from graph.api import entity_page
from graph.models import Entity, Relation
from graph.wording import label, other_names, shown_name, worded

ACTIONS = ("alias", "merge", "split")
DRAWN = 40  # entities in the drawing: the person and those with the most relations
WIDTH, HEIGHT = 720, 460


def drawing(user: Any) -> dict:
    """Positions for an SVG of the person's entities and relations: the person in the
    middle, the others on a ring; relations that ended are drawn dashed."""
    relations = list(selectors.relations(user=user))
    degree: dict[int, int] = {}
    for r in relations:
        degree[r.subject_id] = degree.get(r.subject_id, 0) + 1
        degree[r.object_id] = degree.get(r.object_id, 0) + 1
    entities = sorted(
        selectors.entities(user=user), key=lambda e: (not e.holder, -degree.get(e.pk, 0), e.name)
    )[:DRAWN]
    ring = [e for e in entities if not e.holder]
    cx, cy = WIDTH / 2, HEIGHT / 2
    at: dict[int, tuple[float, float]] = {}
    nodes = []
    for entity in entities:
        if entity.holder:
            x, y = cx, cy
        else:
            angle = 2 * math.pi * ring.index(entity) / max(1, len(ring)) - math.pi / 2
            x, y = cx + (cx - 90) * math.cos(angle), cy + (cy - 40) * math.sin(angle)
        at[entity.pk] = (round(x, 1), round(y, 1))
        x, y = at[entity.pk]
        nodes.append({"entity": entity, "name": shown_name(entity), "x": x, "y": y})
    edges = [
        {
            "relation": r,
            "label": label(r.type),
            "x1": at[r.subject_id][0],
            "y1": at[r.subject_id][1],
            "x2": at[r.object_id][0],
            "y2": at[r.object_id][1],
            "mx": round((at[r.subject_id][0] + at[r.object_id][0]) / 2, 1),
            "my": round((at[r.subject_id][1] + at[r.object_id][1]) / 2, 1),
        }  # fmt: skip
        for r in relations
        if r.subject_id in at and r.object_id in at
    ]
    return {"nodes": nodes, "edges": edges, "width": WIDTH, "height": HEIGHT}


@login_required
def graph_view(request: HttpRequest) -> HttpResponse:
    """The person's entities, drawn and listed."""
    entities = list(selectors.entities(user=request.user).prefetch_related("aliases"))
    for entity in entities:
        entity.shown = shown_name(entity)
        entity.other_names = other_names(entity, [a.text for a in entity.aliases.all()])
    return render(
        request, "web/graph.html", {"entities": entities, "drawing": drawing(request.user)}
    )


class SplitForm(forms.Form):
    name = forms.CharField(max_length=200, help_text="The other one's name.")
    aliases = forms.CharField(
        max_length=1000, required=False, help_text="Comma-separated names that go with it."
    )


def _entity(request: HttpRequest, pk: int) -> Entity:
    try:
        return selectors.entity_get(user=request.user, entity_id=pk)
    except Entity.DoesNotExist:
        raise Http404 from None


@login_required
def entity_view(request: HttpRequest, pk: int) -> HttpResponse:
    """One entity: aliases, relations now and before, memories, and what can be done."""
    entity = _entity(request, pk)
    others = list(selectors.entities(user=request.user).exclude(pk=entity.pk))
    for other in others:
        other.shown = shown_name(other)
    page = entity_page(request.user, entity)
    page["relations_now"] = worded(page["relations_now"])
    page["relations_before"] = worded(page["relations_before"])
    names = other_names(entity, [a.text for a in entity.aliases.all()])
    return render(
        request,
        "web/graph_entity.html",
        {**page, "shown": shown_name(entity), "other_names": names, "others": others,
         "split_form": SplitForm()},
    )  # fmt: skip


@require_POST
@login_required
def entity_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Add an alias, merge another entity in, or split one off (another's id is a 404)."""
    if action not in ACTIONS:
        raise Http404
    entity = _entity(request, pk)
    target = entity
    try:
        if action == "alias":
            taken = services.entity_alias_add(
                user=request.user, entity=entity, aliases=[request.POST.get("alias", "")]
            )
            if taken:
                messages.error(request, f"Another entity goes by {taken[0]}: merge them.")
        elif action == "merge":
            other = as_id(request.POST.get("other", ""))
            if other is None:
                raise ValidationError("Choose the entity to merge in.")
            target = services.entity_merge(user=request.user, into=entity, other=other)
            messages.success(request, "Merged.")
        else:
            form = SplitForm(request.POST)
            if not form.is_valid():
                raise ValidationError("Give the other one's name.")
            aliases = [a for a in form.cleaned_data["aliases"].split(",") if a.strip()]
            target = services.entity_split(
                user=request.user, entity=entity, name=form.cleaned_data["name"], aliases=aliases
            )
            messages.success(request, f"{target.name} is now an entity of its own.")
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    return redirect("web-graph-entity", pk=target.pk)


@require_POST
@login_required
def relation_end_view(request: HttpRequest, pk: int) -> HttpResponse:
    """End one of the person's relations now (it is kept, with its end)."""
    try:
        relation = selectors.relation_get(user=request.user, relation_id=pk)
    except Relation.DoesNotExist:
        raise Http404 from None
    services.relation_end(user=request.user, relation=relation)
    messages.success(request, "Ended: it stays in the history.")
    back = as_id(request.POST.get("entity", ""))
    return redirect("web-graph-entity", pk=back) if back else redirect("web-graph")
