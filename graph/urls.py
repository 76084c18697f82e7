"""The graph API (included under /api/v1/)."""

from core.api.routes import actions, resource
from graph import api

urlpatterns = [
    *resource(
        "graph/entities/",
        api.EntityListView,
        api.EntityDetailView,
        names=("api-graph-entities", "api-graph-entity"),
    ),
    *actions(
        "graph/entities/",
        "api-graph-entity",
        {
            "aliases": api.EntityAliasesView,
            "merge": api.EntityMergeView,
            "split": api.EntitySplitView,
        },
    ),
    *resource(
        "graph/relations/",
        api.RelationListView,
        api.RelationDetailView,
        names=("api-graph-relations", "api-graph-relation"),
    ),
    *actions("graph/relations/", "api-graph-relation", {"end": api.RelationEndView}),
]
