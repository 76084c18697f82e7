"""The dashboard and the memory pages, mounted at the site root."""

from django.urls import path

from core.api.routes import actions, resource
from memory.web import backup, dashboard, memories

urlpatterns = [
    path("", dashboard.dashboard, name="web-dashboard"),
    *resource(
        "memories/",
        memories.memory_list_page,
        memories.memory_detail_page,
        names=("web-memory-list", "web-memory-detail"),
    ),
    path("memories/new/", memories.memory_add_page, name="web-memory-add"),
    *actions(
        "memories/",
        "web-memory",
        {
            "edit": memories.memory_edit_page,
            "forget": memories.memory_forget_page,
            "restore": memories.memory_restore_page,
            "erase": memories.memory_erase_page,
        },
    ),
    *actions(
        "memories/",
        "web-memory-version",
        {
            "restore": memories.memory_version_restore_page,
            "erase": memories.memory_version_erase_page,
        },
        key="<id:pk>/versions/<id:version_id>",
    ),
    *resource(
        "import/",
        backup.import_page,
        backup.import_detail,
        names=("web-import", "web-import-detail"),
    ),
]
