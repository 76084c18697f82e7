"""Create an API token for a user; the secret is printed alone on the last line."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import token_create


class Command(BaseCommand):
    help = "Create a named API token for USERNAME (shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="default", help="name of the agent using it")
        parser.add_argument(
            "--agent", default=None, help="agent the token acts as (default: --name)"
        )
        parser.add_argument(
            "--create-user",
            action="store_true",
            help="create the user (no password, cannot log in) if missing",
        )

    def handle(
        self, *args, username: str, name: str, agent: str | None, create_user: bool, **options
    ) -> None:
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is None:
            if not create_user:
                raise CommandError(f"No user '{username}'. Add --create-user to create one.")
            user = User.objects.create_user(username=username)
            self.stderr.write(f"Created user '{username}' (set a password to log in).")
        token, secret = token_create(user=user, name=name, agent_name=agent)
        self.stderr.write(f"Token '{token.name}' for {username} (shown once, store it now):")
        self.stdout.write(secret)
