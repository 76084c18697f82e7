"""The `--user USERNAME` option shared by the per-user management commands."""

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db.models import QuerySet


def selected_users(username: str | None) -> QuerySet:
    """Every user by username, or only `username` (CommandError when there is none)."""
    users = get_user_model().objects.order_by("username")
    if username:
        users = users.filter(username=username)
        if not users.exists():
            raise CommandError(f"No user '{username}'.")
    return users
