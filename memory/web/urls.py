"""The dashboard and the memory pages, mounted at the site root."""

from django.urls import path

from memory.web import backup, dashboard, memories

urlpatterns = [
    path("", dashboard.dashboard, name="web-dashboard"),
    path("memories/", memories.memory_list_page, name="web-memory-list"),
    path("memories/new/", memories.memory_add_page, name="web-memory-add"),
    path("memories/<int:pk>/", memories.memory_detail_page, name="web-memory-detail"),
    path("memories/<int:pk>/edit/", memories.memory_edit_page, name="web-memory-edit"),
    path("memories/<int:pk>/forget/", memories.memory_forget_page, name="web-memory-forget"),
    path("memories/<int:pk>/restore/", memories.memory_restore_page, name="web-memory-restore"),
    path("memories/<int:pk>/erase/", memories.memory_erase_page, name="web-memory-erase"),
    path(
        "memories/<int:pk>/versions/<int:version_id>/restore/",
        memories.memory_version_restore_page,
        name="web-memory-version-restore",
    ),
    path(
        "memories/<int:pk>/versions/<int:version_id>/erase/",
        memories.memory_version_erase_page,
        name="web-memory-version-erase",
    ),
    path("import/", backup.import_page, name="web-import"),
    path("import/<int:pk>/", backup.import_detail, name="web-import-detail"),
]
