"""The account pages: sign-in, sign-up, password, API tokens, settings."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.web import accounts, preferences, tokens

urlpatterns = [
    path("login/", accounts.LoginView.as_view(), name="web-login"),
    path("logout/", auth_views.LogoutView.as_view(), name="web-logout"),
    path("signup/", accounts.signup, name="web-signup"),
    path("password/", accounts.PasswordChangeView.as_view(), name="web-password-change"),
    path("tokens/", tokens.token_list, name="web-token-list"),
    path("tokens/<id:pk>/revoke/", tokens.token_revoke_view, name="web-token-revoke"),
    path("agents/<id:pk>/", tokens.agent_edit, name="web-agent-edit"),
    path("settings/", preferences.settings_page, name="web-settings"),
]
