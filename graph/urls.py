"""The graph API (included under /api/v1/)."""

from django.urls import path

from graph import api

urlpatterns = [
    path("graph/entities/", api.EntityListView.as_view(), name="api-graph-entities"),
    path("graph/entities/<int:pk>/", api.EntityDetailView.as_view(), name="api-graph-entity"),
    path(
        "graph/entities/<int:pk>/aliases/",
        api.EntityAliasesView.as_view(),
        name="api-graph-entity-aliases",
    ),
    path(
        "graph/entities/<int:pk>/merge/",
        api.EntityMergeView.as_view(),
        name="api-graph-entity-merge",
    ),
    path(
        "graph/entities/<int:pk>/split/",
        api.EntitySplitView.as_view(),
        name="api-graph-entity-split",
    ),
    path("graph/relations/", api.RelationListView.as_view(), name="api-graph-relations"),
    path("graph/relations/<int:pk>/", api.RelationDetailView.as_view(), name="api-graph-relation"),
    path(
        "graph/relations/<int:pk>/end/",
        api.RelationEndView.as_view(),
        name="api-graph-relation-end",
    ),
]
