"""Make sure an admin account exists (used by `make run`)."""

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the admin account if no superuser exists (GAIA_ADMIN_USER/PASSWORD)."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        if User.objects.filter(is_superuser=True).exists():
            return
        username = os.environ.get("GAIA_ADMIN_USER", "admin")
        password = os.environ.get("GAIA_ADMIN_PASSWORD", "")
        generated = not password
        if generated:
            password = secrets.token_urlsafe(12)
        User.objects.create_superuser(
            username=username, email=os.environ.get("GAIA_ADMIN_EMAIL", ""), password=password
        )
        self.stdout.write(self.style.SUCCESS(f"Created admin account '{username}'."))
        if generated:
            self.stdout.write(
                self.style.WARNING(
                    f"Generated password (shown once, change it after logging in): {password}"
                )
            )
