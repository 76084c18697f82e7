"""The rightful caller of the endpoints a person's token cannot use, for the house-wide
guards that walk every documented operation: the app's own endpoints (`people/`, `app/`)
take an app token, `apps/` a staff member with the admin's permissions for apps. A
person's token there is a 403 that proves nothing about the body the guard sends."""

from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from accounts.people import (
    app_create,
    app_token_create,
    person_create,
    person_token_create,
)

APP_PATHS = ("/api/v1/people/", "/api/v1/app/")
STAFF_PATHS = ("/api/v1/apps/",)


def rightful_caller(path: str, user) -> tuple[APIClient, str] | None:
    """(a client, `path` with its ids filled in) for an app-only or staff-only path;
    None for every other path (the guard's own caller is the rightful one). `user` is made
    staff, with the admin's permissions for apps, for a staff path."""
    client = APIClient()
    if path.startswith(STAFF_PATHS):
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.user_permissions.add(*Permission.objects.filter(content_type__model="app"))
        client.force_authenticate(user)
        return client, path
    if not path.startswith(APP_PATHS):
        return None
    app = app_create(name=f"guard-{user.pk}")
    _, secret = app_token_create(app=app, name="guard")
    person, _ = person_create(app=app, external_id="guard-person")
    token, _ = person_token_create(app=app, person=person, name="issued")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    url = path.replace("{user_id}", "guard-person").replace("{id}", str(token.pk))
    return client, url
