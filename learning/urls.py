from django.urls import path

from learning import api

urlpatterns = [
    path("memories/extract/", api.ExtractView.as_view(), name="api-memories-extract"),
    path(
        "conversations/sessions/<str:session_id>/consolidate/",
        api.ConsolidateView.as_view(),
        name="api-session-consolidate",
    ),
    path("prompt/profile/", api.ProfileView.as_view(), name="api-prompt-profile"),
]
