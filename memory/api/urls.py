"""The memory API under /api/v1/ (memories, recall, prompt material, tools, account data).

Every name starts with `api-`: tests/test_architecture.py requires a
cross-user test for each.
"""

from django.urls import path

from core.routes import actions, resource
from memory.api import account, history, memories, prompt

urlpatterns = [
    *resource(
        "memories/",
        memories.MemoryListCreateView,
        memories.MemoryDetailView,
        names=("api-memories", "api-memory-detail"),
    ),
    path("memories/search/", memories.MemorySearchView.as_view(), name="api-memory-search"),
    path("memories/forget/", memories.MemoryForgetBulkView.as_view(), name="api-memory-forget"),
    path("memories/upcoming/", memories.MemoryUpcomingView.as_view(), name="api-memory-upcoming"),
    *actions(
        "memories/",
        "api-memory",
        {"restore": memories.MemoryRestoreView, "erase": memories.MemoryEraseView},
    ),
    *resource(
        "memories/<int:pk>/history/",
        history.MemoryHistoryView,
        history.MemoryVersionView,
        names=("api-memory-history", "api-memory-version"),
        key="<int:version_id>",
    ),
    *actions(
        "memories/",
        "api-memory-version",
        {"restore": history.MemoryVersionRestoreView},
        key="<int:pk>/history/<int:version_id>",
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
    *resource(
        "imports/",
        account.ImportJobListView,
        account.ImportJobDetailView,
        names=("api-imports", "api-import-detail"),
    ),
]
