from django.urls import path

from conversations.web import views

urlpatterns = [
    path("", views.session_list, name="web-session-list"),
    path("search/", views.turn_search, name="web-turn-search"),
    path("tools/", views.tool_calls, name="web-tool-calls"),
    path("<int:pk>/", views.session_detail, name="web-session-detail"),
    path(
        "turns/<int:pk>/retry/",
        views.turn_extraction_retry_view,
        name="web-turn-extraction-retry",
    ),
]
