"""Every page of the web app, mounted at the site root (the API lives under /api/v1/)."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from memory.web import accounts, api_tokens, dashboard, memories, preferences

urlpatterns = [
    path("", dashboard.dashboard, name="web-dashboard"),
    path("login/", accounts.LoginView.as_view(), name="web-login"),
    path("logout/", auth_views.LogoutView.as_view(), name="web-logout"),
    path("signup/", accounts.signup, name="web-signup"),
    path("password/", accounts.PasswordChangeView.as_view(), name="web-password-change"),
    path("memories/", memories.memory_list, name="web-memory-list"),
    path("memories/new/", memories.memory_add, name="web-memory-add"),
    path("memories/<int:pk>/", memories.memory_detail, name="web-memory-detail"),
    path("memories/<int:pk>/edit/", memories.memory_edit, name="web-memory-edit"),
    path("memories/<int:pk>/forget/", memories.memory_forget, name="web-memory-forget"),
    path("memories/<int:pk>/restore/", memories.memory_restore, name="web-memory-restore"),
    path("memories/<int:pk>/erase/", memories.memory_erase, name="web-memory-erase"),
    path("conversations/", include("conversations.web.urls")),
    path("tokens/", api_tokens.token_list, name="web-token-list"),
    path("tokens/<int:pk>/revoke/", api_tokens.token_revoke_view, name="web-token-revoke"),
    path("settings/", preferences.settings_page, name="web-settings"),
]
