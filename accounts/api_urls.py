"""The accounts API (included under /api/v1/).

A person's external id is a `path` segment so any id the app uses reaches its person:
spaces, '@', '.', and even '/' (as %2F or plain). The token routes come first: an id that
itself ends in `/tokens` or `/tokens/<n>` would reach them instead (docs/apps.md).
"""

from accounts.api import agents, people, staff
from core.api.routes import resource, segments

urlpatterns = [
    *resource(
        "agents/",
        agents.AgentListView,
        agents.AgentDetailView,
        names=("api-agents", "api-agent-detail"),
    ),
    *segments("", "api", {"app": people.AppMeView, "apps": staff.AppsView}),
    *resource(
        "people/<path:user_id>/tokens/",
        people.PersonTokensView,
        people.PersonTokenDetailView,
        names=("api-person-tokens", "api-person-token-detail"),
    ),
    *resource(
        "people/",
        people.PeopleView,
        people.PersonDetailView,
        names=("api-people", "api-person-detail"),
        key="<path:user_id>",
    ),
]
