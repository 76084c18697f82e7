from django.urls import path

from core.api.routes import actions
from learning import api

urlpatterns = [
    path("memories/extract/", api.ExtractView.as_view(), name="api-memories-extract"),
    *actions(
        "conversations/sessions/",
        "api-session",
        {"consolidate": api.ConsolidateView},
        key="<str:session_id>",
    ),
    path("prompt/profile/", api.ProfileView.as_view(), name="api-prompt-profile"),
]
