"""The graph pages."""

from django.urls import path

from core.api.routes import actions
from graph import web

urlpatterns = [
    path("graph/", web.graph_view, name="web-graph"),
    path("graph/entities/<id:pk>/", web.entity_view, name="web-graph-entity"),
    path(
        "graph/entities/<id:pk>/<str:action>/",
        web.entity_action,
        name="web-graph-entity-action",
    ),
    *actions("graph/relations/", "web-graph-relation", {"end": web.relation_end_view}),
]
