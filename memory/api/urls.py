"""The memory API under /api/v1/ (memories, recall, prompt material, tools, account data).

Every name starts with `api-`: tests/test_architecture.py requires a
cross-user test for each.
"""

from django.urls import path

from memory.api import account, history, memories, prompt

urlpatterns = [
    path("memories/", memories.MemoryListCreateView.as_view(), name="api-memories"),
    path("memories/search/", memories.MemorySearchView.as_view(), name="api-memory-search"),
    path("memories/forget/", memories.MemoryForgetBulkView.as_view(), name="api-memory-forget"),
    path("memories/upcoming/", memories.MemoryUpcomingView.as_view(), name="api-memory-upcoming"),
    path("memories/<int:pk>/", memories.MemoryDetailView.as_view(), name="api-memory-detail"),
    path(
        "memories/<int:pk>/restore/",
        memories.MemoryRestoreView.as_view(),
        name="api-memory-restore",
    ),
    path("memories/<int:pk>/erase/", memories.MemoryEraseView.as_view(), name="api-memory-erase"),
    path(
        "memories/<int:pk>/history/", history.MemoryHistoryView.as_view(), name="api-memory-history"
    ),
    path(
        "memories/<int:pk>/history/<int:version_id>/",
        history.MemoryVersionView.as_view(),
        name="api-memory-version",
    ),
    path(
        "memories/<int:pk>/history/<int:version_id>/restore/",
        history.MemoryVersionRestoreView.as_view(),
        name="api-memory-version-restore",
    ),
    path("prompt/system/", prompt.SystemPromptView.as_view(), name="api-prompt-system"),
    path("prompt/context/", prompt.DynamicContextView.as_view(), name="api-prompt-context"),
    path("tools/", prompt.ToolListView.as_view(), name="api-tools"),
    path("tools/call/", prompt.ToolCallView.as_view(), name="api-tool-call"),
    path("stats/", account.StatsView.as_view(), name="api-stats"),
    path("entities/", account.EntitiesView.as_view(), name="api-entities"),
    path("contexts/", account.ContextsView.as_view(), name="api-contexts"),
    path("activity/", account.ActivityView.as_view(), name="api-activity"),
    path("export/", account.ExportView.as_view(), name="api-export"),
    path("import/", account.ImportView.as_view(), name="api-import"),
    path("imports/", account.ImportJobListView.as_view(), name="api-imports"),
    path("imports/<int:pk>/", account.ImportJobDetailView.as_view(), name="api-import-detail"),
]
