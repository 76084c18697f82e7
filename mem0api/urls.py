"""mem0's platform API under /mem0/ (the SDK's `host=`): the paths mem0ai 2.x calls.

A write without its trailing slash is redirected with 308 (core.server.middleware), which keeps
the method and body. Every name starts with `api-`: tests/mem0api holds the cross-app
test of each (tests/test_architecture.py requires one).
"""

from django.urls import path

from mem0api.api import entities, exports, items, memories, unsupported

urlpatterns = [
    path("v1/ping/", entities.PingView.as_view(), name="api-mem0-ping"),
    path("v3/memories/add/", memories.AddView.as_view(), name="api-mem0-add"),
    path("v3/memories/search/", memories.SearchView.as_view(), name="api-mem0-search"),
    path("v3/memories/", memories.ListView.as_view(), name="api-mem0-list"),
    path("v2/memories/search/", memories.SearchV2View.as_view(), name="api-mem0-search-v2"),
    path("v2/memories/", memories.ListV2View.as_view(), name="api-mem0-list-v2"),
    path("v1/memories/", memories.DeleteAllView.as_view(), name="api-mem0-delete-all"),
    path(
        "v1/memories/<str:memory_id>/history/",
        items.HistoryView.as_view(),
        name="api-mem0-history",
    ),
    path("v1/memories/<str:memory_id>/", items.MemoryView.as_view(), name="api-mem0-memory"),
    path("v1/batch/", items.BatchView.as_view(), name="api-mem0-batch"),
    path("v1/exports/get/", exports.ExportView.as_view(), name="api-mem0-export"),
    path("v1/exports/", exports.CreateExportView.as_view(), name="api-mem0-export-create"),
    path("v1/entities/", entities.EntitiesView.as_view(), name="api-mem0-entities"),
    path(
        "v2/entities/<str:kind>/<str:name>/", entities.EntityView.as_view(), name="api-mem0-entity"
    ),
    # mem0's TypeScript SDK's deleteUser calls the v1 path of the same erase.
    path(
        "v1/entities/<str:kind>/<str:name>/",
        entities.EntityView.as_view(),
        name="api-mem0-entity-v1",
    ),
    path("<path:rest>", unsupported.UnsupportedView.as_view(), name="api-mem0-unsupported"),
]
