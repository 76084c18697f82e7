"""Make sure an admin account exists (used by `make run`), and say how to get in.

On the first start the account is created with GAIA_ADMIN_PASSWORD, or with a generated
password, printed and kept for `serve` to show under its banner until it is changed
(accounts/first_admin.py). Every later start names the account and the command that sets
a new password (`manage.py changepassword`), so a lost password is one command away.
"""

import os
import secrets
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from accounts.first_admin import first_admin_password_keep


def manage_command() -> str:
    """How to run manage.py from here: `.venv/bin/python manage.py` under `make run`."""
    python = os.path.relpath(sys.executable)
    if python.startswith(".."):
        python = sys.executable
    return f"{python} manage.py"


class Command(BaseCommand):
    help = "Create the admin account if no superuser exists (GAIA_ADMIN_USER/PASSWORD)."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        admin = User.objects.filter(is_superuser=True).order_by("pk").first()
        if admin is not None:
            self.stdout.write(
                f"Admin account '{admin.username}'. To set a new password, run: "
                f"{manage_command()} changepassword {admin.username}"
            )
            if os.environ.get("GAIA_ADMIN_PASSWORD"):
                self.stdout.write(
                    "GAIA_ADMIN_PASSWORD is only read when the admin account is created; "
                    "use changepassword to change it."
                )
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
            first_admin_password_keep(username=username, password=password)
            self.stdout.write(
                self.style.WARNING(
                    f"Generated password (serve shows it once more, under its banner): {password}\n"
                    "Change it on /password/ after logging in, or any time with: "
                    f"{manage_command()} changepassword {username}\n"
                    "(or set GAIA_ADMIN_PASSWORD before the first start)."
                )
            )
