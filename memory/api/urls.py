"""The memory API under /api/v1/ (memories, recall, prompt material, tools, account data).

Every name starts with `api-`: tests/test_architecture.py requires a
cross-user test for each.
"""

from django.urls import path

from core.api.routes import actions, resource, segments
from memory.api import account, history, memories, prompt

urlpatterns = [
    *resource(
        "memories/",
        memories.MemoryListCreateView,
        memories.MemoryDetailView,
        names=("api-memories", "api-memory-detail"),
    ),
    *segments(
        "memories/",
        "api-memory",
        {
            "search": memories.MemorySearchView,
            "forget": memories.MemoryForgetBulkView,
            "upcoming": memories.MemoryUpcomingView,
        },
    ),
    *actions(
        "memories/",
        "api-memory",
        {"restore": memories.MemoryRestoreView, "erase": memories.MemoryEraseView},
    ),
    *resource(
        "memories/<id:pk>/history/",
        history.MemoryHistoryView,
        history.MemoryVersionView,
        names=("api-memory-history", "api-memory-version"),
        key="<id:version_id>",
    ),
    *actions(
        "memories/",
        "api-memory-version",
        {"restore": history.MemoryVersionRestoreView},
        key="<id:pk>/history/<id:version_id>",
    ),
    *segments(
        "prompt/",
        "api-prompt",
        {"system": prompt.SystemPromptView, "context": prompt.DynamicContextView},
    ),
    path("tools/", prompt.ToolListView.as_view(), name="api-tools"),
    path("tools/call/", prompt.ToolCallView.as_view(), name="api-tool-call"),
    *segments(
        "",
        "api",
        {
            "stats": account.StatsView,
            "entities": account.EntitiesView,
            "contexts": account.ContextsView,
            "activity": account.ActivityView,
            "export": account.ExportView,
            "import": account.ImportView,
        },
    ),
    *resource(
        "imports/",
        account.ImportJobListView,
        account.ImportJobDetailView,
        names=("api-imports", "api-import-detail"),
    ),
]
