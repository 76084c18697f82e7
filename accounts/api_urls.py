from django.urls import path

from accounts import api

urlpatterns = [
    path("agents/", api.AgentListView.as_view(), name="api-agents"),
    path("agents/<int:pk>/", api.AgentDetailView.as_view(), name="api-agent-detail"),
]
