from django.urls import path

from conversations.api import views

urlpatterns = [
    path("conversations/turns/", views.TurnCreateView.as_view(), name="api-turns"),
    path("conversations/turns/<int:pk>/", views.TurnDetailView.as_view(), name="api-turn-detail"),
    path("conversations/search/", views.TurnSearchView.as_view(), name="api-turn-search"),
    path("conversations/sessions/", views.SessionListView.as_view(), name="api-sessions"),
    path(
        "conversations/sessions/<str:session_id>/",
        views.SessionDetailView.as_view(),
        name="api-session-detail",
    ),
    path("tool-calls/", views.ToolCallListCreateView.as_view(), name="api-tool-calls"),
    path("tool-calls/summary/", views.ToolCallSummaryView.as_view(), name="api-tool-call-summary"),
]
