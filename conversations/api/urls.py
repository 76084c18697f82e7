from django.urls import path

from conversations.api import views
from core.api.routes import resource

urlpatterns = [
    *resource(
        "conversations/turns/",
        views.TurnCreateView,
        views.TurnDetailView,
        names=("api-turns", "api-turn-detail"),
    ),
    path("conversations/search/", views.TurnSearchView.as_view(), name="api-turn-search"),
    *resource(
        "conversations/sessions/",
        views.SessionListView,
        views.SessionDetailView,
        names=("api-sessions", "api-session-detail"),
        key="<str:session_id>",
    ),
    path("tool-calls/", views.ToolCallListCreateView.as_view(), name="api-tool-calls"),
    path("tool-calls/summary/", views.ToolCallSummaryView.as_view(), name="api-tool-call-summary"),
]
