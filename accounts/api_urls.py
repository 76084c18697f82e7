"""The accounts API (included under /api/v1/).

A person's external id is a `path` segment so any id the app uses reaches its person:
spaces, '@', '.', and even '/' (as %2F or plain). The token routes come first: an id that
itself ends in `/tokens` or `/tokens/<n>` would reach them instead (docs/apps.md).
"""

from django.urls import path

from accounts.api import agents, people, staff

urlpatterns = [
    path("agents/", agents.AgentListView.as_view(), name="api-agents"),
    path("agents/<int:pk>/", agents.AgentDetailView.as_view(), name="api-agent-detail"),
    path("app/", people.AppMeView.as_view(), name="api-app"),
    path("apps/", staff.AppsView.as_view(), name="api-apps"),
    path("people/", people.PeopleView.as_view(), name="api-people"),
    path(
        "people/<path:user_id>/tokens/<int:pk>/",
        people.PersonTokenDetailView.as_view(),
        name="api-person-token-detail",
    ),
    path(
        "people/<path:user_id>/tokens/",
        people.PersonTokensView.as_view(),
        name="api-person-tokens",
    ),
    path("people/<path:user_id>/", people.PersonDetailView.as_view(), name="api-person-detail"),
]
