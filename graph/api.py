"""The graph API (/api/v1/graph/): a person's entities (list, create, their page: aliases,
relations now and before, memories; aliases, merge, split) and relations (list, add, end).
Each sees only their own: another person's id is the same 404 as a missing one."""

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import user_context
from conversations.models import Turn
from core.api.openapi import Operations, path_id
from core.api.views import PagedListView, valid_body, valid_query
from core.ids import MAX_ID, as_id
from graph import selectors, services
from graph.models import Entity, Relation
from graph.serializers import (
    GraphAliasesAnswerSerializer,
    GraphAliasesSerializer,
    GraphEntityCreateSerializer,
    GraphEntityPageSerializer,
    GraphEntityQuerySerializer,
    GraphEntitySerializer,
    GraphMergeSerializer,
    GraphRelationCreateSerializer,
    GraphRelationEndSerializer,
    GraphRelationSerializer,
    GraphSplitSerializer,
)
from memory.models import KnowledgeItem
from memory.selectors import items_about

ENTITY_ID = path_id("The entity's id; another person's id answers 404 like a missing one.")
RELATION_ID = path_id("The relation's id; another person's id answers 404 like a missing one.")
_TRUE, _FALSE = frozenset({"true", "1", "yes"}), frozenset({"false", "0", "no"})
api = Operations(["graph"])
on_entity = api.at(ENTITY_ID, row=GraphEntitySerializer)
on_relation = api.at(RELATION_ID, row=GraphRelationSerializer)


def _valid(serializer: type, request: Request) -> dict:
    return valid_body(serializer, request, user_context(request.user))


def _entity(request: Request, pk: int) -> Entity:
    return selectors.entity_get(user=request.user, entity_id=pk)


def _relation(request: Request, pk: int) -> Relation:
    return selectors.relation_get(user=request.user, relation_id=pk)


def _yours(user: Any, model: type, ids: list[int], field: str) -> list[int]:
    """`ids` when every one is the user's row of `model`, else a 400 naming `field`."""
    found = set(model.objects.for_user(user).filter(pk__in=ids).values_list("pk", flat=True))
    if found != set(ids):
        raise ValidationError({field: [f"No such {model._meta.verbose_name}."]})
    return ids


def _flag(value: str, field: str) -> bool:
    """A true/false query parameter; anything else (`maybe`) is a 400 naming it."""
    lower = value.lower()
    if lower not in _TRUE | _FALSE:
        raise ValidationError({field: ["true or false."]})
    return lower in _TRUE


def entity_page(user: Any, entity: Entity) -> dict:
    """An entity with its aliases, its relations now and before, and its memories."""
    relations = list(selectors.relations(user=user, entity=entity).prefetch_related("turns"))
    memories = items_about(
        user=user,
        item_ids=selectors.entity_item_ids(user=user, entity=entity),
        keys=selectors.entity_keys(user=user, entity=entity),
    )
    return {
        "entity": entity,
        "relations_now": [r for r in relations if r.current],
        "relations_before": [r for r in relations if not r.current],
        "memories": memories,
    }


class _Base(APIView):
    """The default permission (a person, or an app token acting for one of its people)."""


@api.paged_list(
    "graph_entities_list",
    summary="List your entities",
    description="People, organisations, teams, projects, places... by name, each with "
    "its aliases. `kind` keeps one kind; `q` those with a name containing it.",
    parameters=[GraphEntityQuerySerializer],
    failures=(400, 404),  # a bad filter; a page past the end
)
class EntityListView(_Base, PagedListView):
    serializer_class = GraphEntitySerializer

    def get(self, request: Request) -> Response:
        query = valid_query(GraphEntityQuerySerializer, request)
        found = selectors.entities(
            user=request.user, kind=query.get("kind"), q=query.get("q")
        ).prefetch_related("aliases")
        return self.paged(found)

    @api.found_or_created(
        "graph_entities_add",
        GraphEntityCreateSerializer,
        GraphEntitySerializer,
        summary="Add an entity (or name one you have)",
        description="An entity that goes by the name or one of the aliases already (exact, "
        "case ignored) is that one, given the new aliases (200); otherwise a new one (201).",
    )
    def post(self, request: Request) -> Response:
        data = _valid(GraphEntityCreateSerializer, request)
        before = Entity.objects.for_user(request.user).count()
        entity = services.entity_create(user=request.user, **data)
        created = Entity.objects.for_user(request.user).count() > before
        return Response(
            GraphEntitySerializer(entity).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class EntityDetailView(_Base):
    @on_entity.row_answer(
        "graph_entities_get",
        GraphEntityPageSerializer,
        summary="An entity's page: aliases, relations now and before, memories",
    )
    def get(self, request: Request, pk: int) -> Response:
        entity = _entity(request, pk)
        return Response(GraphEntityPageSerializer(entity_page(request.user, entity)).data)


class EntityAliasesView(_Base):
    @on_entity.row_change(
        "graph_entities_aliases",
        GraphAliasesSerializer,
        GraphAliasesAnswerSerializer,
        summary="Add or remove an entity's aliases",
        description='`add` names it goes by from now on ("Rui Costa", "my partner"); '
        "a name another entity goes by stays with it and is listed in `taken`. `remove` "
        "names it no longer goes by (not its own name).",
    )
    def post(self, request: Request, pk: int) -> Response:
        entity = _entity(request, pk)
        data = _valid(GraphAliasesSerializer, request)
        taken = services.entity_alias_add(
            user=request.user, entity=entity, aliases=data.get("add", [])
        )
        for alias in data.get("remove", []):
            services.entity_alias_remove(user=request.user, entity=entity, alias=alias)
        entity.refresh_from_db()
        return Response({"entity": GraphEntitySerializer(entity).data, "taken": taken})


class EntityMergeView(_Base):
    @on_entity.row_change(
        "graph_entities_merge",
        GraphMergeSerializer,
        summary="Merge another entity into this one",
        description="`other` is the same as this entity: its aliases, memories and "
        "relations move here and it is gone. Both must be yours.",
    )
    def post(self, request: Request, pk: int) -> Response:
        entity = _entity(request, pk)
        data = _valid(GraphMergeSerializer, request)
        merged = services.entity_merge(user=request.user, into=entity, other=data["other"])
        return Response(GraphEntitySerializer(merged).data)


class EntitySplitView(_Base):
    @on_entity.row_change(
        "graph_entities_split",
        GraphSplitSerializer,
        status=201,
        summary="Split part of an entity off as a new one",
        description="A new entity `name` takes the given aliases, memories and relations "
        "of this one (it keeps the rest).",
    )
    def post(self, request: Request, pk: int) -> Response:
        entity = _entity(request, pk)
        data = _valid(GraphSplitSerializer, request)
        user = request.user
        new = services.entity_split(
            user=request.user,
            entity=entity,
            name=data["name"],
            kind=data.get("kind"),
            aliases=data.get("aliases", []),
            item_ids=_yours(user, KnowledgeItem, data.get("memory_ids", []), "memory_ids"),
            relation_ids=_yours(user, Relation, data.get("relation_ids", []), "relation_ids"),
        )
        return Response(GraphEntitySerializer(new).data, status=status.HTTP_201_CREATED)


@api.paged_list(
    "graph_relations_list",
    summary="List your relations, newest first",
    parameters=[
        OpenApiParameter("entity", OpenApiTypes.INT, description="Of this entity only."),
        OpenApiParameter(
            "current", OpenApiTypes.BOOL, description="true: those that hold; false: ended."
        ),
    ],
)
class RelationListView(_Base, PagedListView):
    serializer_class = GraphRelationSerializer

    def get(self, request: Request) -> Response:
        entity, current = request.query_params.get("entity"), request.query_params.get("current")
        of = None
        if entity is not None:
            entity_id = as_id(entity)
            if entity_id is None:
                raise ValidationError({"entity": [f"An entity id (1 to {MAX_ID})."]})
            of = selectors.entity_get(user=request.user, entity_id=entity_id)
        held = None if current is None else _flag(current, "current")
        found = selectors.relations(user=request.user, entity=of, current=held)
        return self.paged(found.prefetch_related("turns"))

    @api.body_action(
        "graph_relations_add",
        GraphRelationCreateSerializer,
        GraphRelationSerializer,
        status=201,
        summary="Add a relation",
        description="`subject` `type` `object`, each end an entity id or a name (an entity "
        'that goes by it, else a new one; "me" is you). A relation that holds already '
        "gains the memories and turns given. A new works_at, lives_in or partner_of ends "
        "the one it contradicts at its `valid_from` (kept, with `ended_by`).",
    )
    def post(self, request: Request) -> Response:
        data = _valid(GraphRelationCreateSerializer, request)
        user = request.user
        relation = services.relation_add(
            user=user,
            subject=services.entity_resolve(
                user=user, ref=data["subject"], kind=data.get("subject_kind")
            ),
            type=data["type"],
            object=services.entity_resolve(
                user=user, ref=data["object"], kind=data.get("object_kind")
            ),
            item_ids=_yours(user, KnowledgeItem, data.get("memory_ids", []), "memory_ids"),
            turn_ids=_yours(user, Turn, data.get("turn_ids", []), "turn_ids"),
            valid_from=data.get("valid_from"),
        )
        fresh = selectors.relation_get(user=user, relation_id=relation.pk)
        return Response(GraphRelationSerializer(fresh).data, status=status.HTTP_201_CREATED)


class RelationDetailView(_Base):
    @on_relation.row_answer("graph_relations_get", summary="Get one relation")
    def get(self, request: Request, pk: int) -> Response:
        relation = _relation(request, pk)
        return Response(GraphRelationSerializer(relation).data)


class RelationEndView(_Base):
    @on_relation.row_change(
        "graph_relations_end",
        GraphRelationEndSerializer,
        summary="End a relation (it is kept, with its end)",
    )
    def post(self, request: Request, pk: int) -> Response:
        relation = _relation(request, pk)
        data = _valid(GraphRelationEndSerializer, request)
        services.relation_end(user=request.user, relation=relation, at=data.get("at"))
        fresh = _relation(request, relation.pk)
        return Response(GraphRelationSerializer(fresh).data)
