from django.urls import path

from conversations.web import views
from core.api.routes import actions, resource

urlpatterns = [
    *resource(
        "",
        views.session_list,
        views.session_detail,
        names=("web-session-list", "web-session-detail"),
    ),
    path("search/", views.turn_search, name="web-turn-search"),
    path("tools/", views.tool_calls, name="web-tool-calls"),
    *actions("turns/", "web-turn-extraction", {"retry": views.turn_extraction_retry_view}),
]
